import Foundation
import HTTPTypes
import HummingbirdTesting
import SceneSync
import SceneSyncUI
@testable import SceneSyncServer
import SceneSyncServerTesting
import Testing

/// What a hosted app brings of its own: routes at paths it chooses, assets, and services, and the
/// access policy that tells a browser page from a native JSON client.
@Suite @MainActor struct AppPartsTests {
    static let json: HTTPFields = [.contentType: "Application/JSON; charset=utf-8"]

    @Test func aNativeJSONClientUsesAnAppsRootRoutesOnLoopback() async throws {
        let server = try await TestServer.start()
        let added = try await server.request("/lines", method: .post, headers: Self.json, body: #"{"text":"From the API"}"#)
        #expect(added.status == .ok)
        #expect(added.text == #"{"number":1}"#)
        #expect(try await server.request("/lines").text == #"{"lines":["From the API"]}"#)
        // The app's windows see what its API did: one model controller for both.
        let window = try await server.openWindow()
        #expect(window.view?.nodes(of: .row).map { $0.props["title"] } == ["From the API"])
        try await server.stop()
    }

    @Test func aRequestFromAnotherSiteOrForAnotherHostOrNotJSONIsRefusedAndStoresNothing() async throws {
        let server = try await TestServer.start()
        let body = #"{"text":"Sneaky"}"#
        let foreignOrigin = try await server.request(
            "/lines", method: .post, headers: Self.json.merging([.origin: "http://evil.example"]), body: body)
        #expect(foreignOrigin.status == .forbidden)
        #expect(foreignOrigin.text.contains("forbiddenOrigin"))
        let foreignHost = try await server.request(
            "/lines", method: .post, host: "evil.example:\(server.port)", headers: Self.json, body: body)
        #expect(foreignHost.status == .misdirectedRequest)
        // A cross-site form can post text but cannot set a JSON content type.
        let form = try await server.request("/lines", method: .post, headers: [.contentType: "text/plain"], body: body)
        #expect(form.status == .unsupportedMediaType)
        let untyped = try await server.request("/lines", method: .post, body: body)
        #expect(untyped.status == .unsupportedMediaType)
        #expect(try await server.request("/lines").text == #"{"lines":[]}"#)
        try await server.stop()
    }

    @Test func withATokenTheAPITakesItAsABearerToken() async throws {
        let server = try await TestServer.start(token: "s3cret-token")
        let body = #"{"text":"Tokened"}"#
        let none = try await server.request("/lines", method: .post, headers: Self.json, body: body)
        #expect(none.status == .unauthorized)
        let wrong = try await server.request(
            "/lines", method: .post, headers: Self.json.merging([.authorization: "Bearer s3cret-tokem"]), body: body)
        #expect(wrong.status == .unauthorized)
        // An Origin header is easy to write outside a browser: it never stands in for the token.
        let spoofed = try await server.request(
            "/lines", method: .post, headers: Self.json.merging([.origin: "http://127.0.0.1:\(server.port)"]), body: body)
        #expect(spoofed.status == .unauthorized)
        let right = try await server.request(
            "/lines", method: .post, headers: Self.json.merging([.authorization: "bearer s3cret-token"]), body: body)
        #expect(right.status == .ok)
        // Reading the API takes the token too; the server's own pages do not.
        #expect(try await server.request("/lines").status == .unauthorized)
        #expect(try await server.request("/lines", headers: [.authorization: "Bearer s3cret-token"]).text == #"{"lines":["Tokened"]}"#)
        #expect(try await server.request("/").status == .ok)
        try await server.stop()
    }

    @Test func everyRequestMustNameThisServer() async throws {
        let server = try await TestServer.start()
        #expect(try await server.request("/lines", host: "evil.example:\(server.port)").status == .misdirectedRequest)
        #expect(try await server.request("/tally", host: "evil.example:\(server.port)").status == .misdirectedRequest)
        // A method that is not GET, HEAD or OPTIONS is checked as a mutating one.
        let custom = try await server.request("/lines", method: HTTPRequest.Method("PURGE")!, headers: [.origin: "http://evil.example"])
        #expect(custom.status == .forbidden)
        try await server.stop()
    }

    @Test func anAppsAssetsAreServedWithETags() async throws {
        let server = try await TestServer.start()
        let note = try await server.request("/tally/assets/note.txt")
        #expect(note.status == .ok)
        #expect(note.text == "Tally's own asset.\n")
        let etag = try #require(note.headers[.eTag])
        let again = try await server.request("/tally/assets/note.txt", headers: [.ifNoneMatch: etag])
        #expect(again.status == .notModified)
        #expect(try await server.request("/tally/assets/missing.txt").status == .notFound)
        #expect(try await server.request("/tally/assets/../assets/note.txt").status == .badRequest)
        try await server.stop()
    }

    @Test func anAppsServiceRunsWithTheServerAndStopsAfterEveryWindowWasTold() async throws {
        let server = try await TestServer.start()
        let window = try await server.openWindow()
        #expect(server.journal.all == ["service started"])
        try await server.stop()
        #expect(window.messages.contains { $0.type == .shutdown })
        #expect(server.journal.all == ["service started", "service stopping with 0 windows connected"])
    }

    @Test func everyPageCarriesAContentSecurityPolicy() async throws {
        let server = try await TestServer.start()
        for path in ["/", "/tally"] {
            let policy = try #require(try await server.request(path).headers[SceneSyncServer.contentSecurityPolicy])
            #expect(policy.contains("script-src 'self'"))
            #expect(!policy.contains("unsafe-inline"))
        }
        try await server.stop()
    }
}

extension HTTPFields {
    fileprivate func merging(_ other: HTTPFields) -> HTTPFields {
        var result = self
        result.append(contentsOf: other)
        return result
    }
}
