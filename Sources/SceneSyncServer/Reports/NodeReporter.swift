import Foundation
import Logging
import SceneSync
import SceneSyncUI
import ServiceLifecycle

/// Makes this node's ``NodeReport`` about once a second from its running apps, keeps it in
/// ``NodeReports`` for this node's dashboard, and publishes it to the cluster, if there is one,
/// for the others': one small write per node per second.
struct NodeReporter: Service {
    /// How much history the events per second are measured over.
    static let rateWindow: Duration = .seconds(5)

    /// The node's name, asked at each report.
    let node: @Sendable () -> String
    /// Returns once the server listens, when the node's name is known.
    let ready: @Sendable () async -> Void
    let startedAt: Date
    let runtimes: [AppRuntime]
    let reports: NodeReports
    let cluster: (any SceneSyncCluster)?
    let interval: Duration
    let logger: Logger

    /// Reports until the server shuts down gracefully (or the task is cancelled).
    func run() async throws {
        await cancelWhenGracefulShutdown {
            await ready()
            await report()
        }
    }

    private func report() async {
        var rates = LogRates(window: Self.rateWindow)
        var failing = false
        while !Task.isCancelled {
            let report = await makeReport(rates: &rates)
            reports.update(local: report)
            if let cluster {
                do {
                    try await cluster.publishReport(report.encoded())
                    if failing { logger.info("Publishing this node's report again") }
                    failing = false
                } catch {
                    // Said once per outage: the database's own errors are logged where they happen.
                    if !failing { logger.warning("Could not publish this node's report", metadata: ["error": "\(error)"]) }
                    failing = true
                }
            }
            try? await Task.sleep(for: interval)
        }
    }

    @MainActor
    func makeReport(rates: inout LogRates) -> NodeReport {
        let now = Date()
        let instant = ContinuousClock.now
        let apps = runtimes.map { runtime in
            let scenes = runtime.application.connectedScenes.values.sorted { $0.session.id.rawValue < $1.session.id.rawValue }
            let windows = scenes.prefix(NodeReport.maximumWindowsListed).map { scene in
                NodeReport.Window(session: scene.session.id.rawValue, state: scene.activationState, route: Self.route(of: scene))
            }
            let logs = runtime.logCounters.current.sorted { $0.key < $1.key }.map { name, counts in
                NodeReport.Log(name: name, lastSequence: counts.lastSequence, eventsCommitted: counts.eventsCommitted,
                               eventsPerSecond: rates.rate(of: "\(runtime.app.name)/\(name)", at: instant, sequence: counts.lastSequence))
            }
            return NodeReport.App(name: runtime.app.name, title: runtime.app.title, windows: Array(windows),
                                  windowsNotListed: scenes.count - windows.count, logs: logs)
        }
        return NodeReport(node: node(), startedAt: startedAt, reportedAt: now, apps: apps)
    }

    /// What a scene's window shows: its top route, after the selected tab when it has several.
    @MainActor
    static func route(of scene: Scene) -> String? {
        guard let window = scene.window, let screen = window.visibleScreen else { return nil }
        return window.tabs.count > 1 ? "\(window.selectedTabID) › \(screen.route)" : screen.route.description
    }
}

/// How fast each log grew over a sliding window of samples.
struct LogRates {
    let window: Duration
    private var samples: [String: [(at: ContinuousClock.Instant, sequence: UInt64)]] = [:]

    init(window: Duration) {
        self.window = window
    }

    /// Notes that log `key` has reached `sequence` now, and returns its events per second over
    /// the window (0 until there are two samples).
    mutating func rate(of key: String, at now: ContinuousClock.Instant, sequence: UInt64) -> Double {
        var list = samples[key, default: []]
        list.append((now, sequence))
        list.removeAll { now - $0.at > window }
        samples[key] = list
        guard let first = list.first, list.count > 1, sequence >= first.sequence else { return 0 }
        let seconds = (now - first.at).timeInterval
        return seconds > 0 ? Double(sequence - first.sequence) / seconds : 0
    }
}
