import Foundation

/// The renderer's files, from the `Public` folder of the module's bundle: `app.html` for every
/// app's page, and what is under `js/` and `css/`.
///
/// Only plain names are served: every segment of the path is percent-decoded, then must be made
/// of letters, digits, `.`, `_` and `-`, and must not start with a dot. So `..`, encoded or not,
/// an encoded `/`, and hidden files never reach the file system.
///
/// Apps' asset folders go through Hummingbird's `FileMiddleware`; the renderer's own files do not,
/// because `FileMiddleware` serves hidden files and paths with empty segments (`/css//x.css`) and
/// answers a folder's files under any name the router did not claim, where the renderer's folder
/// also holds `app.html`, which must be served only as an app's page, with its
/// `Content-Security-Policy`.
struct StaticFiles: Sendable {
    /// What a request path names.
    enum Lookup: Equatable, Sendable {
        case file(path: String, contentType: String)
        /// A path that is not a plain name (traversal, hidden file, empty segment).
        case invalid
        case notFound
    }

    let root: URL

    init(root: URL? = nil) {
        self.root = root
            ?? Bundle.module.url(forResource: "Public", withExtension: nil)
            ?? Bundle.module.bundleURL.appendingPathComponent("Public")
    }

    /// The page every app is served from.
    var appPage: Lookup { file(at: ["app.html"]) }
    var widgetPage: Lookup { file(at: ["widget.html"]) }

    /// The file for a request to `/js/…` or `/css/…`, given the raw (still percent-encoded) path.
    func lookup(_ rawPath: String) -> Lookup {
        var segments = rawPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard rawPath.hasPrefix("/"), let folder = segments.popFirst(), Self.folders.contains(String(folder)),
              !segments.isEmpty, segments.count <= 8
        else { return .invalid }
        var names = [String(folder)]
        for segment in segments {
            guard let name = segment.removingPercentEncoding, Self.isPlainName(name) else { return .invalid }
            names.append(name)
        }
        return file(at: names)
    }

    static let folders: Set<String> = ["js", "css"]

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "map": "application/json; charset=utf-8",
        "json": "application/json; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "ico": "image/x-icon",
        "woff": "font/woff",
        "woff2": "font/woff2",
        "txt": "text/plain; charset=utf-8",
    ]

    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "."), name.utf8.count <= 128 else { return false }
        return name.utf8.allSatisfy { byte in
            (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    private func file(at names: [String]) -> Lookup {
        let url = names.reduce(root) { $0.appendingPathComponent($1) }
        guard let type = Self.contentTypes[url.pathExtension.lowercased()] else { return .notFound }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return .notFound
        }
        return .file(path: url.path, contentType: type)
    }
}
