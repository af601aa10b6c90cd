import Foundation
import SceneSync
import Synchronization

/// Storage that forwards to another and counts commits, to show how many intents each group
/// commit carried, and adds up the time the storage took for them; the model controller cannot
/// tell us.
final class CountingStorage: SceneSyncStorage {
    private let base: any SceneSyncStorage
    private let commitCount = Atomic<Int>(0)
    private let commitNanoseconds = Atomic<Int64>(0)

    init(_ base: any SceneSyncStorage) {
        self.base = base
    }

    /// Commits made so far that carried at least one event.
    var commits: Int { commitCount.load(ordering: .relaxed) }

    /// The time the commits counted in ``commits`` took the storage, added up.
    var commitTime: Duration { .nanoseconds(commitNanoseconds.load(ordering: .relaxed)) }

    func commit(_ batch: CommitBatch) async throws {
        let start = ContinuousClock.now
        try await base.commit(batch)
        guard !batch.events.isEmpty else { return }
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        commitNanoseconds.add(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
        commitCount.add(1, ordering: .relaxed)
    }

    func loadModel(app: String) async throws -> StoredModel {
        try await base.loadModel(app: app)
    }

    func events(app: String, after sequence: UInt64, limit: Int) async throws -> [StoredEvent] {
        try await base.events(app: app, after: sequence, limit: limit)
    }

    func logHeads(app: String) -> AsyncStream<UInt64>? { base.logHeads(app: app) }
    var cluster: (any SceneSyncCluster)? { base.cluster }
    var commitGathering: CommitGathering? { base.commitGathering }

    func saveSession(_ session: SceneSession) async throws {
        try await base.saveSession(session)
    }

    func session(id: SceneSession.ID) async throws -> SceneSession? {
        try await base.session(id: id)
    }

    func allSessions() async throws -> [SceneSession] {
        try await base.allSessions()
    }

    func markSessionsClosed(_ ids: [SceneSession.ID], at date: Date) async throws {
        try await base.markSessionsClosed(ids, at: date)
    }

    func committedAction(_ action: SceneActionID) async throws -> UInt64? {
        try await base.committedAction(action)
    }

    func deleteSessions(_ ids: [SceneSession.ID]) async throws {
        try await base.deleteSessions(ids)
    }

    func drafts(session: SceneSession.ID) async throws -> [String: Data] {
        try await base.drafts(session: session)
    }

    func setDraft(_ value: Data?, key: String, session: SceneSession.ID) async throws {
        try await base.setDraft(value, key: key, session: session)
    }

    func setRunning(_ running: Bool) async throws -> Bool {
        try await base.setRunning(running)
    }
}
