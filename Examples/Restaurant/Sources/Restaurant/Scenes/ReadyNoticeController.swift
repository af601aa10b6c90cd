import SceneSync
public import SceneSyncUI

/// Tells a window, with a notice, each time an order in the kitchen becomes ready ("Order #2 is
/// ready"), whichever tab or screen it shows: a window on the Menu tab hears it too.
///
/// It follows the restaurant's ``RestaurantEvent/orderReady(number:)`` events after the sequence
/// number the window connected at, so each window is told once: a window that reconnects or
/// reloads gets a new controller that starts from then, and is not told again of an order that was
/// ready before. The scene delegate owns it; the subscription ends when the scene disconnects
/// (``stop()``) or when the controller is released.
@MainActor
public final class ReadyNoticeController {
    private weak var window: SceneWindow?
    private var following: Task<Void, Never>?

    /// Creates the controller for `window`.
    public init(window: SceneWindow) {
        self.window = window
    }

    deinit { following?.cancel() }

    /// The notice a window shows when the order `number` is ready.
    public nonisolated static func message(forOrder number: Int) -> String {
        "Order #\(number) is ready"
    }

    /// Starts telling of the orders that become ready after `sequence`, the restaurant's sequence
    /// number when the window connected.
    public func start(following restaurant: RestaurantController, after sequence: UInt64) {
        following?.cancel()
        following = Task { @MainActor [weak self] in
            var last = sequence
            while !Task.isCancelled {
                do {
                    for try await envelope in restaurant.events(after: last) {
                        last = envelope.sequence
                        guard let self else { return }
                        if case let .orderReady(number) = envelope.event {
                            self.window?.showNotice(Self.message(forOrder: number))
                        }
                    }
                    return  // The restaurant closed.
                } catch {
                    guard !Task.isCancelled else { return }
                    if case SubscriptionError.logUnavailable = error {
                        // The log could not be read: try again shortly rather than at once.
                        try? await Task.sleep(for: .seconds(1))
                    } else {
                        // So far behind that the log was trimmed past it (or it cannot be read
                        // past an event): what became ready meanwhile is old news. Go on from now.
                        last = await restaurant.snapshot().sequence
                    }
                }
            }
        }
    }

    /// Whether it follows the restaurant.
    public var isFollowing: Bool { following != nil }

    /// Stops following the restaurant.
    public func stop() {
        following?.cancel()
        following = nil
    }
}
