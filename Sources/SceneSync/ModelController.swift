import Foundation
public import Logging

/// The single source of truth for one app, shared by all of its scenes.
///
/// Scenes send it intents through ``perform(origin:_:)``. It validates each against the current
/// state, gives its events the next sequence numbers, commits them with the state's record changes
/// in one transaction, and only then acknowledges the intent and broadcasts the events to every
/// subscriber. Intents that arrive while a commit is under way are committed together in the next
/// one (group commit); each is still acknowledged only after its own commit.
///
/// ```swift
/// let controller = try await ModelController<ItemsState>(app: "lootlogger", storage: storage, logger: logger)
/// try await controller.perform(origin: scene.session.id) { state in
///     guard let index = state.index(of: key) else { throw ItemStoreError.unknownItem(key) }
///     return [.itemRemoved(key: key, index: index)]
/// }
/// ```
public actor ModelController<State: ModelState> {
    /// Tuning for a model controller.
    public struct Options: Sendable {
        /// How many of the newest events the log keeps for subscribers to catch up from.
        public var logRetention: UInt64
        /// How many envelopes may wait unread for one live subscriber before the oldest are
        /// dropped and fetched again from the log.
        public var subscriberBufferLimit: Int
        /// The most intents committed in one transaction.
        public var maximumBatchSize: Int

        /// Creates options.
        public init(logRetention: UInt64 = 100_000, subscriberBufferLimit: Int = 1_024, maximumBatchSize: Int = 1_024) {
            self.logRetention = max(1, logRetention)
            self.subscriberBufferLimit = max(1, subscriberBufferLimit)
            self.maximumBatchSize = max(1, maximumBatchSize)
        }
    }

    /// The state and the sequence number of the last event it includes, read together.
    public struct Snapshot: Sendable {
        /// The committed state.
        public let state: State
        /// The last committed sequence number; subscribe after it to follow on from `state`.
        public let sequence: UInt64
    }

    /// The app's name, which keys its records and log in storage.
    public nonisolated let app: String
    /// The controller's options.
    public nonisolated let options: Options

    /// The committed state: what every subscriber has been, or is being, told.
    public private(set) var state: State
    /// The last committed sequence number.
    public private(set) var lastSequence: UInt64

    private let storage: any SceneSyncStorage
    private let logger: Logger
    private let broadcaster: Broadcaster<State.Event>
    private let encoder = JSONEncoder()
    /// The committed state plus every intent waiting for its commit: what new intents are checked against.
    private var pending: State
    private var lastAssigned: UInt64
    private var firstRetained: UInt64
    private var queue: [QueuedIntent] = []
    private var isCommitting = false
    private var isClosed = false
    private var commitWaiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []

    private struct QueuedIntent {
        let envelopes: [EventEnvelope<State.Event>]
        let stored: [StoredEvent]
        let changes: [EncodedRecordChange]
        let continuation: CheckedContinuation<[EventEnvelope<State.Event>], any Error>
    }

    /// Opens the app's model from storage.
    ///
    /// - Throws: whatever the storage throws, or ``StorageError/corruptRecord(collection:key:reason:)``.
    public init(app: String, storage: any SceneSyncStorage, options: Options = .init(), logger: Logger) async throws {
        let stored = try await storage.loadModel(app: app)
        let state = try State(records: stored.records)
        self.app = app
        self.options = options
        self.storage = storage
        self.logger = logger
        self.state = state
        self.pending = state
        self.lastSequence = stored.lastSequence
        self.lastAssigned = stored.lastSequence
        self.firstRetained = stored.firstRetainedSequence
        self.broadcaster = Broadcaster(lastPublished: stored.lastSequence)
    }

    /// The committed state and its sequence number, read at one instant.
    public func snapshot() -> Snapshot {
        Snapshot(state: state, sequence: lastSequence)
    }

    /// The app's events after `sequence`: from the log first, then live.
    ///
    /// Pass the ``Snapshot/sequence`` of a snapshot to follow on from it, or 0 for the whole log.
    public nonisolated func events(after sequence: UInt64) -> EventSubscription<State.Event> {
        EventSubscription(
            after: sequence,
            log: EventLogReader(app: app, storage: storage),
            broadcaster: broadcaster,
            bufferLimit: options.subscriberBufferLimit)
    }

    /// How many live subscriptions are registered.
    public nonisolated var subscriberCount: Int { broadcaster.subscriberCount }

    /// Runs an intent: `decide` checks it against the current state (including intents not yet
    /// committed) and returns the events it causes, or throws to refuse it.
    ///
    /// Returns once the events are committed, with their envelopes. A refused intent changes
    /// nothing and its error is rethrown as is. An intent that causes no events returns as soon as
    /// everything it may have read is committed.
    ///
    /// - Throws: the error `decide` throws; ``ModelControllerError/commitFailed(reason:)`` if the
    ///   transaction failed (nothing of it is kept); ``ModelControllerError/closed`` after ``close()``.
    @discardableResult
    public func perform(
        origin: SceneSession.ID?,
        _ decide: @Sendable (State) throws -> [State.Event]
    ) async throws -> [EventEnvelope<State.Event>] {
        guard !isClosed else { throw ModelControllerError.closed }
        let events = try decide(pending)
        guard !events.isEmpty else {
            await waitForCommit(of: lastAssigned)
            return []
        }
        let timestamp = Date()
        var envelopes: [EventEnvelope<State.Event>] = []
        var stored: [StoredEvent] = []
        do {
            for (offset, event) in events.enumerated() {
                let envelope = EventEnvelope(sequence: lastAssigned + UInt64(offset) + 1, origin: origin, timestamp: timestamp, event: event)
                envelopes.append(envelope)
                stored.append(StoredEvent(sequence: envelope.sequence, origin: origin, timestamp: timestamp, payload: try encoder.encode(event)))
            }
        } catch {
            throw ModelControllerError.unencodable(reason: "\(error)")
        }
        var changes: [EncodedRecordChange] = []
        do {
            for event in events {
                for change in pending.apply(event) {
                    changes.append(try encode(change))
                }
            }
        } catch {
            rebuildPending()
            throw ModelControllerError.unencodable(reason: "\(error)")
        }
        lastAssigned += UInt64(events.count)
        return try await withCheckedThrowingContinuation { continuation in
            queue.append(QueuedIntent(envelopes: envelopes, stored: stored, changes: changes, continuation: continuation))
            if !isCommitting {
                isCommitting = true
                Task { await self.commitQueued() }
            }
        }
    }

    /// Stops taking intents, waits for those already accepted to commit, and ends every subscription.
    public func close() async {
        isClosed = true
        await waitForCommit(of: lastAssigned)
        broadcaster.finish()
    }

    private func encode(_ change: RecordChange) throws -> EncodedRecordChange {
        switch change {
        case let .save(collection, key, value):
            EncodedRecordChange(collection: collection, key: key, value: try encoder.encode(value))
        case let .delete(collection, key):
            EncodedRecordChange(collection: collection, key: key, value: nil)
        }
    }

    /// Recomputes the pending state from the committed one and the intents still queued.
    private func rebuildPending() {
        pending = state
        for intent in queue {
            for envelope in intent.envelopes { _ = pending.apply(envelope.event) }
        }
    }

    private func waitForCommit(of sequence: UInt64) async {
        guard sequence > lastSequence else { return }
        await withCheckedContinuation { commitWaiters.append((sequence, $0)) }
    }

    private func commitQueued() async {
        while !queue.isEmpty {
            let count = min(queue.count, options.maximumBatchSize)
            let batch = Array(queue.prefix(count))
            queue.removeFirst(count)
            let batchLast = batch.last!.envelopes.last!.sequence
            let trimThrough = batchLast >= firstRetained + options.logRetention + options.logRetention / 8
                ? batchLast - options.logRetention : nil
            do {
                try await storage.commit(CommitBatch(
                    app: app,
                    events: batch.flatMap(\.stored),
                    changes: batch.flatMap(\.changes),
                    trimThrough: trimThrough))
            } catch {
                failQueued(batch, error: error)
                continue
            }
            for intent in batch {
                for envelope in intent.envelopes { _ = state.apply(envelope.event) }
            }
            lastSequence = batchLast
            if let trimThrough { firstRetained = trimThrough + 1 }
            broadcaster.publish(batch.flatMap(\.envelopes))
            for intent in batch { intent.continuation.resume(returning: intent.envelopes) }
            resumeCommitWaiters()
        }
        isCommitting = false
    }

    /// A failed commit fails its batch and every intent queued after it, which were checked
    /// against a state that now never existed.
    private func failQueued(_ batch: [QueuedIntent], error: any Error) {
        let failed = batch + queue
        queue = []
        pending = state
        lastAssigned = lastSequence
        logger.error("Commit failed; \(failed.count) intents refused", metadata: ["app": "\(app)", "error": "\(error)"])
        for intent in failed {
            intent.continuation.resume(throwing: ModelControllerError.commitFailed(reason: "\(error)"))
        }
        resumeCommitWaiters(all: true)
    }

    private func resumeCommitWaiters(all: Bool = false) {
        var waiting: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        for waiter in commitWaiters {
            if all || waiter.sequence <= lastSequence { waiter.continuation.resume() } else { waiting.append(waiter) }
        }
        commitWaiters = waiting
    }
}

/// Why a model controller did not carry out an intent that its app accepted.
public enum ModelControllerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The transaction did not commit; nothing of the intent was kept.
    case commitFailed(reason: String)
    /// An event or record could not be encoded; nothing of the intent was kept.
    case unencodable(reason: String)
    /// The controller was closed.
    case closed

    public var description: String {
        switch self {
        case let .commitFailed(reason): "The change could not be saved: \(reason)"
        case let .unencodable(reason): "The change could not be encoded: \(reason)"
        case .closed: "The model is closed."
        }
    }
}
