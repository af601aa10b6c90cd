import HTTPTypes
import HummingbirdTesting
import SceneSync
@testable import SceneSyncUI
@testable import SceneSyncServer
import SceneSyncSQLite
import SceneSyncServerTesting
import Testing

/// Who may talk to the server: its own pages on its own host names, with its token if it has one.
@MainActor
@Suite struct AccessTests {
    @Test func aWebSocketFromAForeignOriginIsRefused() async throws {
        let server = try await TestServer.start()
        await #expect(throws: WindowClientError.upgradeRefused) {
            _ = try await server.window(origin: .custom("http://evil.example"))
        }
        await #expect(throws: WindowClientError.upgradeRefused) {
            _ = try await server.window(origin: .custom("http://127.0.0.1:\(server.port + 1)"))
        }
        try await server.stop()
    }

    @Test func aWebSocketWithoutOriginIsRefused() async throws {
        let server = try await TestServer.start()
        await #expect(throws: WindowClientError.upgradeRefused) {
            _ = try await server.window(origin: .none)
        }
        try await server.stop()
    }

    @Test func aWebSocketForAnotherHostIsRefused() async throws {
        // DNS rebinding: a page of evil.example, whose name now points at 127.0.0.1.
        let server = try await TestServer.start()
        await #expect(throws: WindowClientError.upgradeRefused) {
            _ = try await server.window(hostHeader: "evil.example:\(server.port)")
        }
        let response = try await server.request("/ws/tally", host: "evil.example:\(server.port)", headers: Self.upgrade(
            origin: "http://evil.example:\(server.port)"))
        #expect(response.status == .badRequest)
        try await server.stop()
    }

    @Test(arguments: ["127.0.0.1", "localhost", "[::1]"])
    func everyLoopbackNameOfTheServerIsItsOwn(host: String) async throws {
        let server = try await TestServer.start()
        let window = try await server.window(hostHeader: "\(host):\(server.port)")
        window.hello()
        try await window.next(.welcome)
        try await server.stop()
    }

    @Test func aMutatingRequestMustNameThisServerAndComeFromItsPages() async throws {
        let server = try await TestServer.start()
        let own = "127.0.0.1:\(server.port)"
        let rebound = try await server.request("/", method: .post, host: "evil.example:\(server.port)",
                                               headers: [.origin: "http://evil.example:\(server.port)"])
        #expect(rebound.status == .misdirectedRequest)
        let foreign = try await server.request("/", method: .post, host: own, headers: [.origin: "http://evil.example"])
        #expect(foreign.status == .forbidden)
        // Without Origin it is a native client's request, which must at least be JSON.
        let missing = try await server.request("/", method: .delete, host: own)
        #expect(missing.status == .unsupportedMediaType)
        let sameSite = try await server.request("/", method: .put, host: own, headers: [.origin: "http://\(own)"])
        #expect(sameSite.status != .forbidden && sameSite.status != .misdirectedRequest)
        try await server.stop()
    }

    @Test func theTokenIsRequiredWhenConfigured() async throws {
        let server = try await TestServer.start(token: "s3cret-token")
        let wrong = try await server.window()
        wrong.hello(token: "s3cret-tokem")
        #expect(try await wrong.next(.error).errorCode == "unauthorized")
        try await wrong.waitUntil("the socket to close") { wrong.isClosed }
        #expect(wrong.closeCode == 1008)

        let missing = try await server.window()
        missing.hello()
        #expect(try await missing.next(.error).errorCode == "unauthorized")

        let right = try await server.openWindow(token: "s3cret-token")
        #expect(right.session != nil)
        try await server.stop()
    }

    @Test func listeningBeyondLoopbackRequiresAToken() throws {
        #expect(throws: SceneSyncServerError.tokenRequired(host: "0.0.0.0")) {
            _ = try SceneSyncServer(configuration: .init(host: "0.0.0.0", port: 0), apps: [], storage: Self.noStorage)
        }
        #expect(throws: SceneSyncServerError.tokenRequired(host: "192.168.1.20")) {
            _ = try SceneSyncServer(configuration: .init(host: "192.168.1.20", port: 0), apps: [], storage: Self.noStorage)
        }
        for blank in ["", " ", "\t\n", "\u{3000}"] {
            #expect(throws: SceneSyncServerError.blankToken) {
                _ = try SceneSyncServer(configuration: .init(host: "0.0.0.0", port: 0, token: blank), apps: [], storage: Self.noStorage)
            }
        }
        for unprintable in [" s3cret", "s3 cret", "s3cret\u{0}", "sécret"] {
            #expect(throws: SceneSyncServerError.tokenNotPrintable) {
                _ = try SceneSyncServer(configuration: .init(host: "0.0.0.0", port: 0, token: unprintable), apps: [], storage: Self.noStorage)
            }
        }
        _ = try SceneSyncServer(configuration: .init(host: "0.0.0.0", port: 0, token: "s3cret"), apps: [], storage: Self.noStorage)
        _ = try SceneSyncServer(configuration: .init(host: "127.0.0.2", port: 0), apps: [], storage: Self.noStorage)
        _ = try SceneSyncServer(configuration: .init(host: "localhost", port: 0), apps: [], storage: Self.noStorage)
    }

    static let noStorage: SceneSyncServer.StorageFactory = { _, _ in try SQLiteStorage.inMemory() }

    static func upgrade(origin: String) -> HTTPFields {
        [
            .connection: "Upgrade", .upgrade: "websocket", .secWebSocketVersion: "13",
            .secWebSocketKey: "dGhlIHNhbXBsZSBub25jZQ==", .origin: origin,
        ]
    }
}
