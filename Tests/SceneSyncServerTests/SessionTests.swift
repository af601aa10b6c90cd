import SceneSync
import SceneSyncServerTesting
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

        let again = try await window.reconnect()
        guard case let .welcome(welcomed, _, _) = try await again.next(.welcome) else { Issue.record("no welcome"); return }
        #expect(welcomed == session)
        try await again.next(.resumed)
        #expect(again.view == nil)
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
        let server = try await TestServer.start(closingGracePeriod: .milliseconds(200))
        let window = try await server.openWindow()
        let session = try #require(window.session.flatMap(SceneSession.ID.init))
        window.sayClosing()
        try await window.close()
        try await window.waitUntil("the session to be discarded", timeout: .seconds(5)) {
            server.delegates.tally?.discarded.contains(session) == true
        }
        let reopened = try await server.openWindow(session: session.rawValue)
        #expect(reopened.session != session.rawValue)
        try await server.stop()
    }

    @Test func aReloadWithinTheGracePeriodKeepsTheSession() async throws {
        // Generous enough for a loaded machine to reconnect in time; each wait below outlasts it, so
        // a discard that was not called off would show.
        let server = try await TestServer.start(closingGracePeriod: .seconds(3))
        let window = try await server.openWindow()
        window.sayClosing()
        try await window.close()
        let reloaded = try await window.reconnect(resuming: false)
        try await reloaded.next(.welcome)
        #expect(reloaded.session == window.session)
        try await Task.sleep(for: .milliseconds(3500))
        #expect(server.delegates.tally?.discarded.isEmpty == true)
        // Closed without saying so (a dropped connection): the session stays.
        try await reloaded.close()
        try await Task.sleep(for: .milliseconds(3500))
        #expect(server.delegates.tally?.discarded.isEmpty == true)
        try await server.stop()
    }
}
