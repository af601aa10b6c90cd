import Foundation
import InMemoryLogging
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
@testable import SceneSyncServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What one connection, and one client address, may make the server hold before a request is
/// read: each limit answered with a plain HTTP refusal, and the connection closed.
@Suite struct ConnectionLimitTests {
    @Test func aConnectionOverTheServersLimitIsAnswered503AndTheServerStillServes() async throws {
        let (log, logger) = capturedLog(.warning)
        let server = try await TestServer.start(connectionLimits: .init(maximumConnections: 3), logger: logger)
        // Each held connection asks once, so it is surely counted before the next one comes. Each
        // comes from an address of its own: one address may hold at most half of the connections.
        var held: [RawConnection] = []
        for address in ["127.0.0.1", "127.0.0.2", "127.0.0.3"] {
            let connection = try RawConnection(port: server.port, from: address)
            try connection.send(RawConnection.get("/", port: server.port))
            #expect(try await connection.statusLine() == "HTTP/1.1 200 OK")
            held.append(connection)
        }
        let extra = try RawConnection(port: server.port, from: "127.0.0.4")
        let head = try await extra.head()
        #expect(head.hasPrefix("HTTP/1.1 503 Service Unavailable"))
        #expect(head.contains("Retry-After: 1"))
        #expect(try await extra.isClosedByServer(within: .seconds(5)))
        #expect(log.entries.contains { $0.level == .warning && "\($0.message)".contains("over the server's limits") })

        held.removeFirst()
        var served = false
        let started = ContinuousClock.now
        while !served, ContinuousClock.now - started < .seconds(10) {
            let connection = try RawConnection(port: server.port, from: "127.0.0.4")
            try? connection.send(RawConnection.get("/", port: server.port))
            served = (try? await connection.statusLine(timeout: .seconds(2))) == "HTTP/1.1 200 OK"
        }
        #expect(served, "a closed connection makes room")
        try await server.stop()
    }

    @Test func oneAddressCannotTakeEveryConnection() async throws {
        let server = try await TestServer.start(connectionLimits: .init(maximumConnectionsPerAddress: 2))
        var held: [RawConnection] = []
        for _ in 0..<2 {
            let connection = try RawConnection(port: server.port, from: "127.0.0.1")
            try connection.send(RawConnection.get("/", port: server.port))
            #expect(try await connection.statusLine() == "HTTP/1.1 200 OK")
            held.append(connection)
        }
        let third = try RawConnection(port: server.port, from: "127.0.0.1")
        #expect(try await third.statusLine() == "HTTP/1.1 503 Service Unavailable")
        let elsewhere = try RawConnection(port: server.port, from: "127.0.0.2")
        try elsewhere.send(RawConnection.get("/", port: server.port))
        #expect(try await elsewhere.statusLine() == "HTTP/1.1 200 OK")
        try await server.stop()
    }

    @Test func aConnectionThatSendsNothingIsClosedSilently() async throws {
        let server = try await TestServer.start(connectionLimits: .init(requestHeadTimeout: .milliseconds(300)))
        let connection = try RawConnection(port: server.port)
        await #expect(throws: RawConnectionError.closed(bytes: 0)) {
            try await connection.read(timeout: .seconds(10)) { _ in nil }
        }
        try await server.stop()
    }

    @Test func aHeadSentOneLineAtATimeIsAnswered408() async throws {
        let server = try await TestServer.start(connectionLimits: .init(requestHeadTimeout: .seconds(1)))
        let connection = try RawConnection(port: server.port)
        try connection.send("GET / HTTP/1.1\r\n")
        let started = ContinuousClock.now
        var status: String?
        // A line every 200 ms: always something new, never the end of the head.
        while status == nil, ContinuousClock.now - started < .seconds(10) {
            try? connection.send("X-Slow: \(Int.random(in: 0..<1000))\r\n")
            status = try? await connection.statusLine(timeout: .milliseconds(200))
        }
        #expect(status == "HTTP/1.1 408 Request Timeout")
        #expect(try await connection.statusLinesUntilClosed() == [], "one answer, then the connection closes")
        try await server.stop()
    }

    @Test(arguments: OversizedHead.allCases)
    func anOversizedHeadIsRefusedAndClosed(_ head: OversizedHead) async throws {
        let server = try await TestServer.start()
        let connection = try RawConnection(port: server.port)
        // The server may answer and close before all of it is sent.
        try? connection.send(head.bytes(port: server.port))
        #expect(try await connection.statusLinesUntilClosed() == [head.status], "one answer, then the connection closes")
        try await server.stop()
    }

    @Test func aLaterRequestOverTheLimitsIsRefusedToo() async throws {
        let server = try await TestServer.start(connectionLimits: .init(maximumHeaderCount: 20))
        let connection = try RawConnection(port: server.port)
        try connection.send(RawConnection.get("/", port: server.port))
        #expect(try await connection.statusLine() == "HTTP/1.1 200 OK")
        _ = try await connection.read { bytes in bytes.isEmpty ? nil : bytes.count }
        try connection.send(RawConnection.get("/", port: server.port, extra: String(repeating: "X-Many: 1\r\n", count: 30)))
        let status = try await connection.read { bytes in
            bytes.firstRange(of: Array("HTTP/1.1 400".utf8)).map(\.upperBound)
        }
        #expect(!status.isEmpty)
        #expect(try await connection.isClosedByServer(within: .seconds(5)))
        try await server.stop()
    }

    @Test func aBodySentAByteAtATimeIsCutOffAtItsDeadline() async throws {
        let server = try await TestServer.start(connectionLimits: .init(requestBodyTimeout: .milliseconds(500)))
        let connection = try RawConnection(port: server.port)
        try connection.send("POST / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
        let started = ContinuousClock.now
        var closed = false
        while !closed, ContinuousClock.now - started < .seconds(10) {
            try? connection.send("x")
            closed = try await connection.isClosedByServer(within: .milliseconds(100))
        }
        #expect(closed)
        #expect(ContinuousClock.now - started < .seconds(5))
        try await server.stop()
    }

    @Test func aConnectionQuietBetweenRequestsIsClosedAfterTheIdleTimeout() async throws {
        let server = try await TestServer.start(connectionLimits: .init(idleTimeout: .milliseconds(500)))
        let connection = try RawConnection(port: server.port)
        try connection.send(RawConnection.get("/", port: server.port))
        #expect(try await connection.statusLine() == "HTTP/1.1 200 OK")
        // Half a head, then nothing.
        try connection.send("GET / HTTP/1.1\r\n")
        #expect(try await connection.isClosedByServer(within: .seconds(10)))
        try await server.stop()
    }

    @Test func runningOutOfDescriptorsLowersTheLimitToTheConnectionsOpenAndSaysSo() async throws {
        let (log, logger) = capturedLog(.warning)
        let admission = ConnectionAdmission(maximumTotal: 100, maximumPerAddress: 100)
        // Two connections open, when the process runs out of descriptors.
        let channels = try await Self.acceptedChannels(count: 2, admission: admission)

        let listener = EmbeddedChannel(handler: DescriptorReserve(admission: admission, logger: logger))
        listener.pipeline.fireErrorCaught(IOError(errnoCode: EMFILE, reason: "accept"))
        #expect(admission.maximumTotal == 2, "no more connections than those open")
        listener.pipeline.fireErrorCaught(IOError(errnoCode: EMFILE, reason: "accept"))
        #expect(log.entries.filter { $0.level == .warning && "\($0.message)".contains("Out of file descriptors") }.count == 1,
                "said once, not once per failed accept")
        _ = try? listener.finish()
        for channel in channels { try await channel.close() }
    }

    /// Client channels counted in by `admission`, as the server counts the connections it accepts.
    private static func acceptedChannels(count: Int, admission: ConnectionAdmission) async throws -> [any Channel] {
        var channels: [any Channel] = []
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                _ = admission.admit(channel)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        for _ in 0..<count {
            channels.append(try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: listener.localAddress!.port!).get())
        }
        let started = ContinuousClock.now
        while admission.count().total < count, ContinuousClock.now - started < .seconds(5) {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await listener.close()
        return channels
    }


}

/// Request heads past the default limits, and the refusal each gets.
enum OversizedHead: CaseIterable, Sendable, CustomTestStringConvertible {
    case hugeField, manyFields, longURL, unreadable

    func bytes(port: Int) -> [UInt8] {
        switch self {
        case .hugeField: Array(RawConnection.get("/", port: port, extra: "X-Big: \(String(repeating: "a", count: 100_000))\r\n").utf8)
        case .manyFields: Array(RawConnection.get("/", port: port, extra: String(repeating: "a: b\r\n", count: 10_000)).utf8)
        case .longURL: Array(RawConnection.get("/\(String(repeating: "a", count: 1_000_000))", port: port).utf8)
        case .unreadable: Array("GARBAGE\r\n\r\n".utf8)
        }
    }

    var status: String {
        switch self {
        case .hugeField, .manyFields: "HTTP/1.1 431 Request Header Fields Too Large"
        case .longURL: "HTTP/1.1 414 URI Too Long"
        case .unreadable: "HTTP/1.1 400 Bad Request"
        }
    }

    var testDescription: String { "\(self)" }
}
