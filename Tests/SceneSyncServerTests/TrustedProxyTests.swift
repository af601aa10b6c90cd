#if os(Linux)
import Foundation
import HTTPTypes
import Logging
import NIOCore
@testable import SceneSyncServer
import SceneSyncSQLite
import ServiceLifecycle
import Testing

/// A server behind a proxy: it answers to the proxy's `host:port`, does not count the proxy as one
/// client, and takes the client's address from the proxy's `X-Forwarded-For`, but from no one else.
/// Linux answers on every 127.x.y.z address: 127.0.0.1 plays the trusted proxy, 127.0.0.2 a client
/// that connects directly and writes its own `X-Forwarded-For`.
@Suite struct TrustedProxyTests {
    /// The port browsers use to reach the proxy; nothing listens on it in these tests.
    static let proxyPort = 65_080

    @Test func allowedHostsTakeAPortAsTheyAreAndABareNameWithTheServers() {
        let policy = AccessPolicy(host: "0.0.0.0", allowedHosts: [
            "127.0.0.1:8080", "Example.Local", "[::1]:9000", "proxy.example:80", "[fd00::7]", "fd00::8",
        ], token: "t")
        let authorities = policy.authorities(port: 8081)
        for expected in ["127.0.0.1:8080", "example.local:8081", "[::1]:9000", "proxy.example:80", "proxy.example",
                         "[fd00::7]:8081", "[fd00::8]:8081", "0.0.0.0:8081"] {
            #expect(authorities.contains(expected), "\(expected)")
        }
        for refused in ["127.0.0.1:8081", "example.local:8080", "[::1]:8081", "proxy.example:8081", "example.local"] {
            #expect(!authorities.contains(refused), "\(refused)")
        }
        for valid in ["a", "a:1", "[::1]", "[::1]:65535", "::1", "host-1.example:8080"] {
            #expect(SceneSyncServer.isValid(allowedHost: valid), "\(valid)")
        }
        for invalid in ["", ":8080", "a:0", "a:65536", "a:", "a:x", "[::1", "[::1]x", "[]:80", "a b", "a/b:80", "a@b"] {
            #expect(!SceneSyncServer.isValid(allowedHost: invalid), "\(invalid)")
        }
    }

    @Test func theClientIsTheLastForwardedAddressOfATrustedProxyOnly() throws {
        let clients = ClientAddress(trustedProxies: ["127.0.0.1", "[::1]", "not an address"])
        #expect(clients.trustedProxies == ["127.0.0.1", "::1"])
        let proxy = try SocketAddress(ipAddress: "127.0.0.1", port: 40_000)
        let other = try SocketAddress(ipAddress: "127.0.0.2", port: 40_000)
        func forwarded(_ values: String...) -> HTTPFields {
            HTTPFields(values.map { HTTPField(name: ClientAddress.forwardedFor, value: $0) })
        }
        #expect(clients.client(peer: proxy, headers: forwarded("10.0.0.1")) == "10.0.0.1")
        #expect(clients.client(peer: proxy, headers: forwarded("6.6.6.6, 10.0.0.1")) == "10.0.0.1")
        #expect(clients.client(peer: proxy, headers: forwarded("6.6.6.6", "10.0.0.2")) == "10.0.0.2")
        #expect(clients.client(peer: proxy, headers: forwarded("2001:DB8::1")) == "2001:db8::1")
        #expect(clients.client(peer: proxy, headers: [:]) == "127.0.0.1")
        for malformed in ["", "10.0.0.1,", "10.0.0.1, nonsense", "10.0.0", "unknown", "10.0.0.1:443", "10.0.0.1 10.0.0.2"] {
            #expect(clients.client(peer: proxy, headers: forwarded(malformed)) == "127.0.0.1", "\(malformed)")
        }
        #expect(clients.client(peer: other, headers: forwarded("10.0.0.1")) == "127.0.0.2")
        #expect(ClientAddress(trustedProxies: []).client(peer: proxy, headers: forwarded("10.0.0.1")) == "127.0.0.1")
    }

    @Test func theProxysHostIsAcceptedAndOthersAreRefused() async throws {
        let server = try await ProxiedServer.start()
        func status(host: String, origin: String? = nil, path: String = "/") async throws -> String {
            let connection = try RawConnection(port: server.port)
            try connection.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n")
            return try await connection.statusLine()
        }
        let proxy = "127.0.0.1:\(Self.proxyPort)"
        #expect(try await status(host: proxy).hasPrefix("HTTP/1.1 200"))
        #expect(try await status(host: "localhost:\(Self.proxyPort)").hasPrefix("HTTP/1.1 200"))
        #expect(try await status(host: "127.0.0.1:\(server.port)").hasPrefix("HTTP/1.1 200"))
        #expect(try await status(host: "127.0.0.1:\(Self.proxyPort + 1)").hasPrefix("HTTP/1.1 421"))
        #expect(try await status(host: "evil.example:\(Self.proxyPort)").hasPrefix("HTTP/1.1 421"))
        // A window of the proxy's page may connect; one of another origin may not.
        #expect(try await ProxiedServer.upgrade(server.port, host: proxy, origin: "http://\(proxy)") != nil)
        #expect(try await ProxiedServer.upgrade(server.port, host: proxy, origin: "http://evil.example:\(Self.proxyPort)") == nil)
        try await server.stop()
    }

    @Test func aTrustedProxyIsNotHeldToTheConnectionLimitPerAddress() async throws {
        let server = try await ProxiedServer.start(connectionLimits: .init(maximumConnections: 20, maximumConnectionsPerAddress: 2))
        func hold(from address: String) async throws -> (RawConnection, String) {
            let connection = try RawConnection(port: server.port, from: address)
            try connection.send(RawConnection.get("/", port: server.port, extra: "Connection: keep-alive\r\n"))
            return (connection, try await connection.statusLine())
        }
        var held: [RawConnection] = []
        for _ in 0..<5 {
            let (connection, status) = try await hold(from: "127.0.0.1")
            #expect(status.hasPrefix("HTTP/1.1 200"), "the proxy's connection \(held.count + 1): \(status)")
            held.append(connection)
        }
        for number in 1...3 {
            let (connection, status) = try await hold(from: "127.0.0.2")
            #expect(status.hasPrefix(number <= 2 ? "HTTP/1.1 200" : "HTTP/1.1 503"), "a client's connection \(number): \(status)")
            held.append(connection)
        }
        held.removeAll()
        try await server.stop()
    }

    @Test func widgetFollowersAreCountedPerForwardedClient() async throws {
        let server = try await ProxiedServer.start(maximumWidgetFollowersPerAddress: 1)
        var held: [RawConnection] = []
        func follow(from address: String, forwardedFor: String?) async throws -> String {
            let connection = try RawConnection(port: server.port, from: address)
            try connection.send(RawConnection.get("/tally/widget/events", port: server.port,
                                                  extra: forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? ""))
            held.append(connection)
            return try await connection.statusLine()
        }
        // Through the proxy: one follower per forwarded client, whatever the client wrote before it.
        #expect(try await follow(from: "127.0.0.1", forwardedFor: "10.0.0.1").hasPrefix("HTTP/1.1 200"))
        #expect(try await follow(from: "127.0.0.1", forwardedFor: "10.0.0.2").hasPrefix("HTTP/1.1 200"))
        #expect(try await follow(from: "127.0.0.1", forwardedFor: "10.0.0.3, 10.0.0.1").hasPrefix("HTTP/1.1 503"))
        // Without a valid address, the client is the proxy itself.
        #expect(try await follow(from: "127.0.0.1", forwardedFor: nil).hasPrefix("HTTP/1.1 200"))
        #expect(try await follow(from: "127.0.0.1", forwardedFor: "not-an-address").hasPrefix("HTTP/1.1 503"))
        // A peer that is not a trusted proxy is itself, whatever it writes.
        #expect(try await follow(from: "127.0.0.2", forwardedFor: "10.0.0.4").hasPrefix("HTTP/1.1 200"))
        #expect(try await follow(from: "127.0.0.2", forwardedFor: "10.0.0.5").hasPrefix("HTTP/1.1 503"))
        held.removeAll()
        try await server.stop()
    }

    @Test func windowsAreCountedPerForwardedClient() async throws {
        let server = try await ProxiedServer.start(maximumSessionsPerAddress: 1)
        let proxy = "127.0.0.1:\(Self.proxyPort)"
        var held: [RawConnection] = []
        func open(from address: String, forwardedFor: String) async throws -> String {
            let connection = try #require(try await ProxiedServer.upgrade(
                server.port, from: address, host: proxy, origin: "http://\(proxy)", forwardedFor: forwardedFor))
            held.append(connection)
            try ProxiedServer.sendText(#"{"type":"hello","v":1,"visible":true,"focused":true}"#, on: connection)
            return try await ProxiedServer.verdict(connection)
        }
        #expect(try await open(from: "127.0.0.1", forwardedFor: "10.0.0.1") == "welcome")
        #expect(try await open(from: "127.0.0.1", forwardedFor: "10.0.0.2") == "welcome")
        #expect(try await open(from: "127.0.0.1", forwardedFor: "10.0.0.1") == "close 1008")
        #expect(try await open(from: "127.0.0.2", forwardedFor: "10.0.0.3") == "welcome")
        #expect(try await open(from: "127.0.0.2", forwardedFor: "10.0.0.4") == "close 1008")
        held.removeAll()
        try await server.stop()
    }
}

/// A server that trusts 127.0.0.1 as its proxy and answers to the proxy's authority, with Tally.
final class ProxiedServer: Sendable {
    let port: Int
    private let directory: URL
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(port: Int, directory: URL, group: ServiceGroup, running: Task<Void, any Error>) {
        self.port = port
        self.directory = directory
        self.group = group
        self.running = running
    }

    static func start(connectionLimits: SceneSyncServer.ConnectionLimits = .init(), maximumSessionsPerAddress: Int = 2_048,
                      maximumWidgetFollowersPerAddress: Int = 16) async throws -> ProxiedServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenesync-proxy-tests-\(UUID().uuidString)")
        var logger = Logger(label: "scenesync.tests")
        logger.logLevel = .warning
        let journal = ShutdownJournal()
        let apps = [
            HostedApp(name: TallyAppDelegate.app, title: "Tally", summary: "Lines.", makeDelegate: { TallyAppDelegate(logger: $0) },
                      parts: { try TallyParts.make($0, $1, journal: journal) }),
        ]
        let proxy = TrustedProxyTests.proxyPort
        let server = try SceneSyncServer(
            configuration: .init(port: 0, allowedHosts: ["127.0.0.1:\(proxy)", "localhost:\(proxy)"], trustedProxies: ["127.0.0.1"],
                                 maximumSessionsPerAddress: maximumSessionsPerAddress,
                                 maximumWidgetFollowersPerAddress: maximumWidgetFollowersPerAddress,
                                 connectionLimits: connectionLimits, logger: logger),
            apps: apps
        ) { app, logger in
            try SQLiteStorage(path: directory.appendingPathComponent("\(app.name).sqlite").path, logger: logger)
        }
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let running = Task { try await group.run() }
        let port = try await server.waitUntilRunning()
        return ProxiedServer(port: port, directory: directory, group: group, running: running)
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
        try? FileManager.default.removeItem(at: directory)
    }

    /// A connection upgraded to Tally's WebSocket, or `nil` if the server refused the upgrade.
    static func upgrade(_ port: Int, from address: String = "127.0.0.1", host: String, origin: String,
                        forwardedFor: String? = nil) async throws -> RawConnection? {
        let connection = try RawConnection(port: port, from: address)
        try connection.send("GET /ws/\(TallyAppDelegate.app) HTTP/1.1\r\nHost: \(host)\r\nOrigin: \(origin)\r\n"
            + (forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? "")
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\n\r\n")
        return try await connection.statusLine().hasPrefix("HTTP/1.1 101") ? connection : nil
    }

    /// Sends one masked text frame.
    static func sendText(_ text: String, on connection: RawConnection) throws {
        let payload = Array(text.utf8)
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try connection.send(frame)
    }

    /// `welcome` if the server's first answer to hello is a welcome, `close <code>` if it closes.
    static func verdict(_ connection: RawConnection) async throws -> String {
        while true {
            let frame = try await connection.read(until: RawWebSocket.wholeFrame)
            let offset = frame[1] & 0x7F == 127 ? 10 : frame[1] & 0x7F == 126 ? 4 : 2
            switch frame[0] & 0x0F {
            case 0x1 where String(decoding: frame[offset...], as: UTF8.self).contains(#""type":"welcome""#):
                return "welcome"
            case 0x8:
                return frame.count >= offset + 2 ? "close \(Int(frame[offset]) << 8 | Int(frame[offset + 1]))" : "close"
            default:
                continue
            }
        }
    }
}
#endif
