public import Foundation
public import Logging
public import SceneSyncServer

/// The dashboard's model: the cluster's node reports, read about once a second while a window
/// shows them, and handed to every window that follows it. It changes nothing anywhere: the
/// reports are what the nodes publish of themselves.
@MainActor
public final class ClusterMonitor {
    /// Where reports come from: ``NodeReports/current()`` on a server.
    public typealias Source = @Sendable () async throws -> [NodeReport]

    /// What the dashboard knows of the cluster at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Every live node's last report, ordered by name.
        public var nodes: [NodeReport]
        /// Why the reports could not be read last time, if they could not; `nodes` are then the
        /// last ones read.
        public var problem: String?
        /// When the reports were last read.
        public var readAt: Date?

        /// Creates a snapshot.
        public init(nodes: [NodeReport] = [], problem: String? = nil, readAt: Date? = nil) {
            self.nodes = nodes
            self.problem = problem
            self.readAt = readAt
        }

        /// The report of the node named `name`.
        public func node(_ name: String) -> NodeReport? { nodes.first { $0.node == name } }
    }

    /// The reports as last read.
    public private(set) var snapshot = Snapshot()
    /// How often the reports are read while anyone follows them.
    public let interval: Duration
    private let source: Source
    private let logger: Logger
    private var followers: [UUID: AsyncStream<Snapshot>.Continuation] = [:]
    private var polling: Task<Void, Never>?

    /// Creates a monitor that reads `source` every `interval` while followed.
    public init(interval: Duration = .seconds(1), logger: Logger, source: @escaping Source) {
        self.interval = interval
        self.logger = logger
        self.source = source
    }

    deinit { polling?.cancel() }

    /// Reads the reports now, and hands them to every follower.
    public func refresh() async {
        var next = snapshot
        do {
            next.nodes = try await source()
            next.problem = nil
        } catch {
            if snapshot.problem == nil { logger.warning("Could not read the nodes' reports", metadata: ["error": "\(error)"]) }
            next.problem = "The nodes' reports could not be read: \(error)"
        }
        next.readAt = Date()
        snapshot = next
        for follower in followers.values { follower.yield(next) }
    }

    /// Every snapshot read from now on, while the stream is iterated; the reports are read every
    /// ``interval`` for as long as anyone follows them, and not at all otherwise.
    public func updates() -> AsyncStream<Snapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: Snapshot.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        followers[id] = continuation
        continuation.onTermination = { _ in
            Task { @MainActor [weak self] in self?.stopFollowing(id) }
        }
        if polling == nil {
            polling = Task { [weak self, interval] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard let self, !Task.isCancelled else { return }
                    await self.refresh()
                }
            }
        }
        return stream
    }

    /// Whether ``snapshot`` was read less than ``interval`` ago. While anyone follows the reports it
    /// is kept so; once nobody does, it ages, and a window opened later must not be drawn from it
    /// (a node gone since would still be listed).
    public var isCurrent: Bool {
        guard let readAt = snapshot.readAt else { return false }
        let (seconds, attoseconds) = interval.components
        return Date().timeIntervalSince(readAt) < Double(seconds) + Double(attoseconds) / 1e18
    }

    /// How many follow the reports now.
    public var followerCount: Int { followers.count }

    private func stopFollowing(_ id: UUID) {
        followers[id] = nil
        if followers.isEmpty {
            polling?.cancel()
            polling = nil
        }
    }
}
