import Foundation
import Logging
import SceneSync
import Testing

extension StorageConformance {
    static func recordsCommittedActions(_ storage: any SceneSyncStorage, _ otherNode: any SceneSyncStorage) async throws {
        let session = SceneSession(), other = SceneSession()
        try await storage.saveSession(session)
        try await storage.saveSession(other)
        let first = SceneActionID(session: session.id, ref: 1), second = SceneActionID(session: session.id, ref: 2)
        let elsewhere = SceneActionID(session: other.id, ref: 1)
        // Session, ref, attempt, whether the window sent it again.
        func record(_ action: SceneActionID, _ sequence: UInt64, attempt: UInt64, resent: Bool = false) -> CommittedAction {
            CommittedAction(action: action, sequence: sequence, attempt: attempt, resent: resent)
        }
        try await storage.commit(CommitBatch(
            app: app, events: (1...3).map { event($0) }, changes: [], trimThrough: nil,
            actions: [record(first, 1, attempt: 11), record(elsewhere, 3, attempt: 31)]))
        #expect(try await storage.committedAction(first) == 1)
        #expect(try await otherNode.committedAction(elsewhere) == 3)
        #expect(try await otherNode.committedAction(second) == nil)

        // A batch refused for its numbers records nothing; an action recorded already by the same
        // attempt keeps its first number.
        await #expect(throws: StorageError.self) {
            try await otherNode.commit(CommitBatch(app: app, events: [event(2)], changes: [], trimThrough: nil,
                                                   actions: [record(second, 2, attempt: 21, resent: true)]))
        }
        #expect(try await storage.committedAction(second) == nil)
        try await otherNode.commit(CommitBatch(
            app: app, events: [event(4), event(5)], changes: [], trimThrough: nil,
            actions: [record(first, 4, attempt: 11), record(second, 5, attempt: 21, resent: true)]))
        #expect(try await storage.committedAction(first) == 1)
        #expect(try await storage.committedAction(second) == 5)

        // Another attempt at an action recorded already (another node ran it too) is refused,
        // with the whole batch, on either node, when it or the recorded one was sent again;
        // nothing of it is written.
        let refusals: [(any SceneSyncStorage, CommittedAction)] = [
            (storage, record(first, 6, attempt: 12, resent: true)),
            (otherNode, record(second, 6, attempt: .max)),
        ]
        for (node, action) in refusals {
            await #expect(throws: StorageError.actionsCommitted(app: app, actions: [action.action])) {
                try await node.commit(CommitBatch(
                    app: app, events: [event(6)], changes: [EncodedRecordChange(collection: "items", key: "twice", value: Data("x".utf8))],
                    trimThrough: nil, actions: [record(elsewhere, 6, attempt: 31), action]))
            }
        }
        #expect(try await storage.events(app: app, after: 5, limit: 10).isEmpty)
        #expect(try await otherNode.loadModel(app: app).records.collections["items"]?["twice"] == nil)
        #expect(try await storage.committedAction(first) == 1)

        // Neither sent again, two attempts are two actions of a window that reused a ref: done.
        try await otherNode.commit(CommitBatch(app: app, events: [event(6)], changes: [], trimThrough: nil,
                                               actions: [record(first, 6, attempt: 13)]))
        #expect(try await storage.committedAction(first) == 1)

        // Trimming the log through 3 forgets the actions committed up to it.
        try await storage.commit(CommitBatch(app: app, events: [event(7)], changes: [], trimThrough: 3))
        #expect(try await storage.committedAction(first) == nil)
        #expect(try await storage.committedAction(elsewhere) == nil)
        #expect(try await storage.committedAction(second) == 5)

        // Discarding the session forgets its actions, and no other session's.
        try await storage.commit(CommitBatch(app: app, events: [event(8)], changes: [], trimThrough: nil,
                                             actions: [record(elsewhere, 8, attempt: 31)]))
        try await storage.deleteSessions([session.id])
        #expect(try await storage.committedAction(second) == nil)
        #expect(try await otherNode.committedAction(elsewhere) == 8)
    }

    static func carriesOutAnActionOnceOnTwoNodes(_ nodeA: any SceneSyncStorage, _ nodeB: any SceneSyncStorage) async throws {
        let logger = Logger(label: "conformance")
        let one = try await ModelController<Counter>(app: app, storage: nodeA, logger: logger)
        let two = try await ModelController<Counter>(app: app, storage: nodeB, logger: logger)
        let session = SceneSession.ID()
        let rounds = 20
        for ref in 1...rounds {
            let action = SceneActionID(session: session, ref: ref)
            // The same action, run on both nodes at once; each attempt adds one.
            async let onA = action.carryOut(resent: false) { try await one.perform(origin: session) { _ in [.added] } }
            async let onB = action.carryOut(resent: true) { try await two.perform(origin: session) { _ in [.added] } }
            let outcomes = [try await onA, try await onB]
            #expect(outcomes.filter { $0 == .carriedOut }.count == 1, "round \(ref): one attempt carries it out, not \(outcomes)")
            #expect(outcomes.filter { $0 == .carriedOutElsewhere }.count == 1, "round \(ref): the other learns it was done elsewhere")
        }
        // Both intents of one attempt commit: a later commit of the same attempt is no second run.
        let twice = try await SceneActionID(session: session, ref: rounds + 1).carryOut(resent: true) {
            try await one.perform(origin: session) { _ in [.added] }
            try await one.perform(origin: session) { _ in [.added] }
        }
        #expect(twice == .carriedOut)
        try await two.catchUp()
        #expect(try await nodeB.loadModel(app: app).lastSequence == UInt64(rounds + 2), "each action committed once")
        #expect(await two.state.count == rounds + 2)
        await one.close()
        await two.close()
    }
}
