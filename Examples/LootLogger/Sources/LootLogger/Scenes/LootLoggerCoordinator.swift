public import Foundation
import SceneSync
public import SceneSyncUI

/// Owns a LootLogger window's navigation: the item list at the root, an item's detail pushed on
/// top. Screens tell it what the user wants; it decides what shows.
@MainActor
public final class LootLoggerCoordinator: Coordinator, ItemsScreenDelegate, ItemDetailScreenDelegate {
    /// The shared store.
    public let store: ItemStore
    /// The window it navigates.
    public unowned let window: SceneWindow
    /// The window's one navigation stack.
    public let navigation = NavigationController()

    /// Creates the coordinator.
    public init(store: ItemStore, window: SceneWindow) {
        self.store = store
        self.window = window
        super.init()
        window.coordinator = self
    }

    /// The item list at the root of the window.
    public private(set) var itemsScreen: ItemsScreen?

    /// An item's detail, the one kind of screen above the list: `/lootlogger/item/<key>`.
    public override var routes: [any RouteKind] { [ItemDetailScreen.route] }

    /// Shows the item list, and the detail screen the window was on if it is restored.
    public override func start(restoring state: NavigationState?) async {
        await start(restoring: state, editing: false)
    }

    /// Shows the item list, in edit mode if `editing`, and the detail screen the window was on if
    /// it is restored.
    public func start(restoring state: NavigationState?, editing: Bool) async {
        let list = makeItemsScreen(editing: editing)
        itemsScreen = list
        var screens: [ScreenController] = [list]
        for route in (state?.paths["main"] ?? []).dropFirst() {
            guard let key = ItemDetailScreen.route.argument(of: route), await store.controller.state.item(key) != nil else { break }
            screens.append(makeDetailScreen(key))
        }
        await navigation.setScreens(screens)
        await window.setRoot(navigation)
    }

    /// Shows the detail of `key` above the item list: a window opened for that item.
    public func start(showing key: UUID) async {
        await start(restoring: NavigationState(
            paths: ["main": [ItemsScreen.route(), ItemDetailScreen.route(key)]], selectedTab: "main"))
    }

    // MARK: - ItemsScreenDelegate

    public func itemsScreen(_ screen: ItemsScreen, didSelect key: UUID) async {
        guard navigation.topScreen === screen else { return }
        await navigation.push(makeDetailScreen(key))
    }

    public func itemsScreen(_ screen: ItemsScreen, openInNewWindow key: UUID) {
        guard let activity = try? SceneActivity(type: LootLoggerSceneDelegate.itemActivityType, payload: key) else { return }
        window.requestNewWindow(with: activity)
    }

    // MARK: - ItemDetailScreenDelegate

    public func itemDetailScreen(_ screen: ItemDetailScreen, itemWasDeleted name: String) {
        navigation.popToRoot()
        window.showNotice("“\(name)” was deleted in another window.")
    }

    private func makeItemsScreen(editing: Bool) -> ItemsScreen {
        let screen = ItemsScreen(store: store, editing: editing)
        screen.delegate = self
        return screen
    }

    private func makeDetailScreen(_ key: UUID) -> ItemDetailScreen {
        let screen = ItemDetailScreen(store: store, key: key)
        screen.delegate = self
        return screen
    }
}
