public import Foundation

/// What the nodes (`scenesync` processes) sharing one storage tell each other, beyond the log:
/// transient events, which node runs an app's services, which windows are connected where,
/// "Open in New Window" requests that another node may have to answer, and each node's report
/// for the dashboard.
///
/// A storage shared by several nodes gives one through ``SceneSyncStorage/cluster``; a storage
/// that belongs to one process (SQLite) gives `nil`, and SceneSync then does all of this in the
/// process's memory.
///
/// A cluster speaks for one node and one scope (the hosting app whose sessions its storage keeps).
public protocol SceneSyncCluster: Sendable {
    /// This node's name among the nodes sharing the storage.
    var node: String { get }

    /// Sends a transient event, encoded, to the model controllers of `app` on the other nodes.
    /// Nothing is stored: a node not listening now misses it.
    ///
    /// - Throws: if the event could not be sent, such as when it is too large for the transport.
    func sendTransient(_ payload: Data, app: String) async throws

    /// The transient events of `app` that other nodes send from now on, encoded, in the order
    /// each node sent them; never this node's own. The stream ends when the storage closes or
    /// when its iterating task is cancelled.
    func transients(app: String) -> AsyncStream<Data>

    /// Whether this node holds the lead of `role` (such as `"services:restaurant"`): at most one
    /// node holds a role at a time, and when it stops or loses the database another takes over.
    ///
    /// The stream yields `true` when this node takes the lead and `false` when it loses it; its
    /// first value may take a while (another node leads). The lead is let go when the iterating
    /// task is cancelled or the storage closes, and the stream ends then.
    ///
    /// A node that loses the database may learn that it lost the lead only a few seconds after
    /// another node took it: work done as a leader must stay safe to do twice, such as an intent
    /// its model controller refuses the second time.
    func leadership(of role: String) -> AsyncStream<Bool>

    /// Records that the window of session `id` is connected to this node now (`true`), or no
    /// longer (`false`; a session connected to another node since is left as it is).
    func setConnected(_ connected: Bool, session id: SceneSession.ID) async throws

    /// The sessions whose windows are connected to other nodes that are alive now: none of them
    /// may be discarded to make room, whatever this node sees.
    func sessionsConnectedElsewhere() async throws -> Set<SceneSession.ID>

    /// How many sessions the scope keeps, whichever node saved them.
    func sessionCount() async throws -> Int

    /// Keeps `activity` under `token` for `lifetime`, for the window opened with it to take on
    /// whichever node it connects to. The oldest requests are dropped beyond a bound.
    func keepOpenRequest(_ activity: SceneActivity, token: String, lifetime: Duration) async throws

    /// The activity kept under `token`, once, if it has not expired: the token is spent either way.
    func takeOpenRequest(token: String) async throws -> SceneActivity?

    /// Publishes this node's report (what its windows and apps are doing, as JSON), replacing the
    /// one it published before, for every node to read with ``reports()``. A node publishes about
    /// once a second; nothing else reads or changes a report.
    func publishReport(_ report: Data) async throws

    /// The last report of every node alive now (one that published within the time after which a
    /// node is taken for dead), this node's too, ordered by node name.
    func reports() async throws -> [NodeReportRecord]
}

/// One node's last published report, as ``SceneSyncCluster/reports()`` reads it.
public struct NodeReportRecord: Sendable, Equatable {
    /// The node's name.
    public let node: String
    /// The report as the node published it (JSON).
    public let report: Data
    /// When the node published it, by the storage's clock (the same for every node).
    public let publishedAt: Date

    /// Creates a record.
    public init(node: String, report: Data, publishedAt: Date) {
        self.node = node
        self.report = report
        self.publishedAt = publishedAt
    }
}
