import Foundation
import Logging
import SceneSync
@testable import SceneSyncServer
import SceneSyncServerTesting
import SceneSyncUI
import Testing

/// What one hostile client can no longer take from everyone: connection slots held by sockets
/// that never say hello, memory held by a window that never reads, the server's time taken by a
/// ping flood, and answers the RFCs ask for that a careless server leaves out.
@Suite struct HostileClientTests {
    static let hello = #"{"type":"hello","v":1,"visible":true,"focused":true}"#

    @MainActor @Test func aSocketThatNeverSaysHelloIsClosedWithPolicyViolation() async throws {
        let server = try await TestServer.start(token: "s3cret", connectionLimits: .init(helloTimeout: .seconds(1)))
        let silent = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        let started = ContinuousClock.now
        #expect(try await silent.closeCode(timeout: .seconds(5)) == 1008)
        #expect(ContinuousClock.now - started < .seconds(4))
        // A window that says hello in time stays.
        let window = try await server.openWindow(token: "s3cret")
        // A silent socket connected after it is closed at its own deadline, so the window's has passed.
        let later = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        #expect(try await later.closeCode(timeout: .seconds(5)) == 1008)
        // Still open past the timeout: a second hello is answered (refused), not met by a close.
        window.hello(session: nil)
        try await window.next(.error)
        try await server.stop()
    }

    @Test func oneAddressNeverTakesMoreThanHalfOfTheConnections() async throws {
        let server = try await TestServer.start(connectionLimits: .init(maximumConnections: 6, maximumConnectionsPerAddress: 100))
        var held: [RawConnection] = []
        for _ in 0..<3 {
            let connection = try RawConnection(port: server.port)
            try connection.send(RawConnection.get("/", port: server.port, extra: "Connection: keep-alive\r\n"))
            _ = try await connection.statusLine()
            held.append(connection)
        }
        let fourth = try RawConnection(port: server.port)
        try fourth.send(RawConnection.get("/", port: server.port))
        #expect(try await fourth.statusLine().hasPrefix("HTTP/1.1 503"))
        let elsewhere = try RawConnection(port: server.port, from: "127.0.0.2")
        try elsewhere.send(RawConnection.get("/", port: server.port))
        #expect(try await elsewhere.statusLine().hasPrefix("HTTP/1.1 200"))
        held.removeAll()
        try await server.stop()
    }

    @MainActor @Test func aWindowThatNeverReadsIsDroppedWithItsQueue() async throws {
        let server = try await TestServer.start(outboundBufferBytes: 1 << 20)
        let stalled = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app, receiveBuffer: 4_096)
        try stalled.send(text: Self.hello)
        let reader = try await server.openWindow()
        let controller = try #require(server.delegates.tally?.controller)
        // 40 lines of 256 KiB each: 10 MiB for every window, more than the kernel's buffers and
        // the window's 1 MiB. Each line waits until the window that reads has shown the one
        // before: it is held to the same 1 MiB, and a debug build decoding 256 KiB on a machine the
        // other suites share can fall four lines behind, which would drop it too.
        let text = String(repeating: "x", count: 256 * 1024)
        for number in 1...40 {
            try await controller.perform(origin: nil) { state in
                [.lineAdded(.init(number: state.lines.count + 1, text: text), index: state.lines.count)]
            }
            try await reader.waitUntil("line \(number)", timeout: .seconds(30)) {
                reader.isClosed || reader.view?.node(TallyScreen.NodeID.row(number)) != nil
            }
            #expect(!reader.isClosed, "the window that reads was closed with \(reader.closeCode.map(String.init) ?? "no code")")
            if reader.isClosed { break }
        }
        let received = try await stalled.drainUntilClosed(timeout: .seconds(10))
        #expect(received < 40 * 256 * 1024, "the stalled window was sent everything: \(received) bytes")
        // The window that reads is still there and saw every line.
        #expect(!reader.isClosed)
        #expect(reader.view?.node(TallyScreen.NodeID.row(40)) != nil)
        try await reader.waitUntil("the dropped queue given back") { server.server.outboundBudget.queuedBytes < 1 << 20 }
        try await server.stop()
    }

    @Test func aPingFloodIsClosedWithPolicyViolation() async throws {
        let server = try await TestServer.start(rateLimit: .init(burst: 20, perSecond: 10))
        let flooder = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        for _ in 0..<200 {
            do { try flooder.send(opcode: 0x9, Array("ping".utf8)) } catch { break }
        }
        #expect(try await flooder.closeCode(timeout: .seconds(5)) == 1008)
        // A window pinging within its budget keeps its pongs.
        let polite = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        for _ in 0..<10 { try polite.send(opcode: 0x9, Array("ping".utf8)) }
        try polite.send(text: Self.hello)
        _ = try await polite.textMessages { $0.contains("\"welcome\"") }
        try await server.stop()
    }

    @Test func answersWhatTheRFCsAskOfAServer() async throws {
        let server = try await TestServer.start()
        let port = server.port
        let upgrade = "GET /ws/tally HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        let cases: [(request: String, status: String, header: String?)] = [
            (upgrade + "Sec-WebSocket-Version: 13\r\n\r\n", "400", nil),
            (upgrade + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n", "400", nil),
            (upgrade + "Sec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "426", "Sec-WebSocket-Version: 13"),
            ("GET http://evil.example/tally HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", "421", nil),
            ("GET HTTP://EVIL.example:\(port)/ HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", "421", nil),
            ("GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", "404", nil),
            ("GET /tally HTTP/1.1\r\nHost: evil.example\r\n\r\n", "421", nil),
        ]
        for (request, status, header) in cases {
            let connection = try RawConnection(port: port)
            try connection.send(request)
            let head = try await connection.head()
            #expect(head.hasPrefix("HTTP/1.1 \(status)"), "\(request.prefix(60)): \(head)")
            for field in ["X-Content-Type-Options: nosniff", "X-Frame-Options: DENY", "Referrer-Policy: no-referrer"] + [header].compactMap(\.self) {
                #expect(head.lowercased().contains(field.lowercased()), "\(request.prefix(60)) lacks \(field): \(head)")
            }
        }
        // An absolute-form target naming this server is served.
        let own = try RawConnection(port: port)
        try own.send("GET http://127.0.0.1:\(port)/tally HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(try await own.statusLine().hasPrefix("HTTP/1.1 200"))
        try await server.stop()
    }

    @Test func anAppsAssetsNeedTheTokenAsAHeaderOrTheCookieItsPageSets() async throws {
        let server = try await TestServer.start(token: "s3cret")
        let port = server.port
        func head(_ path: String, extra: String = "") async throws -> String {
            let connection = try RawConnection(port: port)
            try connection.send(RawConnection.get(path, port: port, extra: extra))
            return try await connection.head()
        }
        #expect(try await head("/tally/assets/note.txt").hasPrefix("HTTP/1.1 401"))
        #expect(try await head("/tally/assets/note.txt", extra: "Cookie: scenesync_token=guess\r\n").hasPrefix("HTTP/1.1 401"))
        #expect(try await head("/tally/assets/note.txt", extra: "Authorization: Bearer s3cret\r\n").hasPrefix("HTTP/1.1 200"))
        // The page stays public (it carries no data) and sets the cookie only for the right token.
        #expect(try await !head("/tally?token=guess").contains("Set-Cookie"))
        let page = try await head("/tally?token=s3cret")
        #expect(page.hasPrefix("HTTP/1.1 200"))
        #expect(page.contains("Set-Cookie: scenesync_token=s3cret; Path=/; HttpOnly; SameSite=Strict"))
        #expect(try await head("/tally/assets/note.txt", extra: "Cookie: theme=dark; scenesync_token=s3cret\r\n").hasPrefix("HTTP/1.1 200"))
        try await server.stop()
    }
}
