import CoreMetrics
import Foundation
import SceneSync
import SceneSyncMetrics
import Synchronization

/// The server's metric objects, made once through the factory it was given, each labelled with
/// this node's name; see ``SceneSyncServer/MetricsOptions`` for what each metric means.
final class ServerMetrics: Sendable {
    /// The metrics' names; those of the model controllers are ``SceneSyncMetrics/ModelControllerMetrics/Name``.
    enum Name {
        static let windowsConnected = "scenesync_windows_connected"
        static let reconnects = "scenesync_window_reconnects_total"
        static let fanout = "scenesync_fanout_seconds"
        static let refusals = "scenesync_refusals_total"
        static let widgetFollowers = "scenesync_widget_followers"
        static let connections = "scenesync_connections_open"
        static let outboundBytes = "scenesync_outbound_queued_bytes"
    }

    let factory: any MetricsFactory
    let node: String
    /// Times how soon a commit reaches the first window.
    let fanout: FanoutProbe
    /// Counts refusals by reason.
    let refusals: RefusalCounter

    init(_ options: SceneSyncServer.MetricsOptions) {
        let factory = options.factory ?? MetricsSystem.factory
        self.factory = factory
        node = options.node
        fanout = FanoutProbe(factory: factory, node: options.node)
        refusals = RefusalCounter(factory: factory, node: options.node)
    }

    /// What model controllers created while an app launches record with: this factory, labelled
    /// with this node, and their commits reported to ``fanout``.
    var controllers: ModelControllerMetrics {
        let fanout = fanout
        return ModelControllerMetrics(factory: factory, dimensions: [("node", node)]) { app, sequence, timestamp in
            fanout.committed(app: app, through: sequence, at: timestamp)
        }
    }

    /// The metric objects of one hosted app's windows.
    func app(_ name: String) -> AppMetrics {
        let dimensions = [("app", name), ("node", node)]
        return AppMetrics(
            windowsConnected: Meter(label: Name.windowsConnected, dimensions: dimensions, factory: factory),
            reconnects: Counter(label: Name.reconnects, dimensions: dimensions, factory: factory),
            fanout: fanout)
    }

    /// A gauge set when `/metrics` is scraped.
    func gauge(_ name: String, app: String? = nil) -> Meter {
        Meter(label: name, dimensions: (app.map { [("app", $0)] } ?? []) + [("node", node)], factory: factory)
    }
}

/// The metric objects of one hosted app's windows.
struct AppMetrics: Sendable {
    /// Open WebSockets of the app's windows, from upgrade to close (greeted or not).
    let windowsConnected: Meter
    /// Windows whose `hello` named a session they had before, and got it back.
    let reconnects: Counter
    /// Times how soon a commit reaches the first window.
    let fanout: FanoutProbe

    /// A window's WebSocket opened.
    func windowConnected() { windowsConnected.increment() }

    /// A window's WebSocket closed.
    func windowDisconnected() { windowsConnected.decrement() }

    /// A window came back to the session it had.
    func windowReconnected() { reconnects.increment() }
}

/// Counts refusals by reason (`scenesync_refusals_total{reason,node}`), making each reason's
/// counter once.
final class RefusalCounter: Sendable {
    private let factory: any MetricsFactory
    private let node: String
    private let counters = Mutex<[String: Counter]>([:])

    init(factory: any MetricsFactory, node: String) {
        self.factory = factory
        self.node = node
    }

    /// Counts one refusal for `reason`.
    func count(_ reason: String) {
        let counter = counters.withLock { counters in
            if let counter = counters[reason] { return counter }
            let counter = Counter(label: ServerMetrics.Name.refusals, dimensions: [("reason", reason), ("node", node)], factory: factory)
            counters[reason] = counter
            return counter
        }
        counter.increment()
    }
}

/// Times `scenesync_fanout_seconds`: for the last event of each batch a model controller of this
/// node committed, from that event's envelope timestamp (taken when the controller numbered it,
/// just before its transaction) to the moment the first window is queued a patch that includes it.
///
/// Once per batch and app, not per window: the first window's patch ends the measurement, and a
/// window that is sent a patch while nothing waits to be measured pays one atomic load. A batch
/// that no window is sent within ``horizon`` (no window shows that app, or every one is in the
/// background) is not measured, so that a patch sent much later for another reason (a
/// navigation, a window coming back to the foreground) does not pass for a slow fan-out. A newer
/// batch of the same app replaces one not measured yet.
final class FanoutProbe: Sendable {
    /// How long a batch waits for a window before it is dropped unmeasured.
    static let horizon: TimeInterval = 10

    private struct Pending {
        var sequence: UInt64
        var timestamp: Date
    }

    private struct State {
        var pending: [String: Pending] = [:]
        var timers: [String: CoreMetrics.Timer] = [:]
    }

    private let factory: any MetricsFactory
    private let node: String
    private let state = Mutex(State())
    /// Whether a batch waits to be measured; read without the lock by every window's patch.
    private let waiting = Atomic<Bool>(false)

    init(factory: any MetricsFactory, node: String) {
        self.factory = factory
        self.node = node
    }

    /// A controller of `app` published a batch whose last event is `sequence`, stamped `timestamp`.
    func committed(app: String, through sequence: UInt64, at timestamp: Date) {
        state.withLock { state in
            if state.timers[app] == nil {
                state.timers[app] = CoreMetrics.Timer(
                    label: ServerMetrics.Name.fanout, dimensions: [("app", app), ("node", node)], factory: factory)
            }
            state.pending[app] = Pending(sequence: sequence, timestamp: timestamp)
            waiting.store(true, ordering: .relaxed)
        }
    }

    /// A window was queued a patch that brings it to `seq`.
    func queued(_ seq: [String: UInt64]) {
        guard waiting.load(ordering: .relaxed) else { return }
        let now = Date()
        let measured: [(CoreMetrics.Timer, TimeInterval)] = state.withLock { state in
            var measured: [(CoreMetrics.Timer, TimeInterval)] = []
            for (app, pending) in state.pending {
                let elapsed = now.timeIntervalSince(pending.timestamp)
                if elapsed > Self.horizon {
                    state.pending[app] = nil
                } else if let reached = seq[app], reached >= pending.sequence {
                    state.pending[app] = nil
                    if let timer = state.timers[app] { measured.append((timer, elapsed)) }
                }
            }
            waiting.store(!state.pending.isEmpty, ordering: .relaxed)
            return measured
        }
        for (timer, elapsed) in measured {
            timer.recordNanoseconds(Int64(max(0, elapsed) * 1e9))
        }
    }
}
