import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import HummingbirdTesting
import Logging
import LootLogger
import NIOCore
import Prometheus
import SceneSync
@testable import SceneSyncServer
import SceneSyncServerTesting
import SceneSyncSQLite
import ServiceLifecycle
import Testing

/// `GET /metrics`: what it counts when windows connect and commit and requests are refused, and
/// who may read it. Each server records into a registry of its own, through a factory of its own:
/// nothing is bootstrapped for the process.
@MainActor
@Suite struct MetricsEndpointTests {
    nonisolated static let node = ["node": "test-node"]
    nonisolated static let lootLogger = ["app": "lootlogger", "node": "test-node"]

    @Test func windowsCommitsFanOutRefusalsAndReconnectsAreCounted() async throws {
        let server = try await MetricsServer.start()
        let window = try await WindowClient.connect(port: server.port, app: "lootlogger")
        window.hello()
        try await window.next(.welcome)
        try await window.waitUntil("the first render") { window.view != nil }

        var scrape = try await server.scrape()
        #expect(scrape.types["scenesync_windows_connected"] == "gauge")
        #expect(scrape.value("scenesync_windows_connected", Self.lootLogger) == 1)

        let ref = window.tap(ItemsScreen.NodeID.add)
        try await window.next("the add's ack") { $0 == .ack(ref: ref) }
        scrape = try await server.scrape { $0.value("scenesync_fanout_seconds_count", Self.lootLogger) == 1 }
        #expect(scrape.value("scenesync_fanout_seconds_count", Self.lootLogger) == 1)
        #expect(scrape.types["scenesync_intents_total"] == "counter")
        #expect(scrape.value("scenesync_intents_total", Self.lootLogger) == 1)
        #expect(scrape.types["scenesync_commit_batch_size"] == "histogram")
        #expect(scrape.value("scenesync_commit_batch_size_count", Self.lootLogger) == 1)
        #expect(scrape.value("scenesync_commit_batch_size_bucket", Self.lootLogger.merging(["le": "1.0"]) { $1 }) == 1)
        #expect(scrape.value("scenesync_commit_seconds_count", Self.lootLogger) == 1)
        #expect(scrape.types["scenesync_fanout_seconds"] == "histogram")
        #expect(try #require(scrape.value("scenesync_fanout_seconds_sum", Self.lootLogger)) < 5)
        // A single SQLite node reads nothing from others.
        #expect(scrape.value("scenesync_cross_node_lag_seconds_count", Self.lootLogger) ?? 0 == 0)

        // A request for another host, refused as its head arrives.
        let raw = try RawConnection(port: server.port)
        try raw.send("GET http://evil.example/ HTTP/1.1\r\nHost: evil.example\r\n\r\n")
        #expect(try await raw.statusLine().hasPrefix("HTTP/1.1 421"))
        scrape = try await server.scrape { $0.value("scenesync_refusals_total", ["reason": "misdirectedRequests"]) != nil }
        #expect(scrape.value("scenesync_refusals_total", ["reason": "misdirectedRequests", "node": "test-node"]) == 1)

        // Closed, then back with its session.
        try await window.close()
        try await server.scrape { $0.value("scenesync_windows_connected", Self.lootLogger) == 0 }
        let again = try await window.reconnect()
        try await again.next(.welcome)
        #expect(again.session == window.session)
        scrape = try await server.scrape { $0.value("scenesync_window_reconnects_total", Self.lootLogger) == 1 }
        #expect(scrape.value("scenesync_window_reconnects_total", Self.lootLogger) == 1)
        #expect(scrape.value("scenesync_windows_connected", Self.lootLogger) == 1)
        #expect(scrape.value("scenesync_connections_open", Self.node) ?? 0 >= 2)
        #expect(scrape.value("scenesync_outbound_queued_bytes", Self.node) != nil)
        try await server.stop()
    }

    @Test func aRelayedRequestIsRefusedWithoutTheToken() async throws {
        let server = try await MetricsServer.start()
        let plain = try await server.get("/metrics")
        #expect(plain.status == .ok)
        #expect(plain.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
        // nginx on this machine connects from loopback on behalf of anyone.
        for (name, value) in [("X-Forwarded-For", "203.0.113.9"), ("Forwarded", "for=203.0.113.9"), ("X-Real-IP", "203.0.113.9")] {
            let relayed = try await server.get("/metrics", headers: [HTTPField.Name(name)!: value])
            #expect(relayed.status == .forbidden, "\(name)")
            #expect(relayed.headers[.contentType] == "application/json; charset=utf-8")
            #expect(relayed.text.hasPrefix(#"{"error":"forbidden","reason":"#))
        }
        // Without a token on the server, a bearer opens nothing.
        let bearer = try await server.get("/metrics", headers: [.authorization: "Bearer anything", Self.forwardedFor: "203.0.113.9"])
        #expect(bearer.status == .forbidden)
        try await server.stop()
    }

    @Test func withATokenARelayedRequestNeedsTheBearer() async throws {
        let server = try await MetricsServer.start(token: "s3cret-token")
        #expect(try await server.get("/metrics").status == .ok)
        let missing = try await server.get("/metrics", headers: [Self.forwardedFor: "203.0.113.9"])
        #expect(missing.status == .unauthorized)
        #expect(missing.text == #"{"error":"unauthorized","reason":"this server needs its access token as Authorization: Bearer"}"#)
        let wrong = try await server.get("/metrics", headers: [Self.forwardedFor: "203.0.113.9", .authorization: "Bearer s3cret-tokem"])
        #expect(wrong.status == .unauthorized)
        let right = try await server.get("/metrics", headers: [Self.forwardedFor: "203.0.113.9", .authorization: "Bearer s3cret-token"])
        #expect(right.status == .ok)
        #expect(right.text.contains("scenesync_"))
        try await server.stop()
    }

    @Test(.enabled(if: MetricsServer.networkAddress != nil, "this machine has an IPv4 address beyond loopback"))
    func aClientBeyondLoopbackNeedsTheBearer() async throws {
        let address = try #require(MetricsServer.networkAddress)
        let server = try await MetricsServer.start(host: "0.0.0.0", token: "s3cret-token", allowedHosts: [address, "127.0.0.1"])
        let authority = "\(address):\(server.port)"
        let missing = try await server.get("/metrics", from: address, authority: authority)
        #expect(missing.status == .unauthorized)
        let wrong = try await server.get("/metrics", from: address, authority: authority, headers: [.authorization: "Bearer nope"])
        #expect(wrong.status == .unauthorized)
        let right = try await server.get("/metrics", from: address, authority: authority, headers: [.authorization: "Bearer s3cret-token"])
        #expect(right.status == .ok)
        #expect(try await server.get("/metrics").status == .ok)
        try await server.stop()
    }

    @Test func theDecisionIsTheTCPPeers() throws {
        let open = AccessPolicy(host: "127.0.0.1", allowedHosts: [], token: nil)
        let guarded = AccessPolicy(host: "0.0.0.0", allowedHosts: [], token: "s3cret")
        let bare = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/metrics")
        var bearer = bare
        bearer.headerFields[.authorization] = "Bearer s3cret"
        var relayed = bare
        relayed.headerFields[Self.forwardedFor] = "127.0.0.1"
        for loopback in ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"] {
            let peer = try SocketAddress(ipAddress: loopback, port: 40_000)
            #expect(MetricsAccess.decide(peer: peer, request: bare, policy: open) == .allowed, "\(loopback)")
            #expect(MetricsAccess.decide(peer: peer, request: bare, policy: guarded) == .allowed, "\(loopback)")
            #expect(MetricsAccess.decide(peer: peer, request: relayed, policy: open) == .forbidden, "\(loopback)")
            #expect(MetricsAccess.decide(peer: peer, request: relayed, policy: guarded) == .unauthorized, "\(loopback)")
        }
        for remote in ["192.0.2.10", "10.0.0.1", "128.0.0.1", "::ffff:10.0.0.1", "2001:db8::1", "::2"] {
            let peer = try SocketAddress(ipAddress: remote, port: 40_000)
            #expect(MetricsAccess.decide(peer: peer, request: bare, policy: open) == .forbidden, "\(remote)")
            #expect(MetricsAccess.decide(peer: peer, request: bare, policy: guarded) == .unauthorized, "\(remote)")
            #expect(MetricsAccess.decide(peer: peer, request: bearer, policy: guarded) == .allowed, "\(remote)")
            #expect(MetricsAccess.decide(peer: peer, request: bearer, policy: open) == .forbidden, "\(remote)")
        }
        #expect(MetricsAccess.decide(peer: nil, request: bare, policy: open) == .forbidden)
    }

    @Test func serversInOneProcessKeepTheirOwnRegistriesAndNoneServesWithoutOne() async throws {
        let one = try await MetricsServer.start(metrics: .prometheus(node: "one"))
        let two = try await MetricsServer.start(metrics: .prometheus(node: "two"))
        let none = try await MetricsServer.start(metrics: nil)
        let window = try await WindowClient.connect(port: one.port, app: "lootlogger")
        window.hello()
        try await window.next(.welcome)
        let first = try await one.scrape { $0.value("scenesync_windows_connected", ["app": "lootlogger"]) == 1 }
        #expect(first.samples.allSatisfy { $0.labels["node"] == "one" })
        let second = try await two.scrape()
        #expect(second.samples.allSatisfy { $0.labels["node"] == "two" })
        #expect(second.value("scenesync_windows_connected", ["app": "lootlogger"]) ?? 0 == 0)
        #expect(try await none.get("/metrics").status == .notFound)
        for server in [one, two, none] { try await server.stop() }
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}

/// A real server hosting LootLogger on a free port, with its metrics in a registry of its own.
final class MetricsServer: Sendable {
    let port: Int
    let directory: URL
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(port: Int, directory: URL, group: ServiceGroup, running: Task<Void, any Error>) {
        self.port = port
        self.directory = directory
        self.group = group
        self.running = running
    }

    static func start(
        host: String = "127.0.0.1", token: String? = nil, allowedHosts: [String] = [],
        metrics: SceneSyncServer.MetricsOptions? = .prometheus(node: "test-node")
    ) async throws -> MetricsServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenesync-metrics-tests-\(UUID().uuidString)")
        var logger = Logger(label: "scenesync.tests")
        logger.logLevel = .warning
        var configuration = SceneSyncServer.Configuration(host: host, port: 0, token: token, allowedHosts: allowedHosts, logger: logger)
        if let metrics { configuration.metrics = metrics }
        let apps = [HostedApp(name: "lootlogger", title: "LootLogger", summary: "An inventory.") { LootLoggerAppDelegate(logger: $0) }]
        let server = try SceneSyncServer(configuration: configuration, apps: apps) { app, logger in
            try SQLiteStorage(path: directory.appendingPathComponent("\(app.name).sqlite").path, logger: logger)
        }
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let running = Task { try await group.run() }
        let port = try await server.waitUntilRunning()
        return MetricsServer(port: port, directory: directory, group: group, running: running)
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
        try? FileManager.default.removeItem(at: directory)
    }

    /// A GET request to the server at `address`, naming `authority`.
    func get(_ uri: String, from address: String = "127.0.0.1", authority: String? = nil, headers: HTTPFields = [:]) async throws -> TestClient.Response {
        try await TestClient.withClient(host: address, port: port) { client in
            try await client.execute(TestClient.Request(uri, method: .get, authority: authority ?? "\(address):\(self.port)", headers: headers))
        }
    }

    /// `/metrics`, read from loopback, once `condition` holds of it; an issue if it does not
    /// within ten seconds.
    @discardableResult
    func scrape(until condition: @Sendable (Scrape) -> Bool = { _ in true },
                sourceLocation: SourceLocation = #_sourceLocation) async throws -> Scrape {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let response = try await get("/metrics")
            try #require(response.status == .ok, sourceLocation: sourceLocation)
            let scrape = try Scrape(response.text)
            if condition(scrape) { return scrape }
            guard ContinuousClock.now < deadline else {
                Issue.record("The scrape never showed what was waited for", sourceLocation: sourceLocation)
                return scrape
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// This machine's first IPv4 address beyond loopback, if it has one.
    static let networkAddress: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            let ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { String(cString: inet_ntoa($0.pointee.sin_addr)) }
            if !ip.hasPrefix("127.") { return ip }
        }
        return nil
    }()
}

/// A scrape in Prometheus' text format: its samples and the types its `# TYPE` lines declare.
struct Scrape: Sendable {
    struct Sample: Sendable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    struct Malformed: Error {
        let line: String
    }

    let samples: [Sample]
    let types: [String: String]

    init(_ text: String) throws {
        var samples: [Sample] = []
        var types: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.isEmpty {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
                continue
            }
            if line.hasPrefix("#") { continue }
            samples.append(try Self.sample(line))
        }
        self.samples = samples
        self.types = types
    }

    /// The value of the sample named `name` whose labels include `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
    }

    /// `name{label="value",…} 1.5`, label values with `\\`, `\"` and `\n` escaped.
    private static func sample(_ line: Substring) throws -> Sample {
        var rest = line[...]
        let name = rest.prefix { $0 != "{" && $0 != " " }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = rest.prefix { $0 != "=" }
                rest = rest.dropFirst(key.count)
                guard rest.hasPrefix("=\"") else { throw Malformed(line: String(line)) }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    guard character == "\\" else { value.append(character); continue }
                    guard let escaped = rest.first else { throw Malformed(line: String(line)) }
                    rest = rest.dropFirst()
                    value.append(escaped == "n" ? "\n" : escaped)
                }
                guard !rest.isEmpty else { throw Malformed(line: String(line)) }
                rest = rest.dropFirst()
                labels[String(key)] = value
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard let value = Double(rest.trimmingCharacters(in: .whitespaces)) else { throw Malformed(line: String(line)) }
        return Sample(name: String(name), labels: labels, value: value)
    }
}
