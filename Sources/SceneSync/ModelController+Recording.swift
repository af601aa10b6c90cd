public import Foundation

/// What measures one model controller: told of each batch it commits and of the events it reads
/// that another writer committed. Its methods are called on the controller's actor and must
/// return at once.
///
/// The core records nothing by itself; `SceneSyncMetrics` gives a recorder over swift-metrics,
/// which the server uses.
public protocol ModelControllerRecorder: Sendable {
    /// A batch of `intents` intents committed; its commit (encoding and the storage's transaction)
    /// took `duration`.
    func committed(intents: Int, duration: Duration)
    /// The controller published a batch it committed itself: the sequence number of its last
    /// event, and that event's envelope timestamp.
    func published(lastSequence: UInt64, timestamp: Date)
    /// The controller read an event another writer committed, `lag` after its envelope timestamp
    /// (zero when the other writer's clock is ahead).
    func followed(lag: Duration)
}

/// Which recorder model controllers get: a controller asks ``makeRecorder`` once, when it is
/// created, so whoever creates controllers (a server launching its apps, a test) chooses how they
/// are measured without the apps passing anything along.
///
/// ```swift
/// let factory = ModelControllerRecorderFactory { app in MyRecorder(app: app) }
/// let store = try await ModelControllerRecording.$makeRecorder.withValue(factory) {
///     try await ItemStore(storage: storage, logger: logger)
/// }
/// ```
public enum ModelControllerRecording {
    /// Makes the recorder of a controller created in the current task, given its app; `nil`
    /// (the default): controllers record nothing.
    @TaskLocal public static var makeRecorder: ModelControllerRecorderFactory?
}

/// Makes a model controller's recorder, given its app: what ``ModelControllerRecording/makeRecorder``
/// holds.
///
/// A type of its own rather than a bare closure: optimized builds of Swift 6.3 crash when a
/// task-local value whose type is a function type is bound (the runtime is handed no metadata
/// for it; swiftlang/swift#88321), and a struct that holds the closure is bound safely.
public struct ModelControllerRecorderFactory: Sendable {
    private let make: @Sendable (_ app: String) -> any ModelControllerRecorder

    /// A factory that calls `make` with each controller's app name.
    public init(_ make: @escaping @Sendable (_ app: String) -> any ModelControllerRecorder) {
        self.make = make
    }

    /// The recorder of a controller of `app`.
    public func callAsFunction(_ app: String) -> any ModelControllerRecorder {
        make(app)
    }
}
