import Logging
import Restaurant
import ServiceLifecycle

/// Runs the ``KitchenTimer`` in the server's service group, until the server shuts down.
struct KitchenService: Service {
    let timer: KitchenTimer

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await timer.run()
        }
    }
}
