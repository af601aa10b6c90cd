#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import SceneSync
import SceneSyncCombine
public import SceneSyncUI

/// Keeps a window's Order tab badge equal to the number of dishes in the shared order, through
/// a Combine pipeline, as the course's `SceneHierarchyController` does: the restaurant's state is
/// mapped to a count, repeated counts are dropped, and the sink holds its owner weakly.
///
/// The scene delegate owns it; the subscription ends when the scene disconnects (``stop()``) or
/// when the controller is released, whichever comes first.
@MainActor
public final class OrderBadgeController {
    /// The tab whose badge it sets.
    public let tab: String
    private weak var window: SceneWindow?
    private var subscription: AnyCancellable?

    /// Creates the controller for `window`'s tab `tab`.
    public init(window: SceneWindow, tab: String) {
        self.window = window
        self.tab = tab
    }

    /// Starts following the restaurant's order.
    public func start(following restaurant: RestaurantController) {
        subscription = restaurant.controller.statePublisher()
            .map(\.order.count)
            .removeDuplicates()
            .sink { [weak self] count in self?.showBadge(count) }
    }

    /// Whether the pipeline is subscribed.
    public var isSubscribed: Bool { subscription != nil }

    /// Ends the subscription.
    public func stop() {
        subscription?.cancel()
        subscription = nil
    }

    private func showBadge(_ count: Int) {
        window?.setBadge(count == 0 ? nil : String(count), forTab: tab)
    }
}
