public import Foundation
public import SceneSync

/// What one node (one `scenesync` process) is doing, as it tells the other nodes about once a
/// second: its apps, each app's connected windows (lifecycle state and route) and each app's log
/// (last sequence number, events committed, events per second). The dashboard shows these.
///
/// Bounded: an app lists at most ``maximumWindowsListed`` windows and counts the rest in
/// ``App/windowsNotListed``.
public struct NodeReport: Codable, Sendable, Equatable {
    /// The most windows an app's report lists; more are only counted.
    public static let maximumWindowsListed = 500

    /// The node's name (`--node`), or the host name and port on a node without a cluster.
    public var node: String
    /// When the node's server started.
    public var startedAt: Date
    /// When the node made this report, by its own clock.
    public var reportedAt: Date
    /// The node's apps, in the server's order.
    public var apps: [App]

    /// Creates a report.
    public init(node: String, startedAt: Date, reportedAt: Date, apps: [App]) {
        self.node = node
        self.startedAt = startedAt
        self.reportedAt = reportedAt
        self.apps = apps
    }

    /// One hosted app on the node.
    public struct App: Codable, Sendable, Equatable {
        /// The app's name, as in its URL (`lootlogger`).
        public var name: String
        /// The app's title (`LootLogger`).
        public var title: String
        /// Its windows connected to this node, at most ``NodeReport/maximumWindowsListed``.
        public var windows: [Window]
        /// How many more windows are connected than are listed.
        public var windowsNotListed: Int
        /// The logs the app's model controllers write, by name.
        public var logs: [Log]

        /// Creates an app's report.
        public init(name: String, title: String, windows: [Window], windowsNotListed: Int = 0, logs: [Log]) {
            self.name = name
            self.title = title
            self.windows = windows
            self.windowsNotListed = windowsNotListed
            self.logs = logs
        }

        /// How many windows of the app are connected to the node.
        public var windowCount: Int { windows.count + windowsNotListed }

        /// The events per second of all the app's logs together.
        public var eventsPerSecond: Double { logs.reduce(0) { $0 + $1.eventsPerSecond } }
    }

    /// One connected window.
    public struct Window: Codable, Sendable, Equatable {
        /// Its scene session's id.
        public var session: String
        /// Its scene's lifecycle state.
        public var state: SceneLifecycle.State
        /// What it shows: the top route of its navigation (`item/…`), after the selected tab
        /// when it has several (`order › order`); `nil` before it shows anything.
        public var route: String?

        /// Creates a window's report.
        public init(session: String, state: SceneLifecycle.State, route: String?) {
            self.session = session
            self.state = state
            self.route = route
        }
    }

    /// One log (one model controller's) as this node sees it.
    public struct Log: Codable, Sendable, Equatable {
        /// The log's name (the model controller's `app`).
        public var name: String
        /// The last sequence number this node has seen in it: its own commits and those it
        /// followed from other nodes.
        public var lastSequence: UInt64
        /// How many events this node committed to it since it started.
        public var eventsCommitted: UInt64
        /// How fast the log grew over the last few seconds, every node's events counted.
        public var eventsPerSecond: Double

        /// Creates a log's report.
        public init(name: String, lastSequence: UInt64, eventsCommitted: UInt64, eventsPerSecond: Double) {
            self.name = name
            self.lastSequence = lastSequence
            self.eventsCommitted = eventsCommitted
            self.eventsPerSecond = eventsPerSecond
        }
    }

    // MARK: - JSON

    /// The report as JSON, as nodes publish it.
    public func encoded() throws -> Data {
        try Self.encoder.encode(self)
    }

    /// Reads a report a node published.
    ///
    /// - Throws: `DecodingError` if `data` is not a report.
    public init(json data: Data) throws {
        self = try Self.decoder.decode(NodeReport.self, from: data)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
