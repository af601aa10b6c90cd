import SceneSync
public import SceneSyncUI

/// Owns a Restaurant window's navigation: a Menu tab (categories, a category's dishes, a dish)
/// and an Order tab. Screens tell it what the user wants; it decides what shows.
@MainActor
public final class RestaurantCoordinator: Coordinator, CategoriesScreenDelegate, MenuItemsScreenDelegate {
    /// The tabs' ids.
    public enum TabID {
        /// The Menu tab.
        public static let menu = "menu"
        /// The Order tab.
        public static let order = "order"
    }

    /// The shared restaurant.
    public let restaurant: RestaurantController
    /// The window it navigates.
    public unowned let window: SceneWindow
    /// The Menu tab's stack.
    public let menuNavigation = NavigationController()
    /// The Order tab's stack.
    public let orderNavigation = NavigationController()
    private let pictures: DishPictures

    /// Creates the coordinator.
    public init(restaurant: RestaurantController, pictures: DishPictures, window: SceneWindow) {
        self.restaurant = restaurant
        self.pictures = pictures
        self.window = window
        super.init()
        window.coordinator = self
    }

    /// A category's dishes, and a dish: `/restaurant/menu/category/<name>/dish/<id>`.
    public override var routes: [any RouteKind] { [MenuItemsScreen.route, MenuItemDetailScreen.route] }

    /// Shows both tabs, restoring the selected tab and the Menu tab's path if given.
    public override func start(restoring state: NavigationState?) async {
        var screens: [ScreenController] = [makeCategoriesScreen()]
        let path = (state?.paths[TabID.menu] ?? []).dropFirst()
        if let category = path.first.flatMap(MenuItemsScreen.route.argument(of:)), restaurant.menu.categories.contains(category) {
            screens.append(makeItemsScreen(category))
            if let id = path.dropFirst().first.flatMap(MenuItemDetailScreen.route.argument(of:)), restaurant.menu.item(id) != nil {
                screens.append(makeDetailScreen(id))
            }
        }
        await menuNavigation.setScreens(screens)
        await orderNavigation.setScreens([OrderScreen(restaurant: restaurant, pictures: pictures)])
        let selected = state?.selectedTab == TabID.order ? TabID.order : TabID.menu
        await window.setTabs([
            SceneWindow.Tab(id: TabID.menu, title: "Menu", icon: .listBullet, navigation: menuNavigation),
            SceneWindow.Tab(id: TabID.order, title: "Order", icon: .cart, navigation: orderNavigation),
        ], selected: selected)
    }

    // MARK: - CategoriesScreenDelegate

    public func categoriesScreen(_ screen: CategoriesScreen, didSelect category: String) async {
        guard menuNavigation.topScreen === screen, restaurant.menu.categories.contains(category) else { return }
        await menuNavigation.push(makeItemsScreen(category))
    }

    // MARK: - MenuItemsScreenDelegate

    public func menuItemsScreen(_ screen: MenuItemsScreen, didSelect id: Int) async {
        guard menuNavigation.topScreen === screen, restaurant.menu.item(id) != nil else { return }
        await menuNavigation.push(makeDetailScreen(id))
    }

    private func makeCategoriesScreen() -> CategoriesScreen {
        let screen = CategoriesScreen(menu: restaurant.menu)
        screen.delegate = self
        return screen
    }

    private func makeDetailScreen(_ id: Int) -> MenuItemDetailScreen {
        MenuItemDetailScreen(restaurant: restaurant, itemID: id, picture: pictures.url(for: id))
    }

    private func makeItemsScreen(_ category: String) -> MenuItemsScreen {
        let screen = MenuItemsScreen(menu: restaurant.menu, category: category, pictures: pictures)
        screen.delegate = self
        return screen
    }
}
