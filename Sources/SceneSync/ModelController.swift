import Foundation
import Synchronization
public import Logging

/// The single source of truth for one app, shared by all of its scenes.
///
/// Scenes send it intents through ``perform(origin:_:)``. It validates each against the current
/// state, gives its events the next sequence numbers, commits them with the state's record changes
/// in one transaction, and only then acknowledges the intent and broadcasts the events to every
/// subscriber. Intents that arrive while a commit is under way are committed together in the next
/// one (group commit); each is still acknowledged only after its own commit. On a storage that
/// gathers (``SceneSyncStorage/commitGathering``), a commit may first wait, briefly, until it is
/// as full as the last one. Only checking and
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
    /// The last committed sequence number: of this controller's commits and of those it has
    /// followed from other writers of the log.
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
    private var queue: [AcceptedIntent<State>] = []
    /// The storage's ``CommitGathering``, how many intents the last commit held, and the commit
    /// waiting to be as full, with its timeout's round.
    private let gatheringPolicy: CommitGathering?
    private var lastBatchCount = 0
    private var gathering: (target: Int, round: Int, resume: CheckedContinuation<Void, Never>)?
    private var gatheringRound = 0
    /// Whether the task that commits queued intents and follows the log is running.
    private var isWorking = false
    private var isClosed = false
    /// The newest sequence number the log is known to have reached, from another writer's commit
    /// heard through the storage or from a refused commit of ours.
    private var knownHead: UInt64
    private var followTask: Task<Void, Never>?
    /// Transient events announced here, encoded, on their way to the other nodes; `nil` if the
    /// storage has no other nodes.
    private var transientsOut: AsyncStream<Data>.Continuation?
    private var transientTasks: [Task<Void, Never>] = []
    private var commitWaiters: [(sequence: UInt64, resume: @Sendable () -> Void)] = []
    /// Waiting for the working task to finish, while closing.
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// What commits and followed events are told to, if anything (see ``ModelControllerRecording``).
    private let recorder: (any ModelControllerRecorder)?

    /// Opens the app's model from storage, and follows the commits of other writers of its log
    /// (other nodes on the same database) if the storage can hear them.
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
        self.knownHead = stored.lastSequence
        self.firstRetained = stored.firstRetainedSequence
        self.broadcaster = Broadcaster(mark: stored.lastSequence)
        self.recorder = ModelControllerRecording.makeRecorder?(app)
        self.gatheringPolicy = storage.commitGathering
        if let heads = storage.logHeads(app: app) {
            followTask = Task { [weak self] in
                for await head in heads {
                    guard let self else { return }
                    await self.heard(head: head)
                }
            }
        }
        if let cluster = storage.cluster { relayTransients(through: cluster) }
    }

    /// Sends the transient events announced here to the other nodes, one at a time in order, and
    /// publishes theirs here.
    private func relayTransients(through cluster: any SceneSyncCluster) {
        let (outbound, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(256))
        transientsOut = continuation
        let inbound = cluster.transients(app: app)
        let (app, logger, broadcaster) = (app, logger, transientBroadcaster)
        transientTasks = [
            Task {
                for await payload in outbound {
                    do {
                        try await cluster.sendTransient(payload, app: app)
                    } catch {
                        logger.warning("Could not send a transient event to the other nodes",
                                       metadata: ["app": "\(app)", "error": "\(error)"])
                    }
                }
            },
            Task {
                let decoder = JSONDecoder()
                for await payload in inbound {
                    do {
                        broadcaster.publish(try decoder.decode([TransientEnvelope<State.Transient>].self, from: payload))
                    } catch {
                        logger.warning("Ignored a transient event from another node that could not be read",
                                       metadata: ["app": "\(app)", "error": "\(error)"])
                    }
                }
            },
        ]
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
    /// are not logged, change no state, take no sequence number and wait for no commit. On a
    /// storage shared by nodes they also reach the subscribers on other nodes, through its
    /// ``SceneSyncStorage/cluster``, a moment later.
    ///
    /// - Throws: the error `decide` throws; ``ModelControllerError/closed`` after ``close()``.
    public func announce(origin: SceneSession.ID?, _ decide: (State) throws -> [State.Transient]) throws {
        guard !isClosed else { throw ModelControllerError.closed }
        let events = try decide(pending)
        guard !events.isEmpty else { return }
        let timestamp = Date()
        let envelopes = events.map { TransientEnvelope(origin: origin, timestamp: timestamp, event: $0) }
        transientBroadcaster.publish(envelopes)
        guard let transientsOut else { return }
        do {
            transientsOut.yield(try encoder.encode(envelopes))
        } catch {
            logger.warning("Could not encode a transient event for the other nodes", metadata: ["app": "\(app)", "error": "\(error)"])
        }
    }

    /// Runs an intent: `decide` checks it against the current state (including intents not yet
    /// committed) and returns the events it causes, or throws to refuse it.
    ///
    /// Returns once the events are committed, with their envelopes. A refused intent changes
    /// nothing and its error is rethrown as is. An intent that causes no events returns as soon as
    /// everything it may have read is committed.
    ///
    /// When another writer of the log (another node) committed first, the controller reads what it
    /// committed, and checks the intent again against the state that includes it: `decide` may so
    /// run more than once, and its last answer counts. Two nodes removing the same item give one
    /// success and one refusal, with the error `decide` throws the second time.
    ///
    /// Performed while a window's action runs (``SceneActionID/current`` is set), the intent is
    /// committed with that action, so that the action sent again is not carried out twice: when
    /// another attempt at the same action (another node's) committed first, the intent is not
    /// kept and fails with ``ModelControllerError/carriedOutElsewhere(_:)``.
    ///
    /// - Throws: the error `decide` throws; ``ModelControllerError/commitFailed(reason:)`` if the
    ///   transaction failed, or ``ModelControllerError/unencodable(reason:)`` if an event or record
    ///   of its batch could not be encoded (either way nothing is kept of the intent, nor of any
    ///   intent checked after it); ``ModelControllerError/closed`` after ``close()``.
    @discardableResult @concurrent
    public nonisolated func perform(
        origin: SceneSession.ID?,
        _ decide: @escaping @Sendable (State) throws -> [State.Event]
    ) async throws -> [EventEnvelope<State.Event>] {
        guard let intent = try await accept(origin: origin, attempt: ActionAttempt.current, decide) else { return [] }
        // Encoding is most of an intent's CPU time. Done here, on the sender's task, it runs on any
        // core while the actor goes on checking other intents, instead of queueing on the actor.
        intent.encodeUnlessClaimed(fallback: encoder)
        return try await intent.sender.outcome.value.get()
    }

    /// Reads the log up to where it is now, applying and publishing what other writers committed:
    /// what a controller does by itself when its storage tells it of their commits. Call it on a
    /// storage that cannot hear other writers (``SceneSyncStorage/logHeads(app:)`` is `nil`) to
    /// pick up their commits now rather than at the next refused commit.
    ///
    /// - Throws: ``ModelControllerError/commitFailed(reason:)`` if the log could not be read.
    public func catchUp() async throws {
        let next: UInt64
        do {
            guard let first = try await storage.events(app: app, after: lastSequence, limit: 1).first else { return }
            next = first.sequence
        } catch {
            throw ModelControllerError.commitFailed(reason: "the log could not be read: \(error)")
        }
        heard(head: next)
        await waitForCommit(of: next)
        if lastSequence < next { throw ModelControllerError.commitFailed(reason: "the log could not be read to \(next)") }
    }

    /// Stops taking intents, waits for those already accepted to commit, stops following the log,
    /// and ends every subscription.
    public func close() async {
        isClosed = true
        endGathering()
        followTask?.cancel()
        followTask = nil
        transientsOut?.finish()
        transientsOut = nil
        // Transient events may be lost: what waits to be sent is dropped.
        for task in transientTasks { task.cancel() }
        for task in transientTasks { await task.value }
        transientTasks = []
        if isWorking { await withCheckedContinuation { idleWaiters.append($0) } }
        broadcaster.finish()
        transientBroadcaster.finish()
    }

    /// Another writer moved the log's head to `head`: read what this controller has not seen.
    private func heard(head: UInt64) {
        guard head > knownHead else { return }
        knownHead = head
        guard head > lastSequence else { return }
        // A commit waiting to be fuller would be refused: the log is read first.
        endGathering()
        startWorking()
    }

    /// Checks an intent and queues it for the next commit; `nil` if it caused no events, once
    /// everything it may have read is committed.
    private func accept(
        origin: SceneSession.ID?, attempt: ActionAttempt?,
        _ decide: @escaping @Sendable (State) throws -> [State.Event]
    ) async throws -> AcceptedIntent<State>? {
        guard !isClosed else { throw ModelControllerError.closed }
        let events = try decide(pending)
        guard !events.isEmpty else {
            await waitForCommit(of: lastAssigned)
            return nil
        }
        let intent = number(AcceptedIntent.Sender(origin: origin, attempt: attempt, decide: decide), events: events)
        queue.append(intent)
        if let gathering, queue.count >= gathering.target { endGathering() }
        startWorking()
        return intent
    }

    /// Gives `events` the next sequence numbers and applies them to the pending state.
    private func number(_ sender: AcceptedIntent<State>.Sender, events: [State.Event]) -> AcceptedIntent<State> {
        let timestamp = Date()
        var envelopes: [EventEnvelope<State.Event>] = []
        var changes: [RecordChange] = []
        envelopes.reserveCapacity(events.count)
        for event in events {
            lastAssigned += 1
            envelopes.append(EventEnvelope(sequence: lastAssigned, origin: sender.origin, timestamp: timestamp, event: event))
            changes += pending.apply(event)
        }
        return AcceptedIntent(sender: sender, envelopes: envelopes, changes: changes)
    }

    private func startWorking() {
        guard !isWorking else { return }
        isWorking = true
        // Every sender waits on this loop, so it must not queue behind their jobs, on the
        // actor or on the global executor.
        Task(priority: .high) { await self.work() }
    }

    private func waitForCommit(of sequence: UInt64) async {
        guard sequence > lastSequence else { return }
        await withCheckedContinuation { continuation in
            commitWaiters.append((sequence, { continuation.resume() }))
        }
    }

    /// Follows the log while another writer is ahead, and commits queued intents in batches, one
    /// transaction at a time.
    private func work() async {
        while true {
            if knownHead > lastSequence {
                await followLog()
                continue
            }
            guard !queue.isEmpty else { break }
            await gather()
            // Another writer committed meanwhile: the log is read first, then the batch checked again.
            if knownHead > lastSequence { continue }
            let batch = Array(queue.prefix(options.maximumBatchSize))
            queue.removeFirst(batch.count)
            // Only writers answered together come back together: a batch that failed or was
            // checked again makes the next commit wait for no one.
            lastBatchCount = 0
            let batchLast = batch[batch.count - 1].lastSequence
            let trimThrough = batchLast >= firstRetained + options.logRetention + options.logRetention / 8
                ? batchLast - options.logRetention : nil
            let commitStart = ContinuousClock.now
            do {
                try await Self.commit(batch, app: app, trimThrough: trimThrough, storage: storage, encoder: encoder)
                recorder?.committed(intents: batch.count, duration: ContinuousClock.now - commitStart)
                lastBatchCount = batch.count
            } catch {
                switch error {
                case let .conflict(head) where head > lastSequence:
                    // Another writer committed first: read what it did, then check the batch again.
                    logger.debug("Another writer committed first; following the log", metadata: [
                        "app": "\(app)", "head": "\(head)", "intents": "\(batch.count)"])
                    queue.insert(contentsOf: batch, at: 0)
                    knownHead = max(knownHead, head)
                case let .actionsCommitted(actions):
                    dropCarriedOutElsewhere(actions, from: batch)
                case let .conflict(head):
                    failQueued(batch, error: .commitFailed(
                        reason: "the log's head, \(head), is not past this controller's, \(lastSequence)"))
                case let .failed(error):
                    failQueued(batch, error: error)
                }
                continue
            }
            var envelopes: [EventEnvelope<State.Event>] = []
            for intent in batch {
                for envelope in intent.envelopes { _ = state.apply(envelope.event) }
                envelopes += intent.envelopes
            }
            lastSequence = batchLast
            knownHead = max(knownHead, batchLast)
            if let trimThrough { firstRetained = max(firstRetained, trimThrough + 1) }
            broadcaster.publish(envelopes)
            if let recorder, let last = envelopes.last { recorder.published(lastSequence: last.sequence, timestamp: last.timestamp) }
            for intent in batch { intent.sender.outcome.give(.success(intent.envelopes)) }
            resumeCommitWaiters()
        }
        isWorking = false
        resumeCommitWaiters()
        for waiter in idleWaiters { waiter.resume() }
        idleWaiters = []
    }

    /// Waits, within the storage's ``CommitGathering``, until as many intents wait as the last
    /// commit held.
    private func gather() async {
        guard let policy = gatheringPolicy, lastBatchCount >= policy.minimumBatch, !isClosed, knownHead <= lastSequence else { return }
        let target = min(lastBatchCount, options.maximumBatchSize)
        guard target > queue.count, policy.maximumWait > .zero else { return }
        gatheringRound += 1
        let round = gatheringRound
        let timeout = Task { [weak self] in
            do { try await Task.sleep(for: policy.maximumWait) } catch { return }
            await self?.endGathering(round: round)
        }
        await withCheckedContinuation { gathering = (target, round, $0) }
        timeout.cancel()
    }

    /// Whether a commit waits to be fuller now (for tests).
    var isGathering: Bool { gathering != nil }

    /// Lets the commit waiting to be fuller go (the one of `round` only, if given).
    private func endGathering(round: Int? = nil) {
        guard let waiting = gathering, round == nil || waiting.round == round else { return }
        gathering = nil
        waiting.resume.resume()
    }

    /// Reads what other writers committed after ``lastSequence``, applies it to the state and
    /// publishes it with its origin, then checks every queued intent again against the new state.
    private func followLog() async {
        let heardBefore = knownHead
        do {
            var reachedEnd = false
            while !reachedEnd {
                let page = try await Self.readLog(after: lastSequence, from: EventLogReader(app: app, storage: storage))
                reachedEnd = page.reachedEnd
                guard let first = page.envelopes.first else { break }
                if first.sequence != lastSequence + 1 {
                    // The log no longer holds what this controller missed: start again from the records.
                    try await reload()
                    break
                }
                for envelope in page.envelopes { _ = state.apply(envelope.event) }
                lastSequence = page.envelopes[page.envelopes.count - 1].sequence
                broadcaster.publish(page.envelopes)
                if let recorder {
                    let now = Date()
                    for envelope in page.envelopes {
                        recorder.followed(lag: .seconds(max(0, now.timeIntervalSince(envelope.timestamp))))
                    }
                }
            }
        } catch {
            logger.error("Could not follow the log; intents queued meanwhile are refused", metadata: [
                "app": "\(app)", "error": "\(error)"])
            knownHead = lastSequence
            failQueued([], error: .commitFailed(reason: "the log could not be read: \(error)"))
            return
        }
        knownHead = max(knownHead, lastSequence)
        if knownHead > lastSequence, knownHead == heardBefore {
            // A hint heard before the read and not reached by it is ahead of the log itself:
            // wait for the next hint (or the storage's poll) rather than spin. A hint heard while
            // the log was being read is kept: its commit may have come after the read, and
            // ``work()`` reads again.
            knownHead = lastSequence
        }
        recheckQueued()
        resumeCommitWaiters()
    }

    /// Loads the state from the records again, when the log no longer holds what this controller
    /// missed. Subscribers that were behind find a gap and are told their subscription is too old.
    private func reload() async throws {
        let stored = try await storage.loadModel(app: app)
        state = try State(records: stored.records)
        lastSequence = stored.lastSequence
        firstRetained = stored.firstRetainedSequence
        broadcaster.setMark(stored.lastSequence)
        logger.warning("Reloaded the model: the log no longer held the events this node missed", metadata: [
            "app": "\(app)", "sequence": "\(stored.lastSequence)"])
    }

    /// Checks every queued intent again, in order, against the committed state: after another
    /// writer's commits, their checks may now refuse them, and their numbers must follow the log.
    private func recheckQueued() {
        let waiting = queue
        queue = []
        // Checked again, the queue goes in the next commit without waiting to be fuller.
        lastBatchCount = 0
        pending = state
        lastAssigned = lastSequence
        for intent in waiting {
            let sender = intent.sender
            let events: [State.Event]
            do {
                events = try sender.decide(pending)
            } catch {
                sender.outcome.give(.failure(error))
                continue
            }
            if events.isEmpty {
                // It now changes nothing: answered once what it read is committed.
                if lastAssigned <= lastSequence {
                    sender.outcome.give(.success([]))
                } else {
                    commitWaiters.append((lastAssigned, { sender.outcome.give(.success([])) }))
                }
                continue
            }
            queue.append(number(sender, events: events))
        }
    }

    /// A page of the log after `sequence`, decoded off the actor.
    @concurrent
    private nonisolated static func readLog(
        after sequence: UInt64, from log: EventLogReader<State.Event>
    ) async throws -> (envelopes: [EventEnvelope<State.Event>], reachedEnd: Bool) {
        try await log.page(after: sequence)
    }

    /// Refuses the intents of actions another attempt committed first, in the batch and queued
    /// after it, and checks the others again: they were checked against a state that held the
    /// refused ones.
    private func dropCarriedOutElsewhere(_ actions: Set<SceneActionID>, from batch: [AcceptedIntent<State>]) {
        var kept: [AcceptedIntent<State>] = []
        var refused: [(intent: AcceptedIntent<State>, attempt: ActionAttempt)] = []
        for intent in batch + queue {
            if let attempt = intent.sender.attempt, actions.contains(attempt.action) {
                refused.append((intent, attempt))
            } else {
                kept.append(intent)
            }
        }
        guard !refused.isEmpty else {
            // The storage named actions the batch does not hold: committing again would be refused again.
            failQueued(batch, error: .commitFailed(reason: "the log refused actions the batch does not hold: \(actions)"))
            return
        }
        logger.notice("Another attempt committed these actions first; their intents are not kept", metadata: [
            "app": "\(app)", "actions": "\(actions.map(\.description).sorted())", "intents": "\(refused.count)"])
        for (intent, attempt) in refused {
            attempt.carriedOutElsewhere()
            intent.sender.outcome.give(.failure(ModelControllerError.carriedOutElsewhere(attempt.action)))
        }
        queue = kept
        recheckQueued()
        resumeCommitWaiters()
    }

    /// A failed batch fails every intent queued after it too, which were checked against a state
    /// that now never existed.
    private func failQueued(_ batch: [AcceptedIntent<State>], error: ModelControllerError) {
        let failed = batch + queue
        queue = []
        pending = state
        lastAssigned = lastSequence
        if !failed.isEmpty {
            logger.error("Commit failed; \(failed.count) intents refused", metadata: ["app": "\(app)", "error": "\(error)"])
        }
        for intent in failed { intent.sender.outcome.give(.failure(error)) }
        resumeCommitWaiters(all: true)
    }

    private func resumeCommitWaiters(all: Bool = false) {
        guard !commitWaiters.isEmpty else { return }
        var waiting: [(sequence: UInt64, resume: @Sendable () -> Void)] = []
        for waiter in commitWaiters {
            if all || waiter.sequence <= lastSequence || !isWorking && queue.isEmpty { waiter.resume() } else { waiting.append(waiter) }
        }
        commitWaiters = waiting
    }
}
