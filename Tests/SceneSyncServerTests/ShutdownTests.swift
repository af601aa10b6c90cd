import InMemoryLogging
import Logging
import NIOCore
import NIOPosix
import SceneSync
import SceneSyncServerTesting
@testable import SceneSyncServer
import Testing

/// Graceful shutdown: what holds it up and what must not.
@MainActor
@Suite struct ShutdownTests {
    /// Browsers open spare connections before they need them.
    @Test(.timeLimit(.minutes(1)))
    func aConnectionThatNeverSentARequestDoesNotHoldUpTheShutdown() async throws {
        let (log, logger) = capturedLog(.notice)
        let server = try await TestServer.start(connectionDrainTimeout: .seconds(10), logger: logger)
        let spare = try await Self.connect(port: server.port)
        let window = try await server.openWindow()
        #expect(window.session != nil)

        try await server.stop()
        try await spare.closeFuture.get()
        #expect(!spare.isActive)
        // Closed when the shutdown began, not dropped at the drain timeout.
        #expect(!log.entries.contains { "\($0.message)".hasPrefix(Self.dropNotice) })
    }

    @Test(.timeLimit(.minutes(1)))
    func aRequestNeverFinishedIsDroppedAfterTheDrainTimeout() async throws {
        let (log, logger) = capturedLog(.notice)
        let server = try await TestServer.start(connectionDrainTimeout: .milliseconds(500), logger: logger)
        let stuck = try await Self.connect(port: server.port)
        // Half a request head: no HTTP handler is in place yet to answer the shutdown.
        try await stuck.writeAndFlush(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n")).get()
        try await Task.sleep(for: .seconds(1))  // for the server to read it

        try await server.stop()
        try await stuck.closeFuture.get()
        #expect(!stuck.isActive)
        #expect(log.entries.contains { "\($0.message)".hasPrefix(Self.dropNotice) })
    }

    @Test func aStoppedServerSaysItIsNotRunning() async throws {
        let server = try await TestServer.start()
        #expect(server.server.port == server.port)
        try await server.stop()
        #expect(server.server.port == nil)
        await #expect(throws: SceneSyncServerError.notRunning) { _ = try await server.server.waitUntilRunning() }
    }

    @Test func aWindowClosedAsTheServerStopsIsDiscardedAtTheNextLaunch() async throws {
        let first = try await TestServer.start(closingGracePeriod: .seconds(60))
        let window = try await first.openWindow()
        let session = try #require(window.session.flatMap(SceneSession.ID.init))
        // The server may see the socket close before it has read `closing`; it must still count it.
        window.sayClosing()
        try await window.close()
        try await first.stop(removingData: false)

        let second = try await TestServer.start(directory: first.directory)
        #expect(second.delegates.tally?.discarded == [session])
        try await second.stop()
    }

    private static let dropNotice = "Closing HTTP connections still open"


    private static func connect(port: Int) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
    }
}
