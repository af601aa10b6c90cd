public import CoreMetrics
public import Foundation

/// Where model controllers record their metrics, through swift-metrics: committed intents, batch
/// sizes, commit times, and how far behind other nodes' commits reach this one.
///
/// A controller takes the value ``current`` holds when it is created, so whoever creates
/// controllers (a server launching its apps, a test) chooses the factory and the labels for them
/// without the apps passing anything along:
///
/// ```swift
/// let metrics = ModelControllerMetrics(factory: factory, dimensions: [("node", "a")])
/// let store = try await ModelControllerMetrics.$current.withValue(metrics) {
///     try await ItemStore(storage: storage, logger: logger)
/// }
/// ```
///
/// Outside any such scope, controllers record through `MetricsSystem.factory`, which records
/// nothing until the process bootstraps a backend.
///
/// | metric | type | meaning |
/// | --- | --- | --- |
/// | `scenesync_intents_total` | counter | intents committed |
/// | `scenesync_commit_batch_size` | histogram (recorder) | intents per committed batch |
/// | `scenesync_commit_seconds` | histogram (timer) | a batch's commit: encoding what its senders had not, and the storage's transaction |
/// | `scenesync_cross_node_lag_seconds` | histogram (timer) | for each event another writer committed, from its envelope timestamp to when this controller read it from the log |
///
/// Each is labelled `app` (the controller's ``ModelController/app``), then ``dimensions``.
public struct ModelControllerMetrics: Sendable {
    /// What controllers created in the current task record with; by default `MetricsSystem.factory`
    /// and no further labels.
    @TaskLocal public static var current = ModelControllerMetrics()

    /// The factory the metrics are made with; `nil` for `MetricsSystem.factory` as it is when the
    /// controller is created.
    public var factory: (any MetricsFactory)?
    /// Labels added after `app` to every metric, such as `("node", "a")`.
    public var dimensions: [(String, String)]
    /// Told, on the controller's actor, of every batch the controller committed and published
    /// itself: the app, the sequence number of the batch's last event, and that event's envelope
    /// timestamp. It must return at once; a server uses it to time how soon windows are sent what
    /// a commit changed.
    public var didPublish: (@Sendable (_ app: String, _ sequence: UInt64, _ timestamp: Date) -> Void)?

    /// Creates where controllers record.
    public init(
        factory: (any MetricsFactory)? = nil, dimensions: [(String, String)] = [],
        didPublish: (@Sendable (_ app: String, _ sequence: UInt64, _ timestamp: Date) -> Void)? = nil
    ) {
        self.factory = factory
        self.dimensions = dimensions
        self.didPublish = didPublish
    }

    /// The metrics' names.
    public enum Name {
        /// Intents committed (counter).
        public static let intents = "scenesync_intents_total"
        /// Intents per committed batch (recorder, aggregated: a histogram).
        public static let batchSize = "scenesync_commit_batch_size"
        /// A batch's commit time (timer).
        public static let commitTime = "scenesync_commit_seconds"
        /// How long after its commit on another node an event is read here (timer).
        public static let crossNodeLag = "scenesync_cross_node_lag_seconds"
    }
}

/// One controller's metric objects, made once when it is created, so that recording costs no
/// lookups and no formatting.
struct ControllerMetrics: Sendable {
    private let intents: Counter
    private let batchSize: Recorder
    private let commitTime: CoreMetrics.Timer
    private let crossNodeLag: CoreMetrics.Timer
    private let app: String
    private let didPublish: (@Sendable (String, UInt64, Date) -> Void)?

    init(app: String, metrics: ModelControllerMetrics = .current) {
        let factory = metrics.factory ?? MetricsSystem.factory
        let dimensions = [("app", app)] + metrics.dimensions
        typealias Name = ModelControllerMetrics.Name
        intents = Counter(label: Name.intents, dimensions: dimensions, factory: factory)
        batchSize = Recorder(label: Name.batchSize, dimensions: dimensions, aggregate: true, factory: factory)
        commitTime = CoreMetrics.Timer(label: Name.commitTime, dimensions: dimensions, factory: factory)
        crossNodeLag = CoreMetrics.Timer(label: Name.crossNodeLag, dimensions: dimensions, factory: factory)
        self.app = app
        didPublish = metrics.didPublish
    }

    /// A batch of `count` intents committed; its commit began at `start`.
    func committed(intents count: Int, since start: ContinuousClock.Instant) {
        commitTime.recordNanoseconds(Self.nanoseconds(ContinuousClock.now - start))
        intents.increment(by: count)
        batchSize.record(count)
    }

    /// A batch this controller committed was published; `last` is its last event.
    func published<Event>(_ last: EventEnvelope<Event>) {
        didPublish?(app, last.sequence, last.timestamp)
    }

    /// Events another writer committed were read from the log and published. A clock behind the
    /// other node's counts as no lag.
    func followed<Event>(_ envelopes: [EventEnvelope<Event>]) {
        let now = Date()
        for envelope in envelopes {
            let lag = now.timeIntervalSince(envelope.timestamp)
            crossNodeLag.recordNanoseconds(lag > 0 ? Int64(min(lag, 1e9) * 1e9) : 0)
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
