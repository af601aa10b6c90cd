import Foundation
import SceneSync
import Synchronization

/// What a node knows of each log its model controllers write, for its report: the last sequence
/// number it has seen (committed itself or read from the log) and how many events it committed.
final class LogCounters: Sendable {
    struct Counts: Sendable, Equatable {
        var lastSequence: UInt64 = 0
        var eventsCommitted: UInt64 = 0
    }

    private let counts = Mutex<[String: Counts]>([:])

    /// Each log's counts, by name.
    var current: [String: Counts] { counts.withLock { $0 } }

    func saw(_ sequence: UInt64, app: String) {
        counts.withLock { $0[app, default: Counts()].lastSequence = max($0[app]?.lastSequence ?? 0, sequence) }
    }

    func committed(_ events: Int, through sequence: UInt64, app: String) {
        counts.withLock { counts in
            var entry = counts[app, default: Counts()]
            entry.eventsCommitted += UInt64(events)
            entry.lastSequence = max(entry.lastSequence, sequence)
            counts[app] = entry
        }
    }
}

/// An app's storage as the server hands it to the app: it forwards everything to the storage it
/// was made with and counts what the app's model controllers commit and read, so that the node's
/// report says how each log moves without asking the database or the model controllers.
final class LogCountingStorage: SceneSyncStorage {
    let base: any SceneSyncStorage
    let counters: LogCounters

    init(_ base: any SceneSyncStorage, counters: LogCounters) {
        self.base = base
        self.counters = counters
    }

    func loadModel(app: String) async throws -> StoredModel {
        let model = try await base.loadModel(app: app)
        counters.saw(model.lastSequence, app: app)
        return model
    }

    func commit(_ batch: CommitBatch) async throws {
        try await base.commit(batch)
        if let last = batch.events.last { counters.committed(batch.events.count, through: last.sequence, app: batch.app) }
    }

    func committedAction(_ action: SceneActionID) async throws -> UInt64? {
        try await base.committedAction(action)
    }

    func events(app: String, after sequence: UInt64, limit: Int) async throws -> [StoredEvent] {
        let events = try await base.events(app: app, after: sequence, limit: limit)
        if let last = events.last { counters.saw(last.sequence, app: app) }
        return events
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
