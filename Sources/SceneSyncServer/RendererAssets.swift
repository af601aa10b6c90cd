import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The renderer's files, read once when the server starts and kept in memory, each with a weak
/// `ETag` (a hash of its bytes) and, where it is smaller, a gzip copy.
///
/// - `/js/…` and `/css/…` are answered with `Cache-Control: no-cache`: the browser keeps them and
///   asks again each time, and `If-None-Match` with the `ETag` gets `304` with no body.
/// - The same files under `/renderer/<version>/…`, where `version` is a hash of every file, are
///   answered with `immutable` and a year's `max-age`: the browser does not ask again until a
///   server with other files gives the page another version. An old version's path is still
///   answered, with the current file and `no-cache`.
/// - An app's page refers to its style sheet and script by the versioned path, and names every
///   module `main.js` imports, directly or not, with `<link rel="modulepreload">`, so that the
///   browser fetches them at once rather than one import after another. An app with
///   ``HostedApp/rendererModules`` has a page of its own that also preloads those modules (and what
///   they import that `main.js` does not) and names them to the renderer in a
///   `<meta name="scenesync-components">`, so that the renderer imports them before it draws.
struct RendererAssets: Sendable {
    /// One file as it is served.
    struct Asset: Sendable {
        let bytes: ByteBuffer
        /// The gzip copy, if it is smaller.
        let gzipped: ByteBuffer?
        let contentType: String
        /// A weak entity tag: the same for both encodings, as the file is the same.
        let etag: String

        init(bytes: [UInt8], contentType: String) {
            self.bytes = ByteBuffer(bytes: bytes)
            self.contentType = contentType
            etag = "W/\"\(RendererAssets.hash(bytes))\""
            // Pictures and fonts are compressed already.
            let compressible = contentType.hasPrefix("text/") || contentType.hasPrefix("application/json")
                || contentType.hasPrefix("image/svg")
            if compressible, let gzip = Gzip.compress(bytes), gzip.count < bytes.count {
                gzipped = ByteBuffer(bytes: gzip)
            } else {
                gzipped = nil
            }
        }
    }

    /// The path prefix of versioned files.
    static let versionedPrefix = "/renderer/"
    /// `Cache-Control` of a file under the current version.
    static let immutable = "public, max-age=31536000, immutable"

    let files: StaticFiles
    /// Every file under `js/` and `css/`, by its path in the file system.
    private let assets: [String: Asset]
    /// A hash of every file: a new one whenever any file changes.
    let version: String
    /// The page of every app without ``HostedApp/rendererModules``, referring to the renderer's
    /// files by the versioned path.
    let appPage: Asset?
    /// The pages of apps with ``HostedApp/rendererModules``, by app name.
    private let appPages: [String: Asset]
    /// The widget page.
    let widgetPage: Asset?

    /// Reads every file of `files`, and makes the page of each of `apps`.
    init(files: StaticFiles, apps: [HostedApp] = []) {
        self.files = files
        var assets: [String: Asset] = [:]
        var signature: [String] = []
        for folder in StaticFiles.folders.sorted() {
            let base = files.root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let url as URL in walker {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                      let type = StaticFiles.contentTypes[url.pathExtension.lowercased()],
                      let data = FileManager.default.contents(atPath: url.path) else { continue }
                let asset = Asset(bytes: Array(data), contentType: type)
                assets[url.standardizedFileURL.path] = asset
                signature.append("\(url.path.dropFirst(files.root.path.count)) \(asset.etag)")
            }
        }
        self.assets = assets
        let version = Self.hash(Array(signature.sorted().joined(separator: "\n").utf8))
        self.version = version
        let read = { (name: String) -> [UInt8]? in
            FileManager.default.contents(atPath: files.root.appendingPathComponent(name).path).map(Array.init)
        }
        let preloads = Self.imports(from: "js/main.js", root: files.root)
        let template = read("app.html").map { String(decoding: $0, as: UTF8.self) }
        let page = { (modules: [HostedApp.RendererModule]) -> Asset? in
            var extra: [String] = []
            for module in modules {
                for path in [module.path] + Self.imports(from: module.path, root: files.root)
                where !preloads.contains(path) && !extra.contains(path) {
                    extra.append(path)
                }
            }
            return template.map { page in
                Asset(bytes: Array(Self.versioned(page, version: version, preloads: preloads + extra,
                                                  components: modules.map(\.name)).utf8),
                      contentType: "text/html; charset=utf-8")
            }
        }
        appPage = page([])
        var appPages: [String: Asset] = [:]
        for app in apps where !app.rendererModules.isEmpty {
            appPages[app.name] = page(app.rendererModules)
        }
        self.appPages = appPages
        widgetPage = read("widget.html").map { Asset(bytes: $0, contentType: "text/html; charset=utf-8") }
    }

    /// The page of the app named `name`.
    func appPage(for name: String) -> Asset? {
        appPages[name] ?? appPage
    }

    /// The file a request for `/js/…` or `/css/…` names (`rawPath` still percent-encoded).
    func asset(at rawPath: String) -> Result<Asset, HTTPError> {
        switch files.lookup(rawPath) {
        case let .file(path, _):
            guard let asset = assets[URL(fileURLWithPath: path).standardizedFileURL.path] else { return .failure(HTTPError(.notFound)) }
            return .success(asset)
        case .invalid: return .failure(HTTPError(.badRequest))
        case .notFound: return .failure(HTTPError(.notFound))
        }
    }

    /// The file a versioned path names, and whether its version is the current one.
    func versionedAsset(at rawPath: String) -> Result<(asset: Asset, current: Bool), HTTPError> {
        let rest = rawPath.dropFirst(Self.versionedPrefix.count)
        guard rawPath.hasPrefix(Self.versionedPrefix), let slash = rest.firstIndex(of: "/") else { return .failure(HTTPError(.notFound)) }
        return asset(at: String(rest[slash...])).map { ($0, rest[..<slash] == version) }
    }

    /// The `<meta>` name under which an app's page names its ``HostedApp/RendererModule``s, as
    /// `main.js` reads it.
    static let componentsMetaName = "scenesync-components"

    /// `page` with the style sheet and script at their versioned paths, and a `modulepreload`
    /// link for each module in `preloads`, before the script; with `components`, a `<meta>` naming
    /// them (space-separated) before the links.
    static func versioned(_ page: String, version: String, preloads: [String], components: [String] = []) -> String {
        let base = "\(versionedPrefix)\(version)/"
        var page = page
            .replacingOccurrences(of: "href=\"/css/", with: "href=\"\(base)css/")
            .replacingOccurrences(of: "src=\"/js/", with: "src=\"\(base)js/")
        let meta = components.isEmpty ? ""
            : "<meta name=\"\(componentsMetaName)\" content=\"\(HomePage.escape(components.joined(separator: " ")))\">\n"
        let links = meta + preloads.map { "<link rel=\"modulepreload\" href=\"\(base)\($0)\">\n" }.joined()
        if let script = page.range(of: "<script type=\"module\"") {
            page.insert(contentsOf: links, at: script.lowerBound)
        }
        return page
    }

    /// Every module `entry` (a path under `root`) imports, directly or through others, by path
    /// under `root`, in the order they are found; `entry` itself is not among them.
    static func imports(from entry: String, root: URL) -> [String] {
        var found: [String] = [], seen: Set<String> = [entry], queue = [entry]
        while !queue.isEmpty {
            let module = queue.removeFirst()
            guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(module).path) else { continue }
            let folder = URL(fileURLWithPath: "/" + module).deletingLastPathComponent()
            for specifier in staticImports(in: String(decoding: data, as: UTF8.self)) {
                let path = String(folder.appendingPathComponent(specifier).standardizedFileURL.path.dropFirst())
                if seen.insert(path).inserted {
                    found.append(path)
                    queue.append(path)
                }
            }
        }
        return found
    }

    /// The relative specifiers of a module's static imports and re-exports: `… from "./x.js"` and
    /// `import "./x.js"`.
    static func staticImports(in source: String) -> [String] {
        var specifiers: [String] = []
        for pattern in [#"\bfrom\s*"(\.{1,2}/[^"]+)""#, #"\bimport\s*"(\.{1,2}/[^"]+)""#] {
            guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
            let range = NSRange(source.startIndex..., in: source)
            for match in regex.matches(in: source, range: range) {
                if let found = Range(match.range(at: 1), in: source) { specifiers.append(String(source[found])) }
            }
        }
        return specifiers
    }

    /// 64-bit FNV-1a, in hex: names a file's bytes.
    static func hash(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    // MARK: - Answers

    /// The answer to a GET (or HEAD) of `asset`: `304` if the request's `If-None-Match` names its
    /// tag, else the file, gzipped if the request accepts gzip and that is smaller.
    static func response(_ asset: Asset, to request: Request, cacheControl: String, extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.eTag: asset.etag, .cacheControl: cacheControl]
        if asset.gzipped != nil { headers[.vary] = "Accept-Encoding" }
        headers.append(contentsOf: extra)
        if let tags = request.headers[.ifNoneMatch], matches(tags, asset.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        if let gzipped = asset.gzipped, acceptsGzip(request.headers[values: .acceptEncoding]) {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: gzipped))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: asset.bytes))
    }

    /// Whether an `If-None-Match` value names `etag`, compared weakly (RFC 9110, 13.1.2).
    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        let weak = { (tag: Substring) in tag.hasPrefix("W/") ? tag.dropFirst(2) : tag }
        let own = weak(Substring(etag))
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || weak(Substring(tag)) == own
        }
    }

    /// Whether `Accept-Encoding` values take gzip: `gzip` or `*` with a weight above 0.
    static func acceptsGzip(_ values: [String]) -> Bool {
        var gzip: Bool?, any: Bool?
        for coding in values.flatMap({ $0.split(separator: ",") }) {
            let parts = coding.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = parts.first else { continue }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if name == "gzip" || name == "x-gzip" { gzip = weight > 0 } else if name == "*" { any = weight > 0 }
        }
        return gzip ?? any ?? false
    }
}
