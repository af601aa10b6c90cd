import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SceneSync
@testable import SceneSyncServer
import Testing

/// The renderer's files as a browser fetches them: gzipped when it accepts gzip, revalidated with
/// `ETag`, and under a versioned path that never has to be asked for again.
@Suite struct RendererAssetsTests {
    /// The renderer's files on disk, to compare with what is served.
    let root = StaticFiles().root

    func onDisk(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent(path)))
    }

    @Test func aFileIsGzippedForABrowserThatTakesGzipAndWholeForOneThatDoesNot() async throws {
        let server = try await TestServer.start()
        let gzipped = try await server.request("/js/render.js", headers: [.acceptEncoding: "gzip, deflate, br"])
        #expect(gzipped.status == .ok)
        #expect(gzipped.headers[.contentEncoding] == "gzip")
        #expect(gzipped.headers[.vary] == "Accept-Encoding")
        #expect(gzipped.headers[.contentType] == "text/javascript; charset=utf-8")
        let body = try #require(gzipped.body.map { Array(buffer: $0) })
        #expect(body.count < (try onDisk("js/render.js")).count / 2, "render.js shrinks by more than half")
        #expect(Gzip.decompress(body) == (try onDisk("js/render.js")), "what is unzipped is the file")

        for refusing in ["", "identity", "gzip;q=0", "br", "*;q=0, br", "gzip; q=0.0"] {
            let plain = try await server.request("/js/render.js", headers: refusing.isEmpty ? [:] : [.acceptEncoding: refusing])
            #expect(plain.headers[.contentEncoding] == nil, "Accept-Encoding: \(refusing)")
            #expect(plain.body.map { Array(buffer: $0) } == (try onDisk("js/render.js")))
        }
        for taking in ["GZIP", "*", "br;q=1, gzip;q=0.5", "x-gzip"] {
            #expect(try await server.request("/js/render.js", headers: [.acceptEncoding: taking]).headers[.contentEncoding] == "gzip",
                    "Accept-Encoding: \(taking)")
        }
        try await server.stop()
    }

    @Test func aRevisitIsAnsweredNotModifiedWithNoBody() async throws {
        let server = try await TestServer.start()
        for path in ["/js/main.js", "/css/scenesync.css", "/tally"] {
            let first = try await server.request(path)
            #expect(first.headers[.cacheControl] == "no-cache", "\(path): kept, and asked about each time")
            let tag = try #require(first.headers[.eTag])
            #expect(tag.hasPrefix("W/\""))
            let again = try await server.request(path, headers: [.ifNoneMatch: tag, .acceptEncoding: "gzip"])
            #expect(again.status == .notModified, "\(path)")
            #expect(again.body.map(\.readableBytes) ?? 0 == 0)
            #expect(again.headers[.eTag] == tag)
            // A list that names it, the strong form of it, or `*` match too; another tag does not.
            for matching in ["\"x\", \(tag)", String(tag.dropFirst(2)), "*"] {
                #expect(try await server.request(path, headers: [.ifNoneMatch: matching]).status == .notModified, "\(matching)")
            }
            #expect(try await server.request(path, headers: [.ifNoneMatch: "W/\"0000000000000000\""]).status == .ok)
        }
        // Files that differ have different tags.
        let tags = try await [server.request("/js/main.js"), server.request("/js/render.js")].map { $0.headers[.eTag] }
        #expect(tags[0] != tags[1])
        try await server.stop()
    }

    @Test func thePageNamesTheFilesByVersionAndPreloadsEveryModuleMainImports() async throws {
        let server = try await TestServer.start()
        let page = try await server.request("/tally").text
        let assets = RendererAssets(files: StaticFiles())
        let base = "/renderer/\(assets.version)/"
        #expect(page.contains(#"<link rel="stylesheet" href="\#(base)css/scenesync.css">"#))
        #expect(page.contains(#"<script type="module" src="\#(base)js/main.js"></script>"#))
        #expect(!page.contains(#""/js/"#) && !page.contains(#""/css/"#), "nothing left at an unversioned path")

        // Every module reachable from main.js, found here by following every `from "./…"`, is preloaded.
        var reachable: Set<String> = [], queue = ["js/main.js"]
        while let module = queue.popLast() {
            let source = String(decoding: try onDisk(module), as: UTF8.self)
            let folder = (module as NSString).deletingLastPathComponent
            for line in source.components(separatedBy: "from \"").dropFirst() {
                guard let end = line.firstIndex(of: "\"") else { continue }
                var parts = folder.split(separator: "/").map(String.init)
                for part in line[..<end].split(separator: "/") where part != "." {
                    if part == ".." { parts.removeLast() } else { parts.append(String(part)) }
                }
                let path = parts.joined(separator: "/")
                if reachable.insert(path).inserted { queue.append(path) }
            }
        }
        #expect(reachable.count >= 10)
        for module in reachable {
            #expect(page.contains(#"<link rel="modulepreload" href="\#(base)\#(module)">"#), "\(module) is preloaded")
        }
        let preloads = page.components(separatedBy: "rel=\"modulepreload\"").count - 1
        #expect(preloads == reachable.count, "and nothing else")
        try await server.stop()
    }

    @Test func onlyAnAppThatNamesARendererModuleHasItPreloadedAndNamed() throws {
        let apps = [
            HostedApp(name: "tally", title: "Tally", summary: "Lines.") { TallyAppDelegate(logger: $0) },
            HostedApp(name: "talk", title: "Talk", summary: "Words.", rendererModules: [.chat]) { TallyAppDelegate(logger: $0) },
        ]
        let assets = RendererAssets(files: StaticFiles(), apps: apps)
        let base = "/renderer/\(assets.version)/"
        let chat = #"<link rel="modulepreload" href="\#(base)js/components/chat.js">"#
        let meta = #"<meta name="scenesync-components" content="chat">"#
        let tally = String(buffer: try #require(assets.appPage(for: "tally")).bytes)
        let talk = String(buffer: try #require(assets.appPage(for: "talk")).bytes)
        #expect(!tally.contains("chat.js") && !tally.contains("scenesync-components"))
        #expect(talk.contains(chat) && talk.contains(meta))
        #expect(talk.range(of: meta)!.lowerBound < talk.range(of: #"<script type="module""#)!.lowerBound)
        // The rest is the same page, each module preloaded once.
        #expect(talk.replacingOccurrences(of: chat + "\n", with: "").replacingOccurrences(of: meta + "\n", with: "") == tally)
        #expect(!String(decoding: try onDisk("js/components/index.js"), as: UTF8.self).contains(#"from "./chat.js""#),
                "no app loads chat.js unless its page names it")
    }

    @Test func aVersionedFileIsImmutableAndAnOldVersionIsServedFresh() async throws {
        let server = try await TestServer.start()
        let version = RendererAssets(files: StaticFiles()).version
        let current = try await server.request("/renderer/\(version)/js/socket.js")
        #expect(current.status == .ok)
        #expect(current.headers[.cacheControl] == "public, max-age=31536000, immutable")
        #expect(current.body.map { Array(buffer: $0) } == (try onDisk("js/socket.js")))
        // A page from before a change of the files asks for its version: it gets today's file,
        // not to be kept for long.
        let old = try await server.request("/renderer/0123456789abcdef/css/scenesync.css")
        #expect(old.status == .ok)
        #expect(old.headers[.cacheControl] == "no-cache")
        for refused in ["/renderer/\(version)/app.html", "/renderer/\(version)/js/%2e%2e/app.html", "/renderer/\(version)/js/missing.js",
                        "/renderer/\(version)", "/renderer/\(version)/css/..%2f..%2fPackage.swift"] {
            let response = try await server.request(refused)
            #expect(response.status == .notFound || response.status == .badRequest, "\(refused)")
            #expect(!response.text.contains("doctype") && !response.text.contains("PackageDescription"), "\(refused)")
        }
        try await server.stop()
    }

    @Test func theVersionFollowsTheFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("renderer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("js"), withIntermediateDirectories: true)
        try Data("<script type=\"module\" src=\"/js/main.js\"></script>".utf8).write(to: folder.appendingPathComponent("app.html"))
        try Data("import { a } from \"./a.js\";\n".utf8).write(to: folder.appendingPathComponent("js/main.js"))
        try Data("export const a = 1;\n".utf8).write(to: folder.appendingPathComponent("js/a.js"))
        let before = RendererAssets(files: StaticFiles(root: folder))
        #expect(String(buffer: try #require(before.appPage).bytes).contains("/renderer/\(before.version)/js/a.js"))
        try Data("export const a = 2;\n".utf8).write(to: folder.appendingPathComponent("js/a.js"))
        #expect(RendererAssets(files: StaticFiles(root: folder)).version != before.version, "a changed file, a new version")
    }
}
