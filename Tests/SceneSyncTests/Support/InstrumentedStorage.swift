import Foundation
import SceneSync
import Synchronization

/// Wraps a real storage to record commits, to make the next commits fail (as a full disk would),
/// to hold commits at the door until released, and, made with `announcingHeads`, to say itself
/// when other writers moved the log's head (``announce(_:)``) and to hold log reads, already read,
/// until released (``holdReads()``), as a database answering late would.
final class InstrumentedStorage: SceneSyncStorage {
    let base: any SceneSyncStorage
    private let state = Mutex((batchSizes: [Int](), failNext: 0))
    private let heads: (stream: AsyncStream<UInt64>, continuation: AsyncStream<UInt64>.Continuation)?
    private let commits = Door()
    private let reads = Door()

    /// What ``commitGathering`` says: the base storage's unless made with `gathering`.
    let commitGathering: CommitGathering?

    convenience init(_ base: any SceneSyncStorage, announcingHeads: Bool = false) {
        self.init(base, announcingHeads: announcingHeads, gathering: base.commitGathering)
    }

    /// A storage whose model controllers gather commits as `gathering` says (`nil`: not at all).
    init(_ base: any SceneSyncStorage, announcingHeads: Bool = false, gathering: CommitGathering?) {
        self.base = base
        heads = announcingHeads ? AsyncStream.makeStream(of: UInt64.self) : nil
        commitGathering = gathering
    }

    /// Says that another writer moved the log's head to `head` (with `announcingHeads`).
    func announce(_ head: UInt64) { heads?.continuation.yield(head) }

    /// Log reads done from now on wait, with what they read, until ``releaseReads()``.
    func holdReads() { reads.hold() }
    /// Log reads waiting at the door.
    var waitingReads: Int { reads.waiting }
    func releaseReads() { reads.release() }

    /// The number of events in each commit that reached the storage, in order.
    var batchSizes: [Int] { state.withLock { $0.batchSizes } }
    var commitCount: Int { batchSizes.count }
    var largestBatch: Int { batchSizes.max() ?? 0 }
    /// Commits waiting at the door while held.
    var waitingCommits: Int { commits.waiting }

    func failNextCommits(_ count: Int) { state.withLock { $0.failNext = count } }
    /// Whether ``committedAction(_:)`` fails, as a database that does not answer would.
    var failCommittedActionLookups: Bool {
        get { lookupsFail.load(ordering: .relaxed) }
        set { lookupsFail.store(newValue, ordering: .relaxed) }
    }
    private let lookupsFail = Atomic(false)
    func hold() { commits.hold() }
    func release() { commits.release() }

    struct InjectedFailure: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    func commit(_ batch: CommitBatch) async throws {
        await commits.pass()
        let fail = state.withLock { state in
            if state.failNext > 0 { state.failNext -= 1; return true }
            state.batchSizes.append(batch.events.count)
            return false
        }
        if fail { throw InjectedFailure() }
        try await base.commit(batch)
    }

    func loadModel(app: String) async throws -> StoredModel { try await base.loadModel(app: app) }
    func events(app: String, after sequence: UInt64, limit: Int) async throws -> [StoredEvent] {
        let read = try await base.events(app: app, after: sequence, limit: limit)
        await reads.pass()
        return read
    }
    func logHeads(app: String) -> AsyncStream<UInt64>? { heads?.stream ?? base.logHeads(app: app) }
    var cluster: (any SceneSyncCluster)? { base.cluster }

    func saveSession(_ session: SceneSession) async throws { try await base.saveSession(session) }
    func session(id: SceneSession.ID) async throws -> SceneSession? { try await base.session(id: id) }
    func allSessions() async throws -> [SceneSession] { try await base.allSessions() }
    func markSessionsClosed(_ ids: [SceneSession.ID], at date: Date) async throws {
        try await base.markSessionsClosed(ids, at: date)
    }
    func committedAction(_ action: SceneActionID) async throws -> UInt64? {
        if failCommittedActionLookups { throw InjectedFailure() }
        return try await base.committedAction(action)
    }
    func deleteSessions(_ ids: [SceneSession.ID]) async throws { try await base.deleteSessions(ids) }
    func drafts(session: SceneSession.ID) async throws -> [String: Data] { try await base.drafts(session: session) }
    func setDraft(_ value: Data?, key: String, session: SceneSession.ID) async throws {
        try await base.setDraft(value, key: key, session: session)
    }

    func setRunning(_ running: Bool) async throws -> Bool {
        try await base.setRunning(running)
    }
}

/// Where calls wait while held: ``pass()`` goes through at once while the door is open, and waits
/// for ``release()`` while it is held.
private final class Door: Sendable {
    private let state = Mutex((held: false, waiting: [CheckedContinuation<Void, Never>]()))

    /// Calls waiting at the door.
    var waiting: Int { state.withLock { $0.waiting.count } }
    func hold() { state.withLock { $0.held = true } }
    func release() {
        let waiting = state.withLock { state in
            state.held = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for call in waiting { call.resume() }
    }
    func pass() async {
        await withCheckedContinuation { continuation in
            let held = state.withLock { state in
                if state.held { state.waiting.append(continuation) }
                return state.held
            }
            if !held { continuation.resume() }
        }
    }
}
