import Logging
import SceneSync
import ServiceLifecycle

/// An app's services on a storage shared by nodes: they run on the one node that holds the
/// app's lead (see ``SceneSync/SceneSyncCluster/leadership(of:)``), and start on another when that
/// node stops or dies. A node that loses the lead stops them by cancelling their task.
///
/// On a graceful shutdown the services are told as usual, and the lead is let go only once they
/// have stopped. A service that fails fails this one, which shuts the server down gracefully.
struct LeadingServices: Service {
    /// The lead they run under, such as `"services:restaurant"`.
    let role: String
    let services: [any Service]
    let cluster: any SceneSyncCluster
    let logger: Logger

    private enum Signal: Sendable {
        case lead(Bool)
        case failed(any Error)
        case shutdown
    }

    func run() async throws {
        let (signals, signal) = AsyncStream.makeStream(of: Signal.self)
        let leadership = cluster.leadership(of: role)
        let following = Task {
            for await leads in leadership { signal.yield(.lead(leads)) }
            // The stream ends when the storage closes: the lead is gone with it.
            signal.yield(.lead(false))
        }
        var running: Task<Void, Never>?
        var failure: (any Error)?
        await withGracefulShutdownHandler {
            loop: for await next in signals {
                switch next {
                case .lead(true) where running == nil:
                    logger.info("This node leads: it runs the app's services", metadata: ["role": "\(role)"])
                    running = Task { [services] in
                        do {
                            try await withThrowingTaskGroup(of: Void.self) { group in
                                for service in services { group.addTask { try await service.run() } }
                                try await group.waitForAll()
                            }
                        } catch is CancellationError {
                        } catch {
                            signal.yield(.failed(error))
                        }
                    }
                case .lead(false):
                    guard let task = running else { continue }
                    logger.warning("This node lost the lead; stopping the app's services", metadata: ["role": "\(role)"])
                    task.cancel()
                    await Self.wait(for: task)
                    running = nil
                case .lead(true):
                    continue
                case let .failed(error):
                    failure = error
                    break loop
                case .shutdown:
                    break loop
                }
            }
        } onGracefulShutdown: {
            signal.yield(.shutdown)
        }
        // Services inherit the graceful shutdown and stop by themselves; the lead goes after them.
        if failure != nil || Task.isCancelled { running?.cancel() }
        if let running { await Self.wait(for: running) }
        following.cancel()
        if let failure { throw failure }
    }

    /// Waits for the services' task to end; cancelled meanwhile (the service group's shutdown took
    /// too long), it cancels them.
    private static func wait(for task: Task<Void, Never>) async {
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
