public import SceneSync

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
/// Screens reach the feed through ``ScreenController/follow(_:from:_:)``; nothing else needs it.
@MainActor
final class ModelFeed<State: ModelState> {
    typealias Envelope = EventEnvelope<State.Event>

    /// How many of the latest events a feed keeps to catch a new follower up.
    static var recentLimit: Int { 512 }

    /// One follower: its handler and the last sequence number it was given.
    @MainActor
    final class Follower {
        fileprivate var after: UInt64
        fileprivate let handler: @MainActor (Envelope) -> Void
        fileprivate let fellBehind: @MainActor () -> Void
        fileprivate var isActive = true
        /// Whether it is reading the log by itself, behind the feed, and must not be served live
        /// events out of order meanwhile.
        fileprivate var readsAlone = false

        fileprivate init(after: UInt64, handler: @escaping @MainActor (Envelope) -> Void,
                         fellBehind: @escaping @MainActor () -> Void) {
            self.after = after
            self.handler = handler
            self.fellBehind = fellBehind
        }
    }

    let controller: ModelController<State>
    /// The sequence number of the last event the feed handed out (or started after).
    private(set) var position: UInt64
    /// The followers, in the order they joined, so that windows are served in a stable order.
    private var order: [Follower] = []
    /// The latest events, oldest first, at most ``recentLimit``.
    private var recent: [Envelope] = []
    private var recentStart = 0
    private var reading: Task<Void, Never>?
    /// Followers whose snapshot is behind the feed, to be given what they missed.
    private var lagging: [Follower] = []
    private var catchingUp: Task<Void, Never>?
    /// The model's state as of ``stateSequence``, once a screen has asked for it: applied once
    /// per event here, for every screen on the node to read rather than keep a copy of its own.
    private(set) var state: State?
    private(set) var stateSequence: UInt64 = 0
    /// Values worked out once per event for every follower (see ``once(_:_:)``), and the event.
    private var memo: [String: Any] = [:]
    private var memoSequence: UInt64 = 0

    private init(controller: ModelController<State>, after sequence: UInt64) {
        self.controller = controller
        position = sequence
    }

    /// The feed of `controller` on this node, made and started on first use.
    static func shared(for controller: ModelController<State>, startingAfter sequence: UInt64) -> ModelFeed {
        if let feed = live(controller) { return feed }
        return start(controller, after: sequence, state: nil)
    }

    /// The feed of `controller` on this node with the model's state loaded, made and started on
    /// first use.
    static func sharingState(of controller: ModelController<State>) async -> ModelFeed {
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
    /// A snapshot ahead of the feed skips the events it already holds; one behind is caught up
    /// from the feed's recent events before the next live one (or from a subscription of its own
    /// when those do not reach back far enough). `fellBehind` is called, and the follower
    /// dropped, if the feed cannot go on: the follower should start again from a fresh snapshot.
    func add(after snapshot: UInt64, handler: @escaping @MainActor (Envelope) -> Void,
             fellBehind: @escaping @MainActor () -> Void) -> Follower {
        let follower = Follower(after: snapshot, handler: handler, fellBehind: fellBehind)
        order.append(follower)
        if snapshot < position {
            lagging.append(follower)
            scheduleCatchUp()
        }
        return follower
    }

    /// Removes a follower; the feed stops reading once it has none.
    func remove(_ follower: Follower) {
        guard follower.isActive else { return }
        follower.isActive = false
        if let index = order.lastIndex(where: { $0 === follower }) { order.remove(at: index) }
        if order.isEmpty { stop() }
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
            follower.after = envelope.sequence
            follower.handler(envelope)
        }
    }

    private func applyToState(_ envelope: Envelope) {
        guard state != nil, envelope.sequence > stateSequence else { return }
        _ = state!.apply(envelope.event)
        stateSequence = envelope.sequence
    }

    private func startEvent(_ sequence: UInt64) {
        guard memoSequence != sequence else { return }
        memoSequence = sequence
        if !memo.isEmpty { memo.removeAll(keepingCapacity: true) }
    }

    /// `make()`'s value, worked out once for the event being handed out and shared by every
    /// follower that asks for it under `key` while handling that event.
    func once<Value>(_ key: String, _ make: () -> Value) -> Value {
        if let kept = memo[key] as? Value { return kept }
        let value = make()
        memo[key] = value
        return value
    }

    /// Loads the model's state from a snapshot, if the feed does not hold it yet, to be applied
    /// once per event from then on for every screen on the node.
    func loadState() async {
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
        let dropped = order
        stop()
        for follower in dropped where follower.isActive {
            follower.isActive = false
            follower.fellBehind()
        }
    }

    private func stop() {
        reading?.cancel()
        catchingUp?.cancel()
        reading = nil
        order = []
        lagging = []
        state = nil
        memo = [:]
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
                follower.after = envelope.sequence
                startEvent(envelope.sequence)
                follower.handler(envelope)
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
                    follower.after = envelope.sequence
                    self?.startEvent(envelope.sequence)
                    follower.handler(envelope)
                    if envelope.sequence >= target {
                        follower.readsAlone = false
                        // The feed may have moved on meanwhile: what it handed out since is replayed.
                        if let self, follower.after < self.position { self.lagging.append(follower); self.catchUpLagging() }
                        return
                    }
                }
            } catch {
                guard follower.isActive else { return }
                self?.remove(follower)
                follower.isActive = false
                follower.fellBehind()
            }
        }
    }
}

/// The feeds live on this node, by model controller.
@MainActor
enum ModelFeeds {
    /// Each live feed, held for as long as it has followers.
    static var live: [ObjectIdentifier: AnyObject] = [:]
}

/// A model's state as every screen on this node shares it: one copy, applied once per event,
/// however many windows show it.
///
/// A screen gets one from ``ScreenController/follow(sharing:_:)`` and reads ``state`` when it
/// draws, instead of keeping a copy of the rows: a thousand windows on a 10,000-row list hold the
/// list once. Read it, do not store parts of it: a kept array is copied when the next event
/// changes it.
@MainActor
public final class SharedModel<State: ModelState> {
    private let feed: ModelFeed<State>

    init(feed: ModelFeed<State>) {
        self.feed = feed
    }

    /// The model's state, with every event handed out so far applied.
    public var state: State {
        // A shared model exists only once its feed has the state.
        feed.state ?? State()
    }

    /// The sequence number of the last event applied to ``state``.
    public var sequence: UInt64 { feed.stateSequence }

    /// `make()`'s value, worked out once per event for every screen that asks for it under `key`
    /// while handling that event: the patches a list's screens send alike, say. The key must name
    /// everything the value depends on besides the event and the shared state (a screen in edit
    /// mode and one not, if their patches differ).
    ///
    /// ```swift
    /// let patches = model.once("items") { patches(for: envelope.event) }
    /// ```
    public func once<Value>(_ key: String, _ make: () -> Value) -> Value {
        feed.once(key, make)
    }
}
