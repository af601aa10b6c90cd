import Foundation
import Synchronization
public import Logging

/// The single source of truth for one app, shared by all of its scenes.
///
/// Scenes send it intents through ``perform(origin:_:)``. It validates each against the current
/// state, gives its events the next sequence numbers, commits them with the state's record changes
/// in one transaction, and only then acknowledges the intent and broadcasts the events to every
/// subscriber. Intents that arrive while a commit is under way are committed together in the next
/// one (group commit); each is still acknowledged only after its own commit. Only checking and
/// numbering happen on the actor: encoding, the costliest step, happens on the sender's task, so
/// that on several cores the actor goes on checking intents meanwhile.
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
    private let transientBroadcaster = LiveSubscribers<TransientEnvelope<State.Transient>, Void>(mark: ())
    /// Shared by every sender's task: `JSONEncoder` is thread-safe, and making one per intent costs
    /// allocations for nothing.
    private let encoder = JSONEncoder()
    /// The committed state plus every intent waiting for its commit: what new intents are checked against.
    private var pending: State
    private var lastAssigned: UInt64
    private var firstRetained: UInt64
    private var queue: [AcceptedIntent<State.Event>] = []
    private var isCommitting = false
    private var isClosed = false
    private var commitWaiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []

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
        self.broadcaster = Broadcaster(mark: stored.lastSequence)
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

    /// The app's transient events from now on, as they are announced with ``announce(origin:_:)``.
    ///
    /// Nothing announced before the call is delivered, nor replayed after a reconnection. The
    /// stream ends when the controller closes, or when its iterating task is cancelled.
    public nonisolated func transients() -> AsyncStream<TransientEnvelope<State.Transient>> {
        transientBroadcaster.subscribe(bufferLimit: options.subscriberBufferLimit).stream
    }

    /// How many live subscriptions to transient events are registered.
    public nonisolated var transientSubscriberCount: Int { transientBroadcaster.subscriberCount }

    /// Announces transient events to every subscriber of ``transients()`` at once: `decide` checks
    /// the intent against the current state (including intents not yet committed) and returns the
    /// events, or throws to refuse it.
    ///
    /// Transient events are for what matters only while it happens, such as "Ana is typing". They
    /// are not logged, change no state, take no sequence number and wait for no commit.
    ///
    /// - Throws: the error `decide` throws; ``ModelControllerError/closed`` after ``close()``.
    public func announce(origin: SceneSession.ID?, _ decide: (State) throws -> [State.Transient]) throws {
        guard !isClosed else { throw ModelControllerError.closed }
        let events = try decide(pending)
        let timestamp = Date()
        transientBroadcaster.publish(events.map { TransientEnvelope(origin: origin, timestamp: timestamp, event: $0) })
    }

    /// Runs an intent: `decide` checks it against the current state (including intents not yet
    /// committed) and returns the events it causes, or throws to refuse it.
    ///
    /// Returns once the events are committed, with their envelopes. A refused intent changes
    /// nothing and its error is rethrown as is. An intent that causes no events returns as soon as
    /// everything it may have read is committed.
    ///
    /// - Throws: the error `decide` throws; ``ModelControllerError/commitFailed(reason:)`` if the
    ///   transaction failed, or ``ModelControllerError/unencodable(reason:)`` if an event or record
    ///   of its batch could not be encoded (either way nothing is kept of the intent, nor of any
    ///   intent checked after it); ``ModelControllerError/closed`` after ``close()``.
    @discardableResult @concurrent
    public nonisolated func perform(
        origin: SceneSession.ID?,
        _ decide: @Sendable (State) throws -> [State.Event]
    ) async throws -> [EventEnvelope<State.Event>] {
        guard let intent = try await accept(origin: origin, decide) else { return [] }
        // Encoding is most of an intent's CPU time. Done here, on the sender's task, it runs on any
        // core while the actor goes on checking other intents, instead of queueing on the actor.
        intent.encodeUnlessClaimed(with: encoder)
        if let error = await intent.outcome.value { throw error }
        return intent.envelopes
    }

    /// Stops taking intents, waits for those already accepted to commit, and ends every subscription.
    public func close() async {
        isClosed = true
        await waitForCommit(of: lastAssigned)
        broadcaster.finish()
        transientBroadcaster.finish()
    }

    /// Checks an intent and queues it for the next commit; `nil` if it caused no events, once
    /// everything it may have read is committed.
    private func accept(
        origin: SceneSession.ID?,
        _ decide: @Sendable (State) throws -> [State.Event]
    ) async throws -> AcceptedIntent<State.Event>? {
        guard !isClosed else { throw ModelControllerError.closed }
        let events = try decide(pending)
        guard !events.isEmpty else {
            await waitForCommit(of: lastAssigned)
            return nil
        }
        let timestamp = Date()
        var envelopes: [EventEnvelope<State.Event>] = []
        var changes: [RecordChange] = []
        for event in events {
            lastAssigned += 1
            envelopes.append(EventEnvelope(sequence: lastAssigned, origin: origin, timestamp: timestamp, event: event))
            changes += pending.apply(event)
        }
        let intent = AcceptedIntent(envelopes: envelopes, changes: changes)
        queue.append(intent)
        if !isCommitting {
            isCommitting = true
            // Every sender waits on this loop, so it must not queue behind their jobs, on the
            // actor or on the global executor.
            Task(priority: .high) { await self.commitQueued() }
        }
        return intent
    }

    private func waitForCommit(of sequence: UInt64) async {
        guard sequence > lastSequence else { return }
        await withCheckedContinuation { commitWaiters.append((sequence, $0)) }
    }

    private func commitQueued() async {
        while !queue.isEmpty {
            let batch = Array(queue.prefix(options.maximumBatchSize))
            queue.removeFirst(batch.count)
            let batchLast = batch[batch.count - 1].lastSequence
            let trimThrough = batchLast >= firstRetained + options.logRetention + options.logRetention / 8
                ? batchLast - options.logRetention : nil
            do {
                try await Self.commit(batch, app: app, trimThrough: trimThrough, storage: storage, encoder: encoder)
            } catch {
                failQueued(batch, error: error)
                continue
            }
            var envelopes: [EventEnvelope<State.Event>] = []
            for intent in batch {
                for envelope in intent.envelopes { _ = state.apply(envelope.event) }
                envelopes += intent.envelopes
            }
            lastSequence = batchLast
            if let trimThrough { firstRetained = trimThrough + 1 }
            broadcaster.publish(envelopes)
            for intent in batch { intent.outcome.give(nil) }
            resumeCommitWaiters()
        }
        isCommitting = false
    }

    /// Commits the batch in one transaction, off the actor, which meanwhile goes on checking the
    /// next intents. Intents whose senders have not started encoding them yet are encoded here
    /// rather than waited for, so a sender that is slow to be scheduled holds up no one else.
    @concurrent
    private nonisolated static func commit(
        _ batch: [AcceptedIntent<State.Event>], app: String, trimThrough: UInt64?,
        storage: any SceneSyncStorage, encoder: JSONEncoder
    ) async throws(ModelControllerError) {
        var events: [StoredEvent] = []
        var changes: [EncodedRecordChange] = []
        for intent in batch {
            intent.encodeUnlessClaimed(with: encoder)
            let encoded = try await intent.encoded.value.get()
            events += encoded.events
            changes += encoded.changes
        }
        do {
            try await storage.commit(CommitBatch(app: app, events: events, changes: changes, trimThrough: trimThrough))
        } catch {
            throw .commitFailed(reason: "\(error)")
        }
    }

    /// A failed batch fails every intent queued after it too, which were checked against a state
    /// that now never existed.
    private func failQueued(_ batch: [AcceptedIntent<State.Event>], error: ModelControllerError) {
        let failed = batch + queue
        queue = []
        pending = state
        lastAssigned = lastSequence
        logger.error("Commit failed; \(failed.count) intents refused", metadata: ["app": "\(app)", "error": "\(error)"])
        for intent in failed { intent.outcome.give(error) }
        resumeCommitWaiters(all: true)
    }

    private func resumeCommitWaiters(all: Bool = false) {
        guard !commitWaiters.isEmpty else { return }
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

/// An intent that a model controller accepted, from its acceptance to its acknowledgement: its
/// sender or the commit encodes it, whichever comes first, and the commit gives the outcome, which
/// wakes the sender.
private final class AcceptedIntent<Event: UpdateEvent>: Sendable {
    let envelopes: [EventEnvelope<Event>]
    let changes: [RecordChange]
    let encoded = Handoff<Result<(events: [StoredEvent], changes: [EncodedRecordChange]), ModelControllerError>>()
    /// `nil` once the intent is committed, or why it was refused.
    let outcome = Handoff<ModelControllerError?>()
    private let claimed = Atomic(false)

    init(envelopes: [EventEnvelope<Event>], changes: [RecordChange]) {
        self.envelopes = envelopes
        self.changes = changes
    }

    var lastSequence: UInt64 { envelopes[envelopes.count - 1].sequence }

    /// Encodes the events and record changes and gives them to `encoded`, unless another task
    /// has already started to.
    func encodeUnlessClaimed(with encoder: JSONEncoder) {
        guard claimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        do {
            let events = try envelopes.map { envelope in
                StoredEvent(sequence: envelope.sequence, origin: envelope.origin, timestamp: envelope.timestamp,
                            payload: try encoder.encode(envelope.event))
            }
            let records = try changes.map { change in
                switch change {
                case let .save(collection, key, value):
                    EncodedRecordChange(collection: collection, key: key, value: try encoder.encode(value))
                case let .delete(collection, key):
                    EncodedRecordChange(collection: collection, key: key, value: nil)
                }
            }
            encoded.give(.success((events, records)))
        } catch {
            encoded.give(.failure(.unencodable(reason: "\(error)")))
        }
    }
}

/// A value one task gives another, which may start waiting for it before it is there.
private final class Handoff<Value: Sendable>: Sendable {
    private let slot = Mutex<(value: Value?, waiter: CheckedContinuation<Value, Never>?)>((nil, nil))

    /// Gives the value, once, and wakes the task waiting for it, if any.
    func give(_ value: Value) {
        let waiter = slot.withLock { slot in
            slot.value = value
            return slot.waiter.take()
        }
        waiter?.resume(returning: value)
    }

    /// The value, once given.
    var value: Value {
        get async {
            if let value = slot.withLock({ $0.value }) { return value }
            return await withCheckedContinuation { continuation in
                let value = slot.withLock { slot in
                    if slot.value == nil { slot.waiter = continuation }
                    return slot.value
                }
                if let value { continuation.resume(returning: value) }
            }
        }
    }
}
