public import SceneSync

/// A model's state as every screen on this node shares it: one copy, applied once per event,
/// however many windows show it.
///
/// A screen gets one from ``ScreenController/follow(sharing:only:_:)`` and reads ``state`` when it
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

    /// `make()`'s value, worked out once for ``state`` as it is now and shared by every screen
    /// that asks for it under `key` until the next event changes the state: what screens draw
    /// alike from the state, such as a long list's rows, built once for a thousand windows rather
    /// than for each, and held once. The key must name everything the value depends on besides
    /// the state, and `make` must read the state from here.
    ///
    /// ```swift
    /// let rows = model.oncePerState("items.rows") { model.state.items.map(row(for:)) }
    /// ```
    public func oncePerState<Value>(_ key: String, _ make: () -> Value) -> Value {
        feed.oncePerState(key, make)
    }
}
