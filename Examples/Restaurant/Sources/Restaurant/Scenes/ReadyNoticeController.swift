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
    private var following: ModelFollowing?

    /// Creates the controller for `window`.
    public init(window: SceneWindow) {
        self.window = window
    }

    /// The notice a window shows when the order `number` is ready.
    public nonisolated static func message(forOrder number: Int) -> String {
        "Order #\(number) is ready"
    }

    /// Starts telling of the orders that become ready after `sequence`, the restaurant's sequence
    /// number when the window connected. Every window's controller shares one subscription to the
    /// restaurant's events.
    public func start(following restaurant: RestaurantController, after sequence: UInt64) {
        following?.cancel()
        following = restaurant.controller.follow(after: sequence) { [weak self] envelope in
            if case let .orderReady(number) = envelope.event {
                self?.window?.showNotice(Self.message(forOrder: number))
            }
        } fellBehind: { [weak self] in
            // So far behind that the log was trimmed past it, or the log could not be read:
            // what became ready meanwhile is old news. Go on from now, unless stopped (no
            // following) or started again (an active one) meanwhile.
            Task { @MainActor [weak self] in
                let now = await restaurant.snapshot().sequence
                guard let self, self.following?.isActive == false else { return }
                self.start(following: restaurant, after: now)
            }
        } finished: { [weak self] in
            // The restaurant closed; the following that ended is the only inactive one.
            if self?.following?.isActive == false { self?.following = nil }
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
