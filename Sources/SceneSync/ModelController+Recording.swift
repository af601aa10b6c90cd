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
public enum ModelControllerRecording {
    /// Makes the recorder of a controller created in the current task, given its app; `nil`
    /// (the default): controllers record nothing.
    @TaskLocal public static var makeRecorder: (@Sendable (_ app: String) -> any ModelControllerRecorder)?
}
