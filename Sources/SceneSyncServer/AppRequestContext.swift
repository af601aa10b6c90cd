import Foundation
public import Hummingbird
public import HTTPTypes
public import NIOCore

/// The context of an HTTP request to the server, as apps' routes see it: Hummingbird's, and who
/// the request came from, so that a route can limit what one client may do (such as Restaurant's
/// orders per address).
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext, ClientAddressRequestContext {
    /// Hummingbird's own part of the context.
    public var coreContext: CoreRequestContextStorage
    /// The address of the connection's peer, port included; `nil` if the connection no longer
    /// knows it. Behind a proxy, this is the proxy: limits per client use ``clientAddress``.
    public let remoteAddress: SocketAddress?
    /// The client's address without its port, as every limit per client counts it: the peer's,
    /// or, when the peer is a trusted proxy, the address it forwarded (see ``ClientAddress``).
    public internal(set) var clientAddress: String
    /// The connection, so that a stream whose client stopped reading can be dropped.
    let channel: any Channel

    /// Creates the context of a request that arrived on `source`'s connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        clientAddress = ClientAddress.key(source.channel.remoteAddress)
        channel = source.channel
    }
}

/// A request context that knows which client a request came from, as limits per client count it.
public protocol ClientAddressRequestContext: RequestContext {
    /// The client's IP address without its port, or `"unknown"`.
    var clientAddress: String { get }
}

/// Who a request's client is, for every limit per client address (connections, windows, widget
/// followers, apps' own limits such as Restaurant's orders): the connection's peer, unless the
/// peer is one of the trusted proxies. For a trusted proxy, the client is the last address of
/// `X-Forwarded-For`, the one the proxy appended; without that header, or with one whose last
/// entry is not an IP address, the proxy itself. `X-Forwarded-For` from any other peer is ignored,
/// since anyone can write it.
public struct ClientAddress: Sendable {
    /// The trusted proxies' addresses, in the form ``key(_:)`` gives a peer's.
    public let trustedProxies: Set<String>

    /// Trusts the proxies at `trustedProxies` (IP addresses; IPv6 with or without brackets).
    /// Entries that are not IP addresses are left out.
    public init(trustedProxies: [String]) {
        self.trustedProxies = Set(trustedProxies.compactMap(Self.canonical))
    }

    /// The address `text` names, written as a connection's peer is (`127.0.0.1`, `::1`), or `nil`
    /// if it is not an IP address. IPv6 may be in brackets.
    public static func canonical(_ text: String) -> String? {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        return (try? SocketAddress(ipAddress: text, port: 0))?.ipAddress
    }

    /// A peer's address without its port: two connections from one machine share it.
    public static func key(_ address: SocketAddress?) -> String {
        address?.ipAddress ?? "unknown"
    }

    /// Whether `peer` is one of the trusted proxies.
    public func isTrustedProxy(_ peer: SocketAddress?) -> Bool {
        guard !trustedProxies.isEmpty, let address = peer?.ipAddress else { return false }
        return trustedProxies.contains(address)
    }

    /// The client of a request from `peer` with `headers`.
    public func client(peer: SocketAddress?, headers: HTTPFields) -> String {
        let peerKey = Self.key(peer)
        guard isTrustedProxy(peer) else { return peerKey }
        // The proxy appends to what it was sent, so only the last entry is its own word. A proxy
        // may also add a field of its own rather than extend the first: the last field counts.
        guard let field = headers[values: Self.forwardedFor].last,
              let last = field.split(separator: ",", omittingEmptySubsequences: false).last,
              let forwarded = Self.canonical(String(last)) else {
            return peerKey
        }
        return forwarded
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}

/// Sets each request's ``AppRequestContext/clientAddress`` from its peer and, for a trusted
/// proxy, its `X-Forwarded-For`.
struct ClientAddressMiddleware: RouterMiddleware {
    let resolver: ClientAddress

    func handle(_ request: Request, context: AppRequestContext,
                next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard resolver.isTrustedProxy(context.remoteAddress) else { return try await next(request, context) }
        var context = context
        context.clientAddress = resolver.client(peer: context.remoteAddress, headers: request.headers)
        return try await next(request, context)
    }
}
