import Logging
import NIOCore
import Synchronization

/// Counts the server's open connections, in total and per client address, and says whether a new
/// one may stay. A trusted proxy's connections count in the total only: it carries many clients'.
final class ConnectionAdmission: Sendable {
    /// Why a connection was turned away.
    enum Refusal: String, Sendable {
        case serverFull = "the server's connection limit"
        case addressFull = "the connection limit per address"
    }

    let maximumPerAddress: Int
    /// Whose connections are exempt from ``maximumPerAddress``.
    let clients: ClientAddress
    private let counts: Mutex<Counts>

    private struct Counts {
        var maximumTotal: Int
        var total = 0
        var perAddress: [String: Int] = [:]
    }

    init(maximumTotal: Int, maximumPerAddress: Int, clients: ClientAddress = ClientAddress(trustedProxies: [])) {
        self.maximumPerAddress = maximumPerAddress
        self.clients = clients
        counts = Mutex(Counts(maximumTotal: maximumTotal))
    }

    /// The most connections admitted at once now.
    var maximumTotal: Int { counts.withLock(\.maximumTotal) }

    /// Lowers the limit to the connections open now, when the process ran out of descriptors with
    /// fewer open than the limit allows: every new one is refused until some close. Returns the
    /// new limit, or `nil` if it was already that low.
    func lowerLimitToOpenConnections() -> Int? {
        counts.withLock { counts in
            let lowered = max(1, counts.total)
            guard lowered < counts.maximumTotal else { return nil }
            counts.maximumTotal = lowered
            return lowered
        }
    }

    /// Counts the connection in if there is room, and out again when it closes.
    func admit(_ channel: any Channel) -> Refusal? {
        // A trusted proxy's address is not counted: its clients are, by the limits that know them.
        let address: String? = clients.isTrustedProxy(channel.remoteAddress) ? nil : Self.key(channel.remoteAddress)
        let refusal: Refusal? = counts.withLock { counts in
            if counts.total >= counts.maximumTotal { return .serverFull }
            if let address, counts.perAddress[address, default: 0] >= maximumPerAddress { return .addressFull }
            counts.total += 1
            if let address { counts.perAddress[address, default: 0] += 1 }
            return nil
        }
        if refusal == nil {
            channel.closeFuture.whenComplete { [self] _ in
                counts.withLock { counts in
                    counts.total -= 1
                    guard let address else { return }
                    let left = counts.perAddress[address, default: 1] - 1
                    counts.perAddress[address] = left > 0 ? left : nil
                }
            }
        }
        return refusal
    }

    /// Open connections, in total and from `address`.
    func count(from address: SocketAddress? = nil) -> (total: Int, fromAddress: Int) {
        let key = Self.key(address)
        return counts.withLock { ($0.total, address == nil ? 0 : $0.perAddress[key, default: 0]) }
    }

    /// The address without its port: two connections from one machine share it.
    static func key(_ address: SocketAddress?) -> String {
        ClientAddress.key(address)
    }
}

/// Logs a flood of refusals at warning without flooding the log: the first at once, then how many
/// more there were, at most once per interval.
final class RefusalReporter: Sendable {
    private let logger: Logger
    private let interval: Duration
    private let state = Mutex(State())
    /// Counts every refusal by kind, for the metrics.
    private let counter: RefusalCounter?

    private struct State {
        var lastReport: ContinuousClock.Instant?
        var unreported: [String: Int] = [:]
    }

    init(logger: Logger, interval: Duration = .seconds(10), counter: RefusalCounter? = nil) {
        self.logger = logger
        self.interval = interval
        self.counter = counter
    }

    /// Notes one refusal of `kind`; logs it, with those not logged yet, if the interval passed.
    func refused(_ kind: String, metadata: Logger.Metadata = [:]) {
        counter?.count(kind)
        let now = ContinuousClock.now
        let report: [String: Int]? = state.withLock { state in
            state.unreported[kind, default: 0] += 1
            if let last = state.lastReport, now - last < interval { return nil }
            state.lastReport = now
            defer { state.unreported = [:] }
            return state.unreported
        }
        guard let report else { return }
        var metadata = metadata
        for (kind, count) in report { metadata[kind] = "\(count)" }
        logger.warning("Refused connections or requests over the server's limits", metadata: metadata)
    }
}
