import Foundation
import Logging
import SceneSync
import Synchronization

/// Where a dashboard reads the cluster's node reports: every live node's last ``NodeReport``,
/// this node's from memory and the others' from the cluster (see
/// `SceneSyncCluster.reports()`). Without a cluster (SQLite), this node's alone.
///
/// Make one, give it to the server (``SceneSyncServer/init(configuration:apps:reports:storage:)``)
/// and to the app that shows it:
///
/// ```swift
/// let reports = NodeReports()
/// let server = try SceneSyncServer(configuration: configuration, apps: [dashboard(reports)], reports: reports) { … }
/// ```
///
/// Reports tell which windows are open and what they show: they are for whoever runs the server.
/// A server that would listen beyond loopback without an access token does not start, and these
/// reports refuse to be read for one that did (``NodeReportsError/unprotectedServer``).
public final class NodeReports: Sendable {
    private struct State {
        var local: NodeReport?
        var cluster: (any SceneSyncCluster)?
        var isProtected = true
        var logger: Logger?
        var unreadable: Set<String> = []
    }

    private let state = Mutex(State())

    /// Reports that no server feeds yet.
    public init() {}

    /// Every live node's last report, ordered by node name; empty until the server made its first.
    ///
    /// - Throws: ``NodeReportsError/unprotectedServer`` if the server feeding these listens beyond
    ///   loopback without an access token; what the cluster throws if it could not be read.
    public func current() async throws -> [NodeReport] {
        let (local, cluster, isProtected) = state.withLock { ($0.local, $0.cluster, $0.isProtected) }
        guard isProtected else { throw NodeReportsError.unprotectedServer }
        guard let cluster else { return local.map { [$0] } ?? [] }
        var reports: [NodeReport] = []
        for record in try await cluster.reports() {
            if record.node == local?.node, let local {
                // This node's own, fresher than what it last published.
                reports.append(local)
                continue
            }
            do {
                reports.append(try NodeReport(json: record.report))
            } catch {
                noteUnreadable(record.node, error)
            }
        }
        if let local, !reports.contains(where: { $0.node == local.node }) { reports.append(local) }
        return reports.sorted { $0.node < $1.node }
    }

    /// This node's last report, from memory.
    public var local: NodeReport? { state.withLock { $0.local } }

    // MARK: - Fed by the server

    /// The server that feeds these starts: `cluster` is where other nodes' reports are, and
    /// `isProtected` whether the server keeps them to loopback or behind its token.
    func attach(cluster: (any SceneSyncCluster)?, isProtected: Bool, logger: Logger) {
        state.withLock { state in
            state.cluster = cluster
            state.isProtected = isProtected
            state.logger = logger
        }
    }

    func update(local report: NodeReport) {
        state.withLock { $0.local = report }
    }

    private func noteUnreadable(_ node: String, _ error: any Error) {
        let logger = state.withLock { state -> Logger? in
            state.unreadable.insert(node).inserted ? state.logger : nil
        }
        logger?.warning("A node's report cannot be read; the dashboard leaves it out", metadata: [
            "node": "\(node)", "error": "\(error)",
        ])
    }
}

/// Why ``NodeReports`` cannot be read.
public enum NodeReportsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server listens beyond loopback without an access token: what the reports say is not
    /// for anyone who can reach it.
    case unprotectedServer

    public var description: String {
        switch self {
        case .unprotectedServer: "Node reports are served only on loopback or behind the access token."
        }
    }
}
