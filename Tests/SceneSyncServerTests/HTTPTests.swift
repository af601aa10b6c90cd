import HTTPTypes
import HummingbirdTesting
import SceneSync
@testable import SceneSyncServer
import Testing

/// The home page, each app's page and the renderer's files.
@Suite struct HTTPTests {
    @Test func theHomePageListsTheAppsEscaped() async throws {
        let server = try await TestServer.start()
        let response = try await server.request("/")
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/html; charset=utf-8")
        #expect(response.text.contains(#"<a href="/tally">Tally</a>"#))
        #expect(response.text.contains("Lines &lt;counted&gt; &amp; &quot;shared&quot;."))
        try await server.stop()
    }

    @Test func theHomePageKeepsTheTokenInItsLinks() async throws {
        let server = try await TestServer.start(token: "s3cret")
        #expect(try await server.request("/?token=s3cret").text.contains(#"href="/tally?token=s3cret""#))
        #expect(try await !server.request("/?token=guess").text.contains("s3cret"))
        try await server.stop()
    }

    @Test func anAppIsServedTheRenderersPage() async throws {
        let server = try await TestServer.start()
        let response = try await server.request("/tally")
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/html; charset=utf-8")
        #expect(response.text.lowercased().contains("<!doctype html>"))
        #expect(try await server.request("/nothing").status == .notFound)
        // Every place of the app is its page too (the window's `path`), but not what the app keeps
        // under its own names, nor a place of an app that is not there.
        let place = try await server.request("/tally/lines/3%20four")
        #expect(place.status == .ok && place.text == response.text)
        for path in ["/nothing/lines/3", "/tally/assets/missing.png", "/tally/widget.json/x"] {
            #expect(try await server.request(path).status == .notFound, "\(path)")
        }
        try await server.stop()
    }

    @Test func theRenderersFilesAreServedWithTheirTypes() async throws {
        let server = try await TestServer.start()
        let css = try await server.request("/css/scenesync.css")
        #expect(css.status == .ok)
        #expect(css.headers[.contentType] == "text/css; charset=utf-8")
        #expect(css.headers[.xContentTypeOptions] == "nosniff")
        #expect(try await server.request("/css/missing.css").status == .notFound)
        let folder = try await server.request("/js/").status
        #expect(folder == .notFound || folder == .badRequest)
        try await server.stop()
    }

    @Test(arguments: [
        "/js/../app.html", "/css/../../Package.swift", "/js/%2e%2e/app.html", "/js/%2E%2E/%2E%2E/Package.swift",
        "/css/..%2f..%2fPackage.swift", "/js/.hidden", "/js/a%00.js", "/css//scenesync.css", "/js/%252e%252e/app.html",
    ])
    func pathTraversalIsRefused(path: String) async throws {
        let server = try await TestServer.start()
        let response = try await server.request(path)
        #expect(response.status == .badRequest || response.status == .notFound)
        #expect(!response.text.contains("doctype"))
        #expect(!response.text.contains("PackageDescription"))
        try await server.stop()
    }
}
