public import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
public import Prometheus
import SceneSync
import SceneSyncMetrics

extension SceneSyncServer {
    /// What the server records its metrics with, and whether it serves them, in Prometheus' text
    /// format, at `GET /metrics`.
    ///
    /// Everything goes through one swift-metrics factory: the server's own metrics, and those of
    /// the model controllers its apps create while they launch (see
    /// `ModelControllerMetrics`). Every metric is labelled `node`; those of one app
    /// also `app`.
    ///
    /// | metric | type | labels | meaning |
    /// | --- | --- | --- | --- |
    /// | `scenesync_windows_connected` | gauge | app, node | windows' WebSockets open |
    /// | `scenesync_window_reconnects_total` | counter | app, node | windows that came back to the session they had |
    /// | `scenesync_intents_total` | counter | app, node | intents committed |
    /// | `scenesync_commit_batch_size` | histogram | app, node | intents per committed batch |
    /// | `scenesync_commit_seconds` | histogram | app, node | a batch's commit |
    /// | `scenesync_fanout_seconds` | histogram | app, node | a batch's last event, from its envelope timestamp to the first window queued a patch with it |
    /// | `scenesync_cross_node_lag_seconds` | histogram | app, node | events other nodes committed, from their envelope timestamp to when this node read them |
    /// | `scenesync_refusals_total` | counter | reason, node | connections, requests and windows refused over the server's limits |
    /// | `scenesync_widget_followers` | gauge | app, node | widget event streams open, when scraped |
    /// | `scenesync_connections_open` | gauge | node | HTTP connections open, when scraped |
    /// | `scenesync_outbound_queued_bytes` | gauge | node | bytes queued for windows, not written yet, when scraped |
    ///
    /// Who may read `/metrics`: a client on this machine (the connection's peer in `127.0.0.0/8` or
    /// `::1`), or, when the server has an access token, any client that sends it as
    /// `Authorization: Bearer …`. A request that carries `X-Forwarded-For`, `Forwarded` or
    /// `X-Real-IP` was relayed by a proxy, whose own connection may well come from loopback: it
    /// needs the token. Others get `403` (`401` when the server has a token).
    ///
    /// ```swift
    /// // A process of its own: bootstrap swift-metrics once, and serve the same registry.
    /// let registry = PrometheusCollectorRegistry()
    /// MetricsSystem.bootstrap(SceneSyncServer.MetricsOptions.prometheusFactory(registry: registry))
    /// configuration.metrics = .init(registry: registry, node: "a")
    /// // Tests, or several servers in one process: a registry each, nothing bootstrapped.
    /// configuration.metrics = .prometheus(node: "test")
    /// ```
    public struct MetricsOptions: Sendable {
        /// The registry `GET /metrics` renders; `nil` for no endpoint.
        public var registry: PrometheusCollectorRegistry?
        /// The factory every metric is made with; `nil` for `MetricsSystem.factory` as it is when
        /// the server is created (which records nothing unless the process bootstrapped it).
        public var factory: (any MetricsFactory)?
        /// This node's name: the `node` label of every metric.
        public var node: String

        /// Creates metrics options; by default, metrics go to `MetricsSystem.factory` and are not served.
        public init(registry: PrometheusCollectorRegistry? = nil, factory: (any MetricsFactory)? = nil, node: String = "local") {
            self.registry = registry
            self.factory = factory
            self.node = node
        }

        /// Records into `registry` through a factory of its own (``prometheusFactory(registry:)``)
        /// and serves it, without touching `MetricsSystem`: for tests, and for several servers in
        /// one process, each with its own registry.
        public static func prometheus(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), node: String = "local") -> Self {
            Self(registry: registry, factory: prometheusFactory(registry: registry), node: node)
        }

        /// A Prometheus factory over `registry` with SceneSync's histogram buckets: commit and
        /// fan-out times from half a millisecond to five seconds, cross-node lag up to a minute,
        /// batch sizes in powers of two up to 1,024. Bootstrap `MetricsSystem` with it.
        public static func prometheusFactory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
            var factory = PrometheusMetricsFactory(registry: registry)
            let short: [Duration] = [
                .microseconds(500), .milliseconds(1), .microseconds(2_500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5),
            ]
            factory.durationHistogramBuckets = [
                ModelControllerMetrics.Name.commitTime: short,
                ServerMetrics.Name.fanout: short,
                ModelControllerMetrics.Name.crossNodeLag: Array(short.dropFirst()) + [.seconds(10), .seconds(30), .seconds(60)],
            ]
            factory.valueHistogramBuckets = [ModelControllerMetrics.Name.batchSize: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1_024]]
            return factory
        }
    }

    /// `GET /metrics`: `registry` in Prometheus' text format, to whom ``MetricsAccess`` lets in.
    /// The gauges that are sampled (connections, queued bytes, widget followers) are set first.
    func addMetricsRoute(to router: Router<AppRequestContext>, registry: PrometheusCollectorRegistry, widgets: [String: WidgetHub]) {
        let connectionsOpen = metrics.gauge(ServerMetrics.Name.connections)
        let outboundBytes = metrics.gauge(ServerMetrics.Name.outboundBytes)
        let followers = widgets.map { (hub: $0.value, gauge: metrics.gauge(ServerMetrics.Name.widgetFollowers, app: $0.key)) }
        let (connections, budget, policy, logger) = (connections, outboundBudget, policy, configuration.logger)
        router.get("/metrics") { request, context in
            let access = MetricsAccess.decide(peer: context.channel.remoteAddress, request: request.head, policy: policy)
            guard access == .allowed else {
                logger.notice("Refused a request for the metrics", metadata: ["status": "\(access.status.code)"])
                return access.refusal
            }
            connectionsOpen.set(connections.count)
            outboundBytes.set(budget.queuedBytes)
            for (hub, gauge) in followers { gauge.set(hub.followerCount) }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }
}

/// Who may read `/metrics`: decided on the TCP peer, never on what a proxy says about its client.
///
/// Allowed: a request with the access token as `Authorization: Bearer …` (when the server has
/// one), from anywhere; or one from a loopback peer (`127.0.0.0/8`, `::1`, or either mapped into
/// IPv6) that no proxy relayed. A proxy on the same machine (nginx in front of the node) connects
/// from loopback on behalf of anyone, so a request carrying a forwarding header
/// (`X-Forwarded-For`, `Forwarded`, `X-Real-IP`) needs the token whatever its peer. This holds
/// whether or not the proxy is one the server trusts for limits per client.
enum MetricsAccess: Equatable {
    case allowed
    /// No token on the server, and not from this machine (or relayed): 403.
    case forbidden
    /// The server has a token, and the request did not bring it: 401.
    case unauthorized

    /// Headers a proxy adds when it relays a request.
    static let forwardingFields: [HTTPField.Name] = ["X-Forwarded-For", "Forwarded", "X-Real-IP"].compactMap { HTTPField.Name($0) }

    static func decide(peer: SocketAddress?, request: HTTPRequest, policy: AccessPolicy) -> MetricsAccess {
        if policy.token != nil, let bearer = AccessPolicy.bearerToken(request), policy.accepts(token: bearer) { return .allowed }
        let relayed = forwardingFields.contains { !request.headerFields[values: $0].isEmpty }
        if !relayed, isLoopback(peer) { return .allowed }
        return policy.token == nil ? .forbidden : .unauthorized
    }

    /// Whether `peer` is an address of this machine's loopback: `127.0.0.0/8`, `::1`, or
    /// `::ffff:127.x.y.z` (a v4 client of a server listening on `::`).
    static func isLoopback(_ peer: SocketAddress?) -> Bool {
        guard var address = peer?.ipAddress?.lowercased() else { return false }
        if address == "::1" { return true }
        if address.hasPrefix("::ffff:") { address.removeFirst(7) }
        let octets = address.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    var status: HTTPResponse.Status {
        switch self {
        case .allowed: .ok
        case .forbidden: .forbidden
        case .unauthorized: .unauthorized
        }
    }

    /// The JSON error the server answers with elsewhere.
    var refusal: Response {
        let body = switch self {
        case .unauthorized: #"{"error":"unauthorized","reason":"this server needs its access token as Authorization: Bearer"}"#
        default: #"{"error":"forbidden","reason":"the metrics are served to this machine only, or with the access token as Authorization: Bearer"}"#
        }
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
