import Foundation
import SceneSync
import Synchronization

/// Wraps a real storage to count commits and to make the next commits fail, as a full disk would.
final class InstrumentedStorage: SceneSyncStorage {
    let base: any SceneSyncStorage
    private let state = Mutex((commits: 0, failNext: 0, largestBatch: 0))

    init(_ base: any SceneSyncStorage) { self.base = base }

    var commitCount: Int { state.withLock { $0.commits } }
    var largestBatch: Int { state.withLock { $0.largestBatch } }
    func failNextCommits(_ count: Int) { state.withLock { $0.failNext = count } }

    struct InjectedFailure: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    func commit(_ batch: CommitBatch) async throws {
        let fail = state.withLock { state in
            if state.failNext > 0 { state.failNext -= 1; return true }
            state.commits += 1
            state.largestBatch = max(state.largestBatch, batch.events.count)
            return false
        }
        if fail { throw InjectedFailure() }
        try await base.commit(batch)
    }

    func loadModel(app: String) async throws -> StoredModel { try await base.loadModel(app: app) }
    func events(app: String, after sequence: UInt64, limit: Int) async throws -> [StoredEvent] {
        try await base.events(app: app, after: sequence, limit: limit)
    }
    func saveSession(_ session: SceneSession) async throws { try await base.saveSession(session) }
    func session(id: SceneSession.ID) async throws -> SceneSession? { try await base.session(id: id) }
    func allSessions() async throws -> [SceneSession] { try await base.allSessions() }
    func markSessionsClosed(_ ids: [SceneSession.ID], at date: Date) async throws {
        try await base.markSessionsClosed(ids, at: date)
    }
    func deleteSessions(_ ids: [SceneSession.ID]) async throws { try await base.deleteSessions(ids) }
    func drafts(session: SceneSession.ID) async throws -> [String: Data] { try await base.drafts(session: session) }
    func setDraft(_ value: Data?, key: String, session: SceneSession.ID) async throws {
        try await base.setDraft(value, key: key, session: session)
    }
}
