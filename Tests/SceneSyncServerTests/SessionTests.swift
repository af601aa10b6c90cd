import SceneSync
import SceneSyncServerTesting
import SceneSyncTesting
@testable import SceneSyncServer
import Testing

/// Sessions across reloads, duplicated tabs and closed windows.
@MainActor
@Suite struct SessionTests {
    @Test func aReconnectingWindowKeepsItsSessionAndResumes() async throws {
        let server = try await TestServer.start()
        let window = try await server.openWindow()
        let session = try #require(window.session)
        try await window.close()
        // A reconnect comes after the server has seen the socket close: until then the session's
        // window is still connected, and a second window asking for it gets one of its own.
        let runtime = try #require(server.server.runtime(named: TallyAppDelegate.app))
        try await window.waitUntil("the scene to disconnect") { runtime.application.connectedScenes.isEmpty }

        let again = try await window.reconnect()
        guard case let .welcome(welcomed, _, _, _) = try await again.next(.welcome) else { Issue.record("no welcome"); return }
        #expect(welcomed == session)
        try await again.next(.resumed)
        #expect(again.view == nil)
        try await server.stop()
    }

    /// Windows closing together on one screen in one state share one encoding of their resume
    /// point, and every one of them resumes from it.
    @Test func windowsClosingTogetherShareTheirResumePointsEncodingAndEachResumes() async throws {
        let server = try await TestServer.start()
        let runtime = try #require(server.server.runtime(named: TallyAppDelegate.app))
        var windows: [WindowClient] = []
        for _ in 0..<4 { windows.append(try await server.openWindow()) }
        let (renders, reuses) = (runtime.encoder.renderEncodings, runtime.encoder.renderReuses)
        for window in windows { try await window.close() }
        try await windows[0].waitUntil("the scenes to disconnect") { runtime.application.connectedScenes.isEmpty }
        #expect(runtime.encoder.renderEncodings <= renders + 1)
        #expect(runtime.encoder.renderReuses >= reuses + 3)
        for window in windows {
            let again = try await window.reconnect()
            try await again.next(.resumed)
            #expect(again.view == nil)
        }
        try await server.stop()
    }

    @Test func twoWindowsWithOneSessionGetTwoSessions() async throws {
        let server = try await TestServer.start()
        let original = try await server.openWindow()
        let duplicate = try await server.openWindow(session: original.session)
        #expect(duplicate.session != nil)
        #expect(duplicate.session != original.session)
        try await server.stop()
    }

    @Test func anUnknownOrInvalidSessionGetsANewOne() async throws {
        let server = try await TestServer.start()
        let unknown = try await server.openWindow(session: SceneSession.ID().rawValue)
        let invalid = try await server.openWindow(session: "not-a-session")
        #expect(unknown.session.flatMap(SceneSession.ID.init) != nil)
        #expect(invalid.session.flatMap(SceneSession.ID.init) != nil)
        try await server.stop()
    }

    @Test func aClosedWindowsSessionIsDiscardedAfterTheGracePeriod() async throws {
        let clock = ManualClock()
        let server = try await TestServer.start(closingGracePeriod: .seconds(5), clock: clock)
        let window = try await server.openWindow()
        let session = try #require(window.session.flatMap(SceneSession.ID.init))
        window.sayClosing()
        try await window.close()
        try await window.waitUntil("the discard to be scheduled") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        #expect(server.delegates.tally?.discarded.isEmpty == true)
        clock.advance(by: .seconds(1))
        try await window.waitUntil("the session to be discarded") {
            server.delegates.tally?.discarded.contains(session) == true
        }
        let reopened = try await server.openWindow(session: session.rawValue)
        #expect(reopened.session != session.rawValue)
        try await server.stop()
    }

    @Test func aReloadWithinTheGracePeriodKeepsTheSession() async throws {
        let clock = ManualClock()
        let server = try await TestServer.start(closingGracePeriod: .seconds(5), clock: clock)
        let window = try await server.openWindow()
        window.sayClosing()
        try await window.close()
        try await window.waitUntil("the discard to be scheduled") { clock.sleeperCount == 1 }
        let reloaded = try await window.reconnect(resuming: false)
        try await reloaded.next(.welcome)
        #expect(reloaded.session == window.session)
        // The reload called the discard off: nothing waits for the grace period any more.
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(60))
        // Closed without saying so (a dropped connection): the scene disconnects, and no discard
        // is scheduled for its session.
        try await reloaded.close()
        let runtime = try #require(server.server.runtime(named: TallyAppDelegate.app))
        try await reloaded.waitUntil("the scene to disconnect") { runtime.application.connectedScenes.isEmpty }
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(60))
        #expect(server.delegates.tally?.discarded.isEmpty == true)
        try await server.stop()
    }

    @Test func anAddressWithAllItsWindowsOpenIsRefusedAnother() async throws {
        let server = try await TestServer.start(maximumSessionsPerAddress: 2)
        let first = try await server.openWindow()
        _ = try await server.openWindow()
        let third = try await server.window()
        third.hello()
        #expect(try await third.next(.error).errorCode == "tooManySessions")
        try await third.waitUntil("the socket to close") { third.isClosed }
        #expect(third.closeCode == 1008)

        // A window that goes makes room: its session is the one discarded.
        try await first.close()
        var reopened: WindowClient?
        let started = ContinuousClock.now
        while reopened == nil, ContinuousClock.now - started < .seconds(10) {
            reopened = try? await server.openWindow()
        }
        #expect(reopened != nil)
        #expect(server.delegates.tally?.discarded.contains { $0.rawValue == first.session } == true)
        try await server.stop()
    }
}
