/// One subscription to a model controller's events on this node, shared by every screen that
/// follows the controller, in every window.
///
/// A thousand windows that show LootLogger's list follow one controller. Were each to subscribe
/// on its own, every change would be handed over a thousand times on the model actor and wake a
/// thousand tasks on the main actor. A feed reads the events once and calls each follower's
/// handler in turn, on the main actor, in one pass: per change there is one hand-over and one
/// wake-up, whatever the number of windows. A window catching up from the log does not read the
/// log itself either: the feed keeps its most recent events (``recentLimit``) and replays to a
/// follower what it missed since its snapshot. Only a follower whose snapshot is older than that
/// gets a subscription of its own, from the log.
///
/// Everything on the main actor reaches the feed through ``ModelController/follow(after:_:fellBehind:finished:)``
/// (a scene's notices, a Combine publisher) or a screen's `follow`.
@MainActor
package final class ModelFeed<State: ModelState> {
    package typealias Envelope = EventEnvelope<State.Event>

    /// How many of the latest events a feed keeps to catch a new follower up.
    package static var recentLimit: Int { 512 }

    /// One follower: its handler and the last sequence number it was given.
    @MainActor
    package final class Follower {
        fileprivate var after: UInt64
        /// Whether the follower is handed an event, asked before its handler: `nil` hands it every one.
        fileprivate var admits: (@MainActor (Envelope) -> Bool)?
        /// Let go of when the follower is removed, so that what they hold goes at once rather
        /// than when the feed sweeps its list.
        fileprivate var handler: (@MainActor (Envelope) -> Void)?
        fileprivate var fellBehind: (@MainActor () -> Void)?
        fileprivate var finished: (@MainActor () -> Void)?
        fileprivate var isActive = true {
            didSet {
                guard !isActive else { return }
                admits = nil
                handler = nil
                fellBehind = nil
                finished = nil
            }
        }
        /// Whether it is reading the log by itself, behind the feed, and must not be served live
        /// events out of order meanwhile.
        fileprivate var readsAlone = false

        fileprivate init(after: UInt64, admits: (@MainActor (Envelope) -> Bool)?, handler: @escaping @MainActor (Envelope) -> Void,
                         fellBehind: @escaping @MainActor () -> Void, finished: @escaping @MainActor () -> Void) {
            self.after = after
            self.admits = admits
            self.handler = handler
            self.fellBehind = fellBehind
            self.finished = finished
        }

        /// Notes `envelope` as given, and hands it to the handler if the follower admits it.
        fileprivate func hand(_ envelope: Envelope) {
            after = envelope.sequence
            if let admits, !admits(envelope) { return }
            handler?(envelope)
        }
    }

    package let controller: ModelController<State>
    /// The sequence number of the last event the feed handed out (or started after).
    package private(set) var position: UInt64
    /// The followers, in the order they joined, so that windows are served in a stable order.
    /// Removed ones are only marked inactive (and let go of their handlers), and swept out once
    /// they outnumber the active ones by more than a few: a thousand windows closing at once cost
    /// a thousand marks, not a million comparisons.
    private var order: [Follower] = []
    /// How many of ``order`` are active.
    private var activeCount = 0
    /// The latest events, oldest first, at most ``recentLimit``.
    private var recent: [Envelope] = []
    private var recentStart = 0
    private var reading: Task<Void, Never>?
    /// Followers whose snapshot is behind the feed, to be given what they missed.
    private var lagging: [Follower] = []
    private var catchingUp: Task<Void, Never>?
    /// The model's state as of ``stateSequence``, once a screen has asked for it: applied once
    /// per event here, for every screen on the node to read rather than keep a copy of its own.
    package private(set) var state: State?
    package private(set) var stateSequence: UInt64 = 0
    /// Values worked out once per event for every follower (see ``once(_:_:)``), and the event.
    private var memo: [String: Any] = [:]
    private var memoSequence: UInt64 = 0
    /// Values worked out once per state for every follower (see ``oncePerState(_:_:)``): let go
    /// of whenever ``state`` changes.
    private var stateMemo: [String: Any] = [:]

    private init(controller: ModelController<State>, after sequence: UInt64) {
        self.controller = controller
        position = sequence
    }

    /// The feed of `controller` on this node, made and started on first use.
    package static func shared(for controller: ModelController<State>, startingAfter sequence: UInt64) -> ModelFeed {
        if let feed = live(controller) { return feed }
        return start(controller, after: sequence, state: nil)
    }

    /// The feed of `controller` on this node with the model's state loaded, made and started on
    /// first use.
    package static func sharingState(of controller: ModelController<State>) async -> ModelFeed {
        while true {
            if let feed = live(controller) {
                await feed.loadState()
                // The feed may have stopped meanwhile, its last follower gone.
                if live(controller) === feed { return feed }
                continue
            }
            let snapshot = await controller.snapshot()
            guard live(controller) == nil else { continue }
            return start(controller, after: snapshot.sequence, state: snapshot.state)
        }
    }

    private static func live(_ controller: ModelController<State>) -> ModelFeed? {
        ModelFeeds.live[ObjectIdentifier(controller)] as? ModelFeed
    }

    private static func start(_ controller: ModelController<State>, after sequence: UInt64, state: State?) -> ModelFeed {
        let feed = ModelFeed(controller: controller, after: sequence)
        if let state {
            feed.state = state
            feed.stateSequence = sequence
        }
        ModelFeeds.live[ObjectIdentifier(controller)] = feed
        feed.start()
        return feed
    }

    /// Adds a follower of the events after `snapshot`.
    ///
    /// With `admits`, each event is first given to it, and handed to `handler` only if it
    /// returns true: a screen passes over, at the cost of one call, the events that cannot change
    /// what it shows, without anything of the screen being touched.
    ///
    /// A snapshot ahead of the feed skips the events it already holds; one behind is caught up
    /// from the feed's recent events before the next live one (or from a subscription of its own
    /// when those do not reach back far enough). `fellBehind` is called, and the follower
    /// dropped, if the feed cannot go on: the follower should start again from a fresh snapshot.
    /// `finished` is called, and the follower dropped, when the model controller closes.
    package func add(after snapshot: UInt64, admits: (@MainActor (Envelope) -> Bool)? = nil,
                     handler: @escaping @MainActor (Envelope) -> Void,
                     fellBehind: @escaping @MainActor () -> Void,
                     finished: @escaping @MainActor () -> Void = {}) -> Follower {
        let follower = Follower(after: snapshot, admits: admits, handler: handler, fellBehind: fellBehind, finished: finished)
        order.append(follower)
        activeCount += 1
        if snapshot < position {
            lagging.append(follower)
            scheduleCatchUp()
        }
        return follower
    }

    /// How many follow the feed.
    package var followerCount: Int { activeCount }

    /// Removes a follower; the feed stops reading once it has none.
    package func remove(_ follower: Follower) {
        guard follower.isActive else { return }
        follower.isActive = false
        activeCount -= 1
        if activeCount == 0 {
            stop()
        } else if order.count > 2 * activeCount + 16 {
            order.removeAll { !$0.isActive }
        }
    }

    // MARK: - Reading

    private func start() {
        let events = controller.events(after: position)
        reading = Task { @MainActor [weak self] in
            do {
                for try await envelope in events {
                    guard let self else { return }
                    self.deliver(envelope)
                }
                // The events end when the model controller closes (or the feed stopped).
                guard !Task.isCancelled else { return }
                self?.finish()
            } catch {
                guard !Task.isCancelled else { return }
                if case SubscriptionError.tooOld = error {} else {
                    // The log could not be read: the followers start over shortly rather than at once.
                    try? await Task.sleep(for: .seconds(1))
                    guard !Task.isCancelled else { return }
                }
                self?.fail()
            }
        }
    }

    private func deliver(_ envelope: Envelope) {
        catchUpLagging()
        position = envelope.sequence
        remember(envelope)
        applyToState(envelope)
        startEvent(envelope.sequence)
        // A handler may add or remove followers: those it adds start after this event, and those
        // it removes are not served.
        for follower in order where follower.isActive && !follower.readsAlone && envelope.sequence > follower.after {
            follower.hand(envelope)
        }
    }

    private func applyToState(_ envelope: Envelope) {
        guard state != nil, envelope.sequence > stateSequence else { return }
        _ = state!.apply(envelope.event)
        stateSequence = envelope.sequence
        if !stateMemo.isEmpty { stateMemo.removeAll() }
    }

    private func startEvent(_ sequence: UInt64) {
        guard memoSequence != sequence else { return }
        memoSequence = sequence
        if !memo.isEmpty { memo.removeAll(keepingCapacity: true) }
    }

    /// `make()`'s value, worked out once for the event being handed out and shared by every
    /// follower that asks for it under `key` while handling that event.
    package func once<Value>(_ key: String, _ make: () -> Value) -> Value {
        if let kept = memo[key] as? Value { return kept }
        let value = make()
        memo[key] = value
        return value
    }

    /// `make()`'s value, worked out once for the model's ``state`` as it is now and shared by
    /// every follower that asks for it under `key` until the state changes.
    package func oncePerState<Value>(_ key: String, _ make: () -> Value) -> Value {
        if let kept = stateMemo[key] as? Value { return kept }
        let value = make()
        stateMemo[key] = value
        return value
    }

    /// Loads the model's state from a snapshot, if the feed does not hold it yet, to be applied
    /// once per event from then on for every screen on the node.
    package func loadState() async {
        while state == nil {
            let snapshot = await controller.snapshot()
            guard state == nil else { break }
            // Events the feed handed out while the snapshot was read are in it, or are applied
            // from the recent ones; if those do not reach back far enough, read it again.
            let missed = recentEnvelopes(after: snapshot.sequence, through: position)
            guard let missed else { continue }
            var loaded = snapshot.state
            for envelope in missed { _ = loaded.apply(envelope.event) }
            state = loaded
            stateSequence = max(snapshot.sequence, position)
            stateMemo = [:]
        }
    }

    /// The recent events after `start` through `end`, or `nil` if they no longer reach back that far.
    private func recentEnvelopes(after start: UInt64, through end: UInt64) -> [Envelope]? {
        guard end > start else { return [] }
        let ordered = (0..<recent.count).map { recent[(recentStart + $0) % recent.count] }
        guard let first = ordered.first, first.sequence <= start + 1 else { return nil }
        return ordered.filter { $0.sequence > start && $0.sequence <= end }
    }

    private func remember(_ envelope: Envelope) {
        if recent.count < Self.recentLimit {
            recent.append(envelope)
        } else {
            recent[recentStart] = envelope
            recentStart = (recentStart + 1) % Self.recentLimit
        }
    }

    /// The feed stops for good; every follower starts over.
    private func fail() {
        end(telling: \.fellBehind)
    }

    /// The model controller closed: the feed stops, and every follower is told.
    private func finish() {
        end(telling: \.finished)
    }

    /// Stops the feed and tells each follower still there, with the callback `tell` names. Every
    /// follower is let go of before any is told, so that one told cannot remove another.
    private func end(telling tell: KeyPath<Follower, (@MainActor () -> Void)?>) {
        let dropped = order.filter(\.isActive)
        let calls = dropped.compactMap { $0[keyPath: tell] }
        stop()
        for follower in dropped { follower.isActive = false }
        for call in calls { call() }
    }

    private func stop() {
        reading?.cancel()
        catchingUp?.cancel()
        reading = nil
        order = []
        activeCount = 0
        lagging = []
        state = nil
        memo = [:]
        stateMemo = [:]
        let key = ObjectIdentifier(controller)
        if ModelFeeds.live[key] === self { ModelFeeds.live[key] = nil }
    }

    // MARK: - Catching up

    private func scheduleCatchUp() {
        guard catchingUp == nil else { return }
        catchingUp = Task { @MainActor [weak self] in
            self?.catchingUp = nil
            self?.catchUpLagging()
        }
    }

    /// Gives each lagging follower the events it missed, from the recent ones, or a subscription
    /// of its own when they do not reach back far enough.
    private func catchUpLagging() {
        guard !lagging.isEmpty else { return }
        let waiting = lagging
        lagging = []
        for follower in waiting where follower.isActive && follower.after < position {
            guard let missed = recentEnvelopes(after: follower.after, through: position) else {
                followAlone(follower)
                continue
            }
            for envelope in missed where follower.isActive {
                startEvent(envelope.sequence)
                follower.hand(envelope)
            }
        }
    }

    /// A follower too far behind for the recent events reads the log by itself until it has
    /// caught up with the feed, then the feed serves it again.
    private func followAlone(_ follower: Follower) {
        let target = position
        let events = controller.events(after: follower.after)
        follower.readsAlone = true
        Task { @MainActor [weak self] in
            do {
                for try await envelope in events {
                    guard follower.isActive else { return }
                    guard envelope.sequence > follower.after else { continue }
                    self?.startEvent(envelope.sequence)
                    follower.hand(envelope)
                    if envelope.sequence >= target {
                        follower.readsAlone = false
                        // The feed may have moved on meanwhile: what it handed out since is replayed.
                        if let self, follower.after < self.position { self.lagging.append(follower); self.catchUpLagging() }
                        return
                    }
                }
                // The model controller closed before the follower caught up.
                guard follower.isActive else { return }
                let finished = follower.finished
                self?.remove(follower)
                follower.isActive = false
                finished?()
            } catch {
                guard follower.isActive else { return }
                let fellBehind = follower.fellBehind
                self?.remove(follower)
                follower.isActive = false
                fellBehind?()
            }
        }
    }
}

/// The feeds live on this node, by model controller.
@MainActor
package enum ModelFeeds {
    /// Each live feed, held for as long as it has followers.
    package static var live: [ObjectIdentifier: AnyObject] = [:]
}

/// A follower of a model controller's events on the main actor, through the one subscription
/// this process shares among all of them; see ``ModelController/follow(after:_:fellBehind:finished:)``.
///
/// It follows until ``cancel()`` is called, or it is released: then it stops in a task of its
/// own, so a handler may still be called until that task runs. Cancel it to stop at once.
@MainActor
public final class ModelFollowing {
    /// Ends the following at the feed; set once the follower has joined it.
    fileprivate var stop: (@MainActor @Sendable () -> Void)?
    /// Whether it still follows: not cancelled, fallen behind or finished.
    public private(set) var isActive = true

    fileprivate init() {}

    fileprivate func ended() {
        isActive = false
        stop = nil
    }

    /// Stops following. Nothing is delivered after it returns.
    public func cancel() {
        guard isActive else { return }
        isActive = false
        stop?()
        stop = nil
    }

    deinit {
        guard let stop else { return }
        Task { @MainActor in stop() }
    }
}

extension ModelController {
    /// Calls `handler` on the main actor with each event after `sequence`, in order, with no gap
    /// and no duplicate, until the returned ``ModelFollowing`` is cancelled or released.
    ///
    /// Every follower of this controller on the main actor (each window's screens, its notices,
    /// its Combine pipelines) shares one subscription: a change is handed to the main actor once
    /// and each handler called in turn, where a subscription of one's own, with
    /// ``events(after:)``, would cost a hand-over and a task wake-up per follower. A follower that
    /// starts behind is caught up from the events the process holds, or from the log.
    ///
    /// - Parameters:
    ///   - sequence: The sequence number of the snapshot the follower is in step with.
    ///   - handler: Called with each event after `sequence`.
    ///   - fellBehind: Called, and the following ended, if the events after `sequence` can no
    ///     longer be given (the log was trimmed past them, or cannot be read): start again from a
    ///     fresh snapshot.
    ///   - finished: Called, and the following ended, when the model controller closes.
    @MainActor
    public func follow(
        after sequence: UInt64,
        _ handler: @escaping @MainActor (EventEnvelope<State.Event>) -> Void,
        fellBehind: @escaping @MainActor () -> Void,
        finished: @escaping @MainActor () -> Void = {}
    ) -> ModelFollowing {
        let feed = ModelFeed.shared(for: self, startingAfter: sequence)
        let following = ModelFollowing()
        let follower = feed.add(after: sequence, handler: handler, fellBehind: { [weak following] in
            following?.ended()
            fellBehind()
        }, finished: { [weak following] in
            following?.ended()
            finished()
        })
        following.stop = { feed.remove(follower) }
        return following
    }

    /// How many follow this controller on the main actor, through the one subscription they
    /// share (see ``follow(after:_:fellBehind:finished:)``): every screen, notice and state
    /// publisher of every window. ``subscriberCount`` counts that subscription once.
    @MainActor
    public var followerCount: Int {
        (ModelFeeds.live[ObjectIdentifier(self)] as? ModelFeed<State>)?.followerCount ?? 0
    }
}
