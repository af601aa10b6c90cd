public import Foundation

/// Where SceneSync keeps what must survive a restart: each app's records and event log, scene
/// sessions and per-scene drafts.
///
/// `SceneSyncSQLite` implements it on SQLite. Model controllers and the application talk to this
/// protocol only, so another database can take its place without changes to them.
public protocol SceneSyncStorage: Sendable {
    /// Loads an app's records and the state of its log.
    func loadModel(app: String) async throws -> StoredModel

    /// Commits a batch of intents' events and record changes in one transaction, with the
    /// windows' actions they were part of (``CommitBatch/actions``).
    ///
    /// Either everything in the batch is durable when this returns, or nothing is and it throws.
    func commit(_ batch: CommitBatch) async throws

    /// The sequence number of the first event committed as part of `action`, or `nil` if no intent
    /// of it was committed (or its record went with its session or with the log's trimmed part).
    func committedAction(_ action: SceneActionID) async throws -> UInt64?

    /// The app's logged events with sequence numbers after `sequence`, in order, at most `limit`.
    /// Events trimmed by retention are missing: the caller compares the first sequence number.
    func events(app: String, after sequence: UInt64, limit: Int) async throws -> [StoredEvent]

    /// Where the app's log has got to, each time another writer (another node on the same
    /// database) may have committed to it: a hint to read the log after the last sequence number
    /// the caller knows. Values may come late, repeat, or skip numbers; the log itself is the
    /// truth. The stream ends when the storage closes or when its iterating task is cancelled.
    ///
    /// `nil` if this storage cannot hear other writers: then its model controllers assume that
    /// they are the log's only writer, and learn of another one only when a commit of theirs is
    /// refused with ``StorageError/sequenceConflict(app:expected:got:)``. SQLite says `nil`: its
    /// file belongs to one `scenesync` process.
    func logHeads(app: String) -> AsyncStream<UInt64>?

    /// What the nodes sharing this storage tell each other beyond the log, or `nil` if the storage
    /// belongs to one process (SQLite): then transient events, app services, connected windows and
    /// "Open in New Window" requests are this process's alone.
    var cluster: (any SceneSyncCluster)? { get }

    /// Inserts or replaces a scene session.
    func saveSession(_ session: SceneSession) async throws

    /// The session with `id`, if it has not been discarded.
    func session(id: SceneSession.ID) async throws -> SceneSession?

    /// Every session that has not been discarded.
    func allSessions() async throws -> [SceneSession]

    /// Marks sessions whose windows were closed while no application was running to discard them;
    /// the next launch reports and discards them.
    func markSessionsClosed(_ ids: [SceneSession.ID], at date: Date) async throws

    /// Deletes sessions and everything that belongs to them alone (their drafts and the record of
    /// their committed actions), in one transaction.
    func deleteSessions(_ ids: [SceneSession.ID]) async throws

    /// The drafts saved for one session, by key.
    func drafts(session: SceneSession.ID) async throws -> [String: Data]

    /// Saves (or, with `nil`, deletes) one draft of a session.
    func setDraft(_ value: Data?, key: String, session: SceneSession.ID) async throws

    /// Records whether an application runs on this storage now, durably, and returns what was
    /// recorded before. `true` when an application starts means the last run ended without
    /// stopping: a crash, `kill -9`, a power loss.
    func setRunning(_ running: Bool) async throws -> Bool

    /// Whether a model controller waits, briefly, to fill a commit as full as the last one (see
    /// ``CommitGathering``); `nil`, the default, commits what waits at once. A storage that wraps
    /// another forwards the other's.
    var commitGathering: CommitGathering? { get }
}

extension SceneSyncStorage {
    /// `nil`: commits go at once.
    public var commitGathering: CommitGathering? { nil }
}

/// Waiting, briefly, for a commit to be as full as the last one, on a storage whose commit costs
/// much whatever it holds: a round trip to a database server, and its work per transaction.
///
/// Writers whose intents were committed together are answered together, and come back together
/// with their next ones. A model controller commits what waits the moment the last commit ends,
/// so those that came back first go alone, the others form the next commit, and from then on the
/// writers commit in groups, in turn, each group paying the commit's fixed cost. With gathering,
/// when a commit ends and fewer intents wait than it held, the next commit waits until as many
/// wait, or ``maximumWait`` has passed. A commit that held fewer than ``minimumBatch`` (a few
/// writers at a time) never makes the next one wait.
///
/// On SQLite, whose commits are short and in process, groups in turn do better: its storage
/// does not gather. `SceneSyncPostgres` does.
public struct CommitGathering: Sendable, Hashable {
    /// The longest a commit waits for intents; not less than zero.
    public let maximumWait: Duration
    /// The fewest intents a commit must have held for the next one to wait; at least 2.
    public let minimumBatch: Int

    /// Gathering with the given bounds: by default at most a millisecond, after a commit of at
    /// least 8 intents. A negative wait is taken as zero (no wait), a smallest batch below 2 as 2.
    public init(maximumWait: Duration = .milliseconds(1), minimumBatch: Int = 8) {
        self.maximumWait = max(.zero, maximumWait)
        self.minimumBatch = max(2, minimumBatch)
    }
}

/// An app's stored state as ``SceneSyncStorage/loadModel(app:)`` returns it.
public struct StoredModel: Sendable {
    /// The app's records.
    public var records: RecordSet
    /// The last sequence number the app ever used; 0 if none.
    public var lastSequence: UInt64
    /// The oldest sequence number still in the log; `lastSequence + 1` if the log is empty.
    public var firstRetainedSequence: UInt64

    /// Creates a stored model.
    public init(records: RecordSet, lastSequence: UInt64, firstRetainedSequence: UInt64) {
        self.records = records
        self.lastSequence = lastSequence
        self.firstRetainedSequence = firstRetainedSequence
    }
}

/// One logged event, encoded.
public struct StoredEvent: Sendable, Equatable {
    /// The event's sequence number.
    public let sequence: UInt64
    /// The scene that caused it, if any.
    public let origin: SceneSession.ID?
    /// When it was committed.
    public let timestamp: Date
    /// The event as JSON.
    public let payload: Data

    /// Creates a stored event.
    public init(sequence: UInt64, origin: SceneSession.ID?, timestamp: Date, payload: Data) {
        self.sequence = sequence
        self.origin = origin
        self.timestamp = timestamp
        self.payload = payload
    }
}

/// What one group commit writes for an app.
public struct CommitBatch: Sendable {
    /// The app.
    public let app: String
    /// The events to append, in sequence order, without gaps after the app's last sequence number.
    public let events: [StoredEvent]
    /// The record changes, in the order they were made.
    public let changes: [EncodedRecordChange]
    /// If set, log entries with sequence numbers up to and including this one are deleted, and
    /// with them the record of the actions committed in them.
    public let trimThrough: UInt64?
    /// The windows' actions the batch's intents were part of, each once, with the first sequence
    /// number committed for it; kept for ``SceneSyncStorage/committedAction(_:)``. An action
    /// recorded already by an earlier batch of the same attempt keeps its first record; one
    /// recorded by another attempt, when either attempt was sent again, refuses the whole batch
    /// with ``StorageError/actionsCommitted(app:actions:)``.
    public let actions: [CommittedAction]

    /// Creates a batch.
    public init(
        app: String, events: [StoredEvent], changes: [EncodedRecordChange], trimThrough: UInt64?, actions: [CommittedAction] = []
    ) {
        self.app = app
        self.events = events
        self.changes = changes
        self.trimThrough = trimThrough
        self.actions = actions
    }
}

/// A failure inside a storage implementation.
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A batch's first sequence number does not follow the app's last one: another writer got
    /// there first, or the batch was built from stale state. Nothing was written.
    case sequenceConflict(app: String, expected: UInt64, got: UInt64)
    /// Actions of the batch were committed already by another attempt at carrying them out
    /// (another node ran the same window action): the batch, which would do them twice, is
    /// refused, and nothing was written.
    case actionsCommitted(app: String, actions: [SceneActionID])
    /// A stored record could not be decoded.
    case corruptRecord(collection: String, key: String, reason: String)
    /// A stored session could not be decoded.
    case corruptSession(id: String, reason: String)

    public var description: String {
        switch self {
        case let .sequenceConflict(app, expected, got):
            "The \(app) log expected event \(expected) next but was given \(got)."
        case let .actionsCommitted(app, actions):
            "The \(app) log holds \(actions.map(\.description).joined(separator: ", ")) already, committed by another attempt."
        case let .corruptRecord(collection, key, reason):
            "The stored record \(collection)/\(key) could not be read: \(reason)"
        case let .corruptSession(id, reason):
            "The stored scene session \(id) could not be read: \(reason)"
        }
    }
}
