import Foundation
import SceneSync
import Testing

extension StorageConformance {
    static func recordsCommittedActions(_ storage: any SceneSyncStorage, _ otherNode: any SceneSyncStorage) async throws {
        let session = SceneSession(), other = SceneSession()
        try await storage.saveSession(session)
        try await storage.saveSession(other)
        let first = SceneActionID(session: session.id, ref: 1), second = SceneActionID(session: session.id, ref: 2)
        let elsewhere = SceneActionID(session: other.id, ref: 1)
        try await storage.commit(CommitBatch(
            app: app, events: (1...3).map { event($0) }, changes: [], trimThrough: nil,
            actions: [CommittedAction(action: first, sequence: 1), CommittedAction(action: elsewhere, sequence: 3)]))
        #expect(try await storage.committedAction(first) == 1)
        #expect(try await otherNode.committedAction(elsewhere) == 3)
        #expect(try await otherNode.committedAction(second) == nil)

        // A batch refused for its numbers records nothing; an action recorded already keeps its
        // first number.
        await #expect(throws: StorageError.self) {
            try await otherNode.commit(CommitBatch(app: app, events: [event(2)], changes: [], trimThrough: nil,
                                                   actions: [CommittedAction(action: second, sequence: 2)]))
        }
        #expect(try await storage.committedAction(second) == nil)
        try await otherNode.commit(CommitBatch(
            app: app, events: [event(4), event(5)], changes: [], trimThrough: nil,
            actions: [CommittedAction(action: first, sequence: 4), CommittedAction(action: second, sequence: 5)]))
        #expect(try await storage.committedAction(first) == 1)
        #expect(try await storage.committedAction(second) == 5)

        // Trimming the log through 3 forgets the actions committed up to it.
        try await storage.commit(CommitBatch(app: app, events: [event(6)], changes: [], trimThrough: 3))
        #expect(try await storage.committedAction(first) == nil)
        #expect(try await storage.committedAction(elsewhere) == nil)
        #expect(try await storage.committedAction(second) == 5)

        // Discarding the session forgets its actions, and no other session's.
        try await storage.commit(CommitBatch(app: app, events: [event(7)], changes: [], trimThrough: nil,
                                             actions: [CommittedAction(action: elsewhere, sequence: 7)]))
        try await storage.deleteSessions([session.id])
        #expect(try await storage.committedAction(second) == nil)
        #expect(try await otherNode.committedAction(elsewhere) == 7)
    }
}
