import Foundation
import InMemoryLogging
import Logging
@testable import SceneSync
@testable import SceneSyncUI
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

@MainActor
struct ApplicationTests {
    let calls = CallLog()

    func launch(_ storage: any SceneSyncStorage, options: Application.Options = .init(), logger: Logger = Logger(label: "test"))
        async throws -> (SceneHost, RecordingAppDelegate)
    {
        let delegate = RecordingAppDelegate(log: calls)
        let host = try await SceneHost.launch(delegate: delegate, storage: storage, options: options, logger: logger)
        return (host, delegate)
    }

    @Test func everyLifecycleCallIsMadeAndLoggedInOrderWithItsSceneID() async throws {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "lifecycle") { _ in handler }
        let (host, _) = try await launch(try SQLiteStorage.inMemory(), logger: logger)

        let window = try await host.openWindow()
        try await host.hide(window)
        try await host.show(window)
        await host.disconnect(window)

        let expected = [
            "willConnect", "willEnterForeground", "didBecomeActive",
            "willResignActive", "didEnterBackground",
            "willEnterForeground", "didBecomeActive",
            "willResignActive", "didEnterBackground", "didDisconnect",
        ]
        #expect(calls.calls == ["didFinishLaunching"] + expected)
        let sceneLines = handler.entries.filter { $0.metadata["scene.id"] == "\(window.sessionID)" }
        #expect(sceneLines.map { "\($0.message)" }.filter { $0 != "configurationForConnecting" } == expected)
        #expect(handler.entries.first.map { "\($0.message)" } == "applicationDidFinishLaunching")
    }

    @Test func disconnectFreesTheSceneAndItsDelegateButKeepsTheSession() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, _) = try await launch(storage)
        var window: HostedWindow? = try await host.openWindow()
        let id = window!.sessionID
        weak let scene = window!.scene
        weak let delegate = window!.scene!.delegate
        window!.scene!.task { for await _ in AsyncStream<Int>(unfolding: { nil }) {} ; try? await Task.sleep(for: .seconds(3600)) }
        #expect(window!.scene!.taskCount == 1)

        await host.disconnect(window!)
        window = nil

        #expect(scene == nil)
        #expect(delegate == nil)
        #expect(host.application.connectedScenes.isEmpty)
        #expect(try await storage.session(id: id) != nil)
    }

    @Test func aSceneLetsGoOfItsTasksAndLifecycleTurnsOnceTheyEnd() async throws {
        // A scene lives as long as its window: what it kept of ended tasks, it would keep per window.
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        let scene = try #require(window.scene)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let (ended, end) = AsyncStream.makeStream(of: Void.self)
        scene.task {
            for await _ in gate {}
            end.finish()
        }
        scene.task {}
        #expect(scene.taskCount >= 1)
        open.finish()
        for await _ in ended {}
        for _ in 0..<100 where scene.taskCount > 0 { await Task.yield() }
        #expect(scene.taskCount == 0)

        try await host.hide(window)
        try await host.show(window)
        #expect(scene.lifecycleTurn == nil)
    }

    @Test func discardDeletesTheScenesDraftsAndIsReported() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, delegate) = try await launch(storage)
        let window = try await host.openWindow()
        let other = try await host.openWindow()
        try await window.scene!.drafts.set("Rusty Sp", for: "name")
        try await other.scene!.drafts.set("keep me", for: "name")

        try await host.close(window)

        #expect(delegate.discarded == [[window.sessionID]])
        #expect(calls.calls.suffix(2) == ["didDisconnect", "didDiscard 1"])
        #expect(try await storage.session(id: window.sessionID) == nil)
        #expect(try await storage.drafts(session: window.sessionID).isEmpty)
        #expect(try await storage.drafts(session: other.sessionID).keys.sorted() == ["name"])
    }

    @Test func aLaunchAfterACrashSaysSoWithWhatWasRecoveredAndOneAfterACleanStopDoesNot() async throws {
        let path = TemporaryDirectory().path("crash.sqlite")
        let crashWarning = "ended without stopping"
        do {
            let (host, _) = try await launch(try SQLiteStorage(path: path))
            _ = try await host.openWindow()
            _ = try await host.openWindow()
            // No terminate: the process died here.
        }
        let afterCrash = InMemoryLogHandler()
        do {
            let (host, _) = try await launch(try SQLiteStorage(path: path), logger: Logger(label: "crash") { _ in afterCrash })
            let warning = try #require(afterCrash.entries.first { $0.level == .warning && "\($0.message)".contains(crashWarning) })
            #expect(warning.metadata["sessions"] == "2")
            #expect(warning.metadata["sessionsWithPlace"] != nil)
            await host.terminate()
        }
        let afterStop = InMemoryLogHandler()
        _ = try await launch(try SQLiteStorage(path: path), logger: Logger(label: "clean") { _ in afterStop })
        #expect(!afterStop.entries.contains { "\($0.message)".contains(crashWarning) })
    }

    @Test func sessionsClosedOrLongUnseenWhileNoApplicationRanAreReportedAtTheNextLaunch() async throws {
        let path = TemporaryDirectory().path("down.sqlite")
        var ids: [SceneSession.ID] = []
        do {
            let (host, _) = try await launch(try SQLiteStorage(path: path))
            for _ in 0..<3 { ids.append(try await host.openWindow().sessionID) }
            try await host.application.connectedScenes[ids[0]]!.drafts.set("draft", for: "note")
            await host.terminate()
        }
        // While nothing runs: one window is closed, another has not been seen for two days.
        let storage = try SQLiteStorage(path: path)
        try await storage.markSessionsClosed([ids[0]], at: Date())
        var stale = try await storage.session(id: ids[1])!
        stale.lastSeenAt = Date().addingTimeInterval(-2 * 24 * 3600)
        try await storage.saveSession(stale)

        calls.calls = []
        let (_, delegate) = try await launch(storage, options: .init(sessionExpiry: .seconds(24 * 3600)))

        #expect(calls.calls == ["didFinishLaunching", "didDiscard 2"])
        #expect(Set(delegate.discarded.flatMap { $0 }) == [ids[0], ids[1]])
        #expect(try await storage.allSessions().map(\.id) == [ids[2]])
        #expect(try await storage.drafts(session: ids[0]).isEmpty)
    }

    @Test func aRestoredWindowGetsItsActivityBackInANewProcess() async throws {
        let path = TemporaryDirectory().path("restore.sqlite")
        let activity = try SceneActivity(type: "detail", title: "Item", payload: ["item": "42"])
        let id: SceneSession.ID
        do {
            let (host, delegate) = try await launch(try SQLiteStorage(path: path))
            delegate.activity = { _ in activity }
            let window = try await host.openWindow()
            id = window.sessionID
            await host.disconnect(window)
        }
        let (host, _) = try await launch(try SQLiteStorage(path: path))
        let window = try await host.openWindow(session: id)
        let connected = try #require(window.delegate(as: RecordingSceneDelegate.self)?.connectedWith)
        #expect(window.sessionID == id)
        #expect(connected.session.stateRestorationActivity == activity)
        #expect(connected.session.configurationName == "Main")
    }

    @Test func aDuplicatedWindowGetsASessionOfItsOwnRestoredFromTheOriginal() async throws {
        let (host, delegate) = try await launch(try SQLiteStorage.inMemory())
        let activity = SceneActivity(type: "list", title: "Items")
        delegate.activity = { _ in activity }
        let original = try await host.openWindow()

        let duplicate = try await host.openWindow(session: original.sessionID)

        #expect(duplicate.sessionID != original.sessionID)
        #expect(duplicate.scene!.session.stateRestorationActivity == activity)
        #expect(host.application.connectedScenes.count == 2)
    }

    @Test func twoWindowsConnectingWithOneStoredSessionAtOnceNeverShareIt() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, _) = try await launch(storage)
        let id = try await host.openWindow().sessionID
        await host.application.disconnectAll()

        async let first = host.application.connect(session: id)
        async let second = host.application.connect(session: id)
        let scenes = try await [first, second]

        #expect(Set(scenes.map(\.session.id)).count == 2)
        #expect(scenes.contains { $0.session.id == id })
        #expect(host.application.connectedScenes.count == 2)
    }

    @Test func aWindowOpenedForAnActivityGetsItInItsOptionsAndTheConfigurationForIt() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let activity = try SceneActivity(type: "detail", payload: ["item": "7"])
        let window = try await host.openWindow(activity: activity)
        let connected = try #require(window.delegate(as: RecordingSceneDelegate.self)?.connectedWith)
        #expect(connected.options.activity == activity)
        #expect(window.scene!.session.configurationName == "Detail")
    }

    @Test func anUnknownOrDiscardedSessionIDGetsANewSession() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let stranger = SceneSession.ID()
        let window = try await host.openWindow(session: stranger)
        #expect(window.sessionID != stranger)
    }

    @Test func aDisconnectedSceneCannotMove() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        let scene = try #require(window.scene)
        await host.application.disconnect(scene)
        await #expect(throws: ApplicationError.notConnected(scene.session.id)) {
            try await host.application.move(scene, to: .foregroundActive)
        }
    }

    @Test func lifecycleChangesOfOneSceneTakeTurnsInsteadOfInterleaving() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        let scene = try #require(window.scene)
        let application = host.application
        // Entering the background saves the scene's activity, so each change suspends halfway;
        // none of these waits for the one before, as a hidden window whose socket drops does not.
        let changes = [SceneLifecycle.State.background, .foregroundActive, .background, .disconnected, .foregroundActive]
        let tasks = changes.map { state in
            Task { @MainActor in try await application.move(scene, to: state) }
        }
        var refusals: [any Error] = []
        for task in tasks {
            if case let .failure(error) = await task.result { refusals.append(error) }
        }

        // Each change ran from where the last one left the scene: every call is legal in order.
        var lifecycle = SceneLifecycle()
        for call in calls.calls.dropFirst() {
            let transition = SceneLifecycle.Transition.allCases.first { transition in
                var next = lifecycle
                return (try? next.apply(transition))?.rawValue == call
            }
            let legal = try #require(transition, "\(call) cannot follow \(lifecycle.state) in \(calls.calls)")
            try lifecycle.apply(legal)
        }
        #expect(lifecycle.state == .disconnected)
        #expect(calls.calls.filter { $0 == "didDisconnect" }.count == 1)
        // Only the change asked for after the disconnect is refused, and for that reason.
        #expect(refusals.map { "\($0)" } == ["\(ApplicationError.notConnected(scene.session.id))"])
    }

    @Test func draftsAreRefusedWhenTooLargeAndKeptOtherwise() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let scene = try #require(try await host.openWindow().scene)
        try await scene.drafts.set("small", for: "note")
        await #expect(throws: SceneDraftError.self) {
            try await scene.drafts.set(String(repeating: "x", count: SceneDrafts.maximumSize), for: "note")
        }
        #expect(scene.drafts.value(for: "note", as: String.self) == "small")
    }

    @Test func aWindowKeepsABoundedNumberAndSizeOfDrafts() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, _) = try await launch(storage)
        let scene = try #require(try await host.openWindow().scene)
        for index in 0..<SceneDrafts.maximumCount { try await scene.drafts.set("draft \(index)", for: "field-\(index)") }
        await #expect(throws: SceneDraftError.tooMany(limit: SceneDrafts.maximumCount)) {
            try await scene.drafts.set("one more", for: "field-extra")
        }
        // Changing a kept draft, and the framework's own keys, are not new drafts.
        try await scene.drafts.set("changed", for: "field-0")
        try await scene.drafts.setData(Data("{}".utf8), for: SceneDrafts.reservedPrefix + "test", limit: 16)
        try await scene.drafts.remove("field-1")
        try await scene.drafts.set("fits again", for: "field-extra")

        // Bytes in all: four drafts of 255 KiB fill the megabyte; a fifth does not fit.
        let big = String(repeating: "x", count: 255 * 1024)
        for index in 0..<SceneDrafts.maximumCount { try await scene.drafts.remove("field-\(index)") }
        try await scene.drafts.remove("field-extra")
        for index in 0..<4 { try await scene.drafts.set(big, for: "big-\(index)") }
        await #expect(throws: SceneDraftError.self) { try await scene.drafts.set(big, for: "big-4") }
        #expect(scene.drafts.data(for: "big-4") == nil)
        let stored = try await storage.drafts(session: scene.session.id)
        #expect(stored.keys.filter { $0.hasPrefix("big-") }.count == 4, "nothing of the refused draft was written")
    }

    @Test func beyondTheSessionLimitTheLeastRecentlySeenUnattachedSessionsGoFirst() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, delegate) = try await launch(storage, options: .init(maximumSessions: 3))
        let first = try await host.openWindow()
        let second = try await host.openWindow()
        let third = try await host.openWindow()
        await host.disconnect(first)
        await host.disconnect(second)
        #expect(try await storage.allSessions().count == 3)

        let fourth = try await host.openWindow()
        #expect(delegate.discarded.last == [first.sessionID], "the one seen longest ago")
        #expect(try await storage.session(id: first.sessionID) == nil)
        #expect(try await storage.session(id: second.sessionID) != nil)
        _ = try await host.openWindow()
        #expect(delegate.discarded.last == [second.sessionID])
        #expect(try await storage.allSessions().count == 3)

        // Connected windows keep their sessions, even beyond the limit.
        _ = try await host.openWindow()
        #expect(try await storage.allSessions().count == 4)
        #expect(try await storage.session(id: third.sessionID) != nil)
        #expect(try await storage.session(id: fourth.sessionID) != nil)
    }

    @Test func oneClientCannotFillTheSessionsAndIsRefusedWhenAllItsWindowsAreOpen() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, delegate) = try await launch(storage, options: .init(maximumSessionsPerClient: 2))
        let first = try await host.openWindow(client: "192.0.2.1")
        let second = try await host.openWindow(client: "192.0.2.1")
        await #expect(throws: ApplicationError.tooManySessions(client: "192.0.2.1")) {
            try await host.openWindow(client: "192.0.2.1")
        }
        #expect(try await storage.allSessions().count == 2, "nothing was stored for the refused window")
        _ = try await host.openWindow(client: "192.0.2.2")

        await host.disconnect(first)
        _ = try await host.openWindow(client: "192.0.2.1")
        #expect(delegate.discarded.last == [first.sessionID], "the client's own window not connected made room")
        #expect(try await storage.session(id: second.sessionID) != nil)
        #expect(try await storage.allSessions().count == 3)
    }

    @Test func twoWindowsMakingRoomAtOnceDiscardTwoSessionsNotOneTwice() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, delegate) = try await launch(storage, options: .init(maximumSessionsPerClient: 2))
        let first = try await host.openWindow(client: "192.0.2.1")
        let second = try await host.openWindow(client: "192.0.2.1")
        await host.disconnect(first)
        await host.disconnect(second)

        async let third = host.openWindow(client: "192.0.2.1")
        async let fourth = host.openWindow(client: "192.0.2.1")
        _ = try await (third, fourth)
        #expect(delegate.discarded.flatMap { $0 }.sorted() == [first.sessionID, second.sessionID].sorted())
        #expect(try await storage.allSessions().count == 2)
        await #expect(throws: ApplicationError.tooManySessions(client: "192.0.2.1")) {
            try await host.openWindow(client: "192.0.2.1")
        }
    }

    @Test func sessionIDsAreUnguessableAndStrictlyParsed() throws {
        let ids = Set((0..<1000).map { _ in SceneSession.ID() })
        #expect(ids.count == 1000)
        #expect(ids.allSatisfy { $0.rawValue.count == 32 })
        #expect(SceneSession.ID("not-an-id") == nil)
        #expect(SceneSession.ID(String(repeating: "A", count: 32)) == nil)
        let decoded = try JSONDecoder().decode([SceneSession.ID].self, from: Data(#"["\#(ids.first!.rawValue)"]"#.utf8))
        #expect(decoded == [ids.first!])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([SceneSession.ID].self, from: Data(#"["x"]"#.utf8)) }
    }
}
