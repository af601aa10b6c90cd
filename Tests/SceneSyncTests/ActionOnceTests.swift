import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

/// A window's action sent again — to the same process or to another node on the same storage —
/// is carried out at most once (`Application.carryOut`).
@MainActor
struct ActionOnceTests {
    let logger = Logger(label: "action-once")

    /// Two applications on one storage stand for two nodes sharing a database.
    func node(_ storage: any SceneSyncStorage, activity: SceneActivity? = nil) async throws -> (SceneHost, RecordingAppDelegate) {
        let delegate = RecordingAppDelegate(log: CallLog())
        delegate.activity = { _ in activity }
        return (try await SceneHost.launch(delegate: delegate, storage: storage, logger: logger), delegate)
    }

    @Test func anActionWhoseIntentCommittedIsNotDoneAgainOnAnotherNode() async throws {
        let storage = try SQLiteStorage.inMemory()
        let journal = try await ModelController<Journal>(app: "journal", storage: storage, logger: logger)
        let (first, _) = try await node(storage)
        let window = try await first.openWindow()
        let action = SceneActionID(session: window.sessionID, ref: 7)

        let done = try await first.application.carryOut(action, in: window.scene!, resent: false) {
            try await journal.append("Rusty Spork", origin: window.sessionID)
        }
        #expect(done == .carriedOut)
        #expect(try await storage.committedAction(action) == 1)

        // The node dies before the window hears `ack`: the window reconnects to another node,
        // whose copy of the session says nothing of the action (it changed no activity).
        let (second, _) = try await node(storage)
        let restored = try await second.openWindow(session: window.sessionID)
        #expect(restored.sessionID == window.sessionID)
        #expect(restored.scene!.session.lastActionRef == nil)
        var ranAgain = false
        let again = try await second.application.carryOut(action, in: restored.scene!, resent: true) { ranAgain = true }
        #expect(again == .alreadyCarriedOut)
        #expect(!ranAgain)
        #expect(await journal.snapshot().state.lines == ["Rusty Spork"])
    }

    @Test func anActionThatOnlyMovedTheWindowIsSavedBeforeItReturnsAndNotDoneAgain() async throws {
        let storage = try SQLiteStorage.inMemory()
        var place = SceneActivity(type: "list")
        let delegate = RecordingAppDelegate(log: CallLog())
        delegate.activity = { _ in place }
        let first = try await SceneHost.launch(delegate: delegate, storage: storage, logger: logger)
        let window = try await first.openWindow()
        let action = SceneActionID(session: window.sessionID, ref: 3)

        _ = try await first.application.carryOut(action, in: window.scene!, resent: false) {
            place = SceneActivity(type: "detail")
            window.scene!.restorationActivityDidChange()
        }
        // Saved at once, not after the restoration save's delay: the window may be told now.
        let stored = try #require(try await storage.session(id: window.sessionID))
        #expect(stored.stateRestorationActivity?.type == "detail")
        #expect(stored.lastActionRef == 3)
        #expect(try await storage.committedAction(action) == nil)

        let (second, _) = try await node(storage, activity: place)
        let restored = try await second.openWindow(session: window.sessionID)
        var ranAgain = false
        #expect(try await second.application.carryOut(action, in: restored.scene!, resent: true) { ranAgain = true } == .alreadyCarriedOut)
        #expect(!ranAgain)
    }

    @Test func aResentActionNeverDoneIsDoneOnceAndARefusedOneIsNotRecorded() async throws {
        let storage = try SQLiteStorage.inMemory()
        let journal = try await ModelController<Journal>(app: "journal", storage: storage, logger: logger)
        let (host, _) = try await node(storage)
        let window = try await host.openWindow()
        let scene = try #require(window.scene)
        let refused = SceneActionID(session: window.sessionID, ref: 1)

        await #expect(throws: JournalError.emptyLine) {
            _ = try await host.application.carryOut(refused, in: scene, resent: false) { try await journal.append("") }
        }
        // Refused, it was not done: sent again, it runs again (and may now succeed).
        #expect(try await host.application.carryOut(refused, in: scene, resent: true) { try await journal.append("Fixed") } == .carriedOut)

        let lost = SceneActionID(session: window.sessionID, ref: 2)
        #expect(try await host.application.carryOut(lost, in: scene, resent: true) { try await journal.append("Lost") } == .carriedOut)
        #expect(try await host.application.carryOut(lost, in: scene, resent: true) { try await journal.append("Lost") } == .alreadyCarriedOut)
        #expect(await journal.snapshot().state.lines == ["Fixed", "Lost"])
    }

    @Test func anActionSentAgainWaitsForTheSameActionStillRunningAndIsNotDoneTwice() async throws {
        let storage = try SQLiteStorage.inMemory()
        let journal = try await ModelController<Journal>(app: "journal", storage: storage, logger: logger)
        let (host, _) = try await node(storage)
        let window = try await host.openWindow()
        let scene = try #require(window.scene)
        let action = SceneActionID(session: window.sessionID, ref: 9)
        let gate = AsyncStream<Void>.makeStream()

        // The first connection is still carrying the action out when the window, reconnected,
        // sends it again.
        let first = Task { @MainActor in
            try await host.application.carryOut(action, in: scene, resent: false) {
                for await _ in gate.stream { break }
                try await journal.append("Once")
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        let second = Task { @MainActor in
            try await host.application.carryOut(action, in: scene, resent: true) { try await journal.append("Once") }
        }
        try await Task.sleep(for: .milliseconds(50))
        gate.continuation.yield()
        #expect(try await first.value == .carriedOut)
        #expect(try await second.value == .alreadyCarriedOut)
        #expect(await journal.snapshot().state.lines == ["Once"])
    }

    @Test func anActionResentToAnotherNodeWhileTheFirstStillRunsItIsDoneOnce() async throws {
        let storage = try SQLiteStorage.inMemory()
        // Each node has its own controller of the shared log.
        let journalOne = try await ModelController<Journal>(app: "journal", storage: storage, logger: logger)
        let journalTwo = try await ModelController<Journal>(app: "journal", storage: storage, logger: logger)
        let (one, _) = try await node(storage)
        let window = try await one.openWindow()
        let action = SceneActionID(session: window.sessionID, ref: 4)
        let gate = AsyncStream<Void>.makeStream()

        // Node one has the action and has not committed yet when the window, its connection cut,
        // sends it again to node two, which finds nothing committed and carries it out.
        let first = Task { @MainActor in
            try await one.application.carryOut(action, in: window.scene!, resent: false) {
                for await _ in gate.stream { break }
                try await journalOne.append("Sent once", origin: window.sessionID)
            }
        }
        let (two, _) = try await node(storage)
        let restored = try await two.openWindow(session: window.sessionID)
        let again = try await two.application.carryOut(action, in: restored.scene!, resent: true) {
            try await journalTwo.append("Sent once", origin: window.sessionID)
        }
        #expect(again == .carriedOut)

        // Node one's commit comes second: refused, and its carry-out says it was done already.
        gate.continuation.yield()
        #expect(try await first.value == .alreadyCarriedOut)
        #expect(await journalOne.snapshot().state.lines == ["Sent once"])
        #expect(try await storage.loadModel(app: "journal").lastSequence == 1)
    }

    @Test func theRecordOfCommittedActionsGoesWithItsSession() async throws {
        let storage = try SQLiteStorage.inMemory()
        let journal = try await ModelController<Journal>(app: "journal", storage: storage, logger: logger)
        let (host, _) = try await node(storage)
        let window = try await host.openWindow()
        let action = SceneActionID(session: window.sessionID, ref: 1)
        _ = try await host.application.carryOut(action, in: window.scene!, resent: false) { try await journal.append("Gone") }
        #expect(try await storage.committedAction(action) != nil)

        try await host.close(window)

        #expect(try await storage.committedAction(action) == nil)
    }

    @Test func aStorageThatCannotAnswerRefusesTheResentActionWithATypedError() async throws {
        let base = try SQLiteStorage.inMemory()
        let storage = InstrumentedStorage(base)
        let (host, _) = try await node(storage)
        let window = try await host.openWindow()
        let action = SceneActionID(session: window.sessionID, ref: 4)
        storage.failCommittedActionLookups = true
        var ran = false
        await #expect(throws: ApplicationError.self) {
            _ = try await host.application.carryOut(action, in: window.scene!, resent: true) { ran = true }
        }
        #expect(!ran)
    }
}
