public import CoreMetrics
public import Foundation
import SceneSync

/// Model controllers measured through swift-metrics: committed intents, batch sizes, commit times,
/// and how far behind other nodes' commits reach this one.
///
/// Controllers created inside ``measuring(isolation:_:)`` record with this factory and these labels:
///
/// ```swift
/// let metrics = ModelControllerMetrics(factory: factory, dimensions: [("node", "a")])
/// let store = try await metrics.measuring {
///     try await ItemStore(storage: storage, logger: logger)
/// }
/// ```
///
/// | metric | type | meaning |
/// | --- | --- | --- |
/// | `scenesync_intents_total` | counter | intents committed |
/// | `scenesync_commit_batch_size` | histogram (recorder) | intents per committed batch |
/// | `scenesync_commit_seconds` | histogram (timer) | a batch's commit: encoding what its senders had not, and the storage's transaction |
/// | `scenesync_cross_node_lag_seconds` | histogram (timer) | for each event another writer committed, from its envelope timestamp to when this controller read it from the log |
///
/// Each is labelled `app` (the controller's `ModelController.app`), then ``dimensions``.
public struct ModelControllerMetrics: Sendable {
    /// The factory the metrics are made with; `nil` for `MetricsSystem.factory` as it is when a
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

    /// Runs `body` so that the model controllers it creates record with these metrics.
    public func measuring<Value>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Value
    ) async rethrows -> Value {
        try await ModelControllerRecording.$makeRecorder.withValue(
            ModelControllerRecorderFactory { app in MetricsRecorder(app: app, metrics: self) }, operation: body, isolation: isolation)
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
struct MetricsRecorder: ModelControllerRecorder {
    private let intents: Counter
    private let batchSize: Recorder
    private let commitTime: CoreMetrics.Timer
    private let crossNodeLag: CoreMetrics.Timer
    private let app: String
    private let didPublish: (@Sendable (String, UInt64, Date) -> Void)?

    init(app: String, metrics: ModelControllerMetrics) {
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

    func committed(intents count: Int, duration: Duration) {
        commitTime.recordNanoseconds(Self.nanoseconds(duration))
        intents.increment(by: count)
        batchSize.record(count)
    }

    func published(lastSequence: UInt64, timestamp: Date) {
        didPublish?(app, lastSequence, timestamp)
    }

    func followed(lag: Duration) {
        crossNodeLag.recordNanoseconds(Self.nanoseconds(min(lag, .seconds(1_000_000_000))))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
