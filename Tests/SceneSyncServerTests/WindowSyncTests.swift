import SceneSync
@testable import SceneSyncUI
import SceneSyncServerTesting
@testable import SceneSyncServer
import Testing

/// Windows of one app, each over its own WebSocket, in step with each other.
@MainActor
@Suite struct WindowSyncTests {
    @Test func bothWindowsShowTheRowOneAdds() async throws {
        let server = try await TestServer.start()
        let first = try await server.openWindow()
        let second = try await server.openWindow()
        #expect(first.session != second.session)
        #expect(first.view?.node(TallyScreen.NodeID.add)?.props["label"] == "Add")
        #expect(first.seq != nil && first.seq?[TallyAppDelegate.app] ?? 0 == 0)

        let ref = first.tap(TallyScreen.NodeID.add)
        try await first.next("the ack") { $0 == .ack(ref: ref) }
        for window in [first, second] {
            try await window.waitUntil("the new row") { window.view?.node(TallyScreen.NodeID.row(1)) != nil }
            #expect(window.view?.node(TallyScreen.NodeID.row(1))?.props["title"] == "Line 1")
            #expect(window.view?.nodes(of: .row).count == 1)
            #expect(window.seq == [TallyAppDelegate.app: 1])
            #expect(window.problems.isEmpty)
        }
        try await first.close()
        try await second.close()
        try await server.stop()
    }

    /// Answered with its ref, under a code of its own that the renderer shows no user.
    @Test func anActionNothingAnswersIsAnsweredNotAnsweredWithItsRef() async throws {
        let server = try await TestServer.start()
        let window = try await server.openWindow()
        let ref = window.act("tap", on: "nowhere")
        let error = try await window.next(.error)
        guard case let .error(errorRef, code, message) = error else { Issue.record("not an error"); return }
        #expect(errorRef == ref)
        #expect(code == "notAnswered")
        #expect(message.contains("nowhere"))
        try await server.stop()
    }

    @Test func openInNewWindowHandsTheActivityToTheNewWindowOnce() async throws {
        let server = try await TestServer.start()
        let window = try await server.openWindow()
        window.tap(TallyScreen.NodeID.newWindow)
        guard case let .open(url) = try await window.next(.open) else { Issue.record("no open"); return }
        #expect(url.hasPrefix("/tally?open="))
        let token = String(url.dropFirst("/tally?open=".count))

        let opened = try await server.openWindow(open: token)
        #expect(opened.view?.node(SceneWindow.NodeID.navigationBar)?.props["title"] == "Opened")
        #expect(opened.session != window.session)

        let again = try await server.openWindow(open: token)
        #expect(again.view?.node(SceneWindow.NodeID.navigationBar)?.props["title"] == "Tally")
        try await server.stop()
    }

    @Test func shutdownTellsWindowsWhenToComeBack() async throws {
        let server = try await TestServer.start()
        let window = try await server.openWindow()
        try await server.stop()
        #expect(window.messages.contains(.shutdown(retryAfter: 500)))
        try await window.waitUntil("the socket to close") { window.isClosed }
        #expect(window.closeCode == 1001)
    }

    @Test func hostsLootLogger() async throws {
        let server = try await TestServer.start(lootLogger: true)
        let window = try await server.window(app: "lootlogger")
        window.hello()
        guard case let .welcome(_, app, title, _) = try await window.next(.welcome) else { Issue.record("no welcome"); return }
        #expect(app == "lootlogger")
        #expect(title == "LootLogger")
        try await window.waitUntil("LootLogger's first render") { window.view != nil }
        try await server.stop()
    }
}
