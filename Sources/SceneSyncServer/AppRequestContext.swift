public import Hummingbird
public import NIOCore

/// The context of an HTTP request to the server, as apps' routes see it: Hummingbird's, and the
/// address the request came from, so that a route can limit what one client may do (such as
/// Restaurant's orders per address).
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's own part of the context.
    public var coreContext: CoreRequestContextStorage
    /// The client's address, port included; `nil` if the connection no longer knows it.
    public let remoteAddress: SocketAddress?
    /// The connection, so that a stream whose client stopped reading can be dropped.
    let channel: any Channel

    /// Creates the context of a request that arrived on `source`'s connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}
