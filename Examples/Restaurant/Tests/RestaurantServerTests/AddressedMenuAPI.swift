#if os(Linux)
import Foundation
import Hummingbird
import Logging
import NIOCore
import Restaurant
import RestaurantServer
import SceneSyncSQLite
import SceneSyncTestSupport
import ServiceLifecycle

/// The menu API alone on a real Hummingbird server on a free port of 127.0.0.1, with a request
/// context that knows the client's address, so that limits per address can be seen apart. Linux
/// answers on every 127.x.y.z address, so a client can come from 127.0.0.2 as from another machine.
final class AddressedMenuAPI: Sendable {
    /// A request context with the peer's address, as a server that tells apps its clients' has.
    struct Context: RequestContext, RemoteAddressRequestContext {
        var coreContext: CoreRequestContextStorage
        let remoteAddress: SocketAddress?

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            remoteAddress = source.channel.remoteAddress
        }
    }

    let port: Int
    let restaurant: RestaurantController
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(port: Int, restaurant: RestaurantController, group: ServiceGroup, running: Task<Void, any Error>) {
        self.port = port
        self.restaurant = restaurant
        self.group = group
        self.running = running
    }

    /// Runs `body` with a server whose restaurant has `limits`, and stops it afterwards.
    static func run(limits: OrderLimits, _ body: (AddressedMenuAPI) async throws -> Void) async throws {
        var logger = Logger(label: "restaurant.tests")
        logger.logLevel = .warning
        let directory = TemporaryDirectory()
        let restaurant = try await RestaurantController(
            menu: try Menu.standard(), storage: try SQLiteStorage(path: directory.path("restaurant.sqlite")), limits: limits, logger: logger)
        let api = try MenuAPI(restaurant: restaurant, images: nil)
        let router = Router(context: Context.self)
        api.addRoutes(to: router.group())
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { port.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let running = Task { try await group.run() }
        var bound = ports.makeAsyncIterator()
        let server = AddressedMenuAPI(port: await bound.next() ?? 0, restaurant: restaurant, group: group, running: running)
        do {
            try await body(server)
        } catch {
            await group.triggerGracefulShutdown()
            try? await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await running.value
    }

    /// `POST /order` of `menuIDs` from the address `source`, over a socket bound to it.
    func order(_ menuIDs: [Int], from source: String) throws -> (status: Int, headers: [String: String], body: Data) {
        let body = #"{"menuIds": \#(menuIDs)}"#
        let request = "POST /order HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        return try BoundHTTPClient(source: source).send(Data(request.utf8), port: port)
    }
}
#endif
