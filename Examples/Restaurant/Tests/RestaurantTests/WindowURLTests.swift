import Foundation
import Restaurant
import SceneSync
import SceneSyncSQLite
import SceneSyncTesting
import SceneSyncUI
import Testing

/// A window's place as a URL path (`SceneWindow.urlPath`), sent as the window node's `path`, and
/// the places a path names (`navigate(toPath:)`), on Restaurant's two tabs.
@MainActor
struct WindowURLTests {
    typealias Categories = CategoriesScreen.NodeID
    typealias Dishes = MenuItemsScreen.NodeID

    func sceneWindow(_ window: HostedWindow) throws -> SceneWindow {
        try #require(window.scene?.userInterface as? SceneWindow)
    }

    /// The window node's `path` and `history` as the window was last told.
    func sent(_ window: HostedWindow) -> (path: String?, history: String?) {
        let node = window.node(SceneWindow.NodeID.window)
        return (node?.props["path"]?.string, node?.props["history"]?.string)
    }

    @Test func thePathFollowsTheWindowAndTheUsersOwnStepsAreNewHistoryEntries() async throws {
        let (host, _) = try await launchRestaurant(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        #expect(sent(window).path == "menu" && sent(window).history == "replace", "drawn: in place of the URL")

        try await host.perform(.select, on: Categories.row("desserts"), in: window)
        #expect(sent(window).path == "menu/category/desserts" && sent(window).history == "push")
        try await host.perform(.select, on: Dishes.row(3), in: window)
        #expect(sent(window).path == "menu/category/desserts/dish/3")
        try await host.perform(.select, on: SceneWindow.NodeID.tab("order"), in: window)
        #expect(sent(window).path == "order" && sent(window).history == "push")
        #expect(try sceneWindow(window).urlPath == "order")
    }

    @Test func aPathNamesAPlaceAndNavigatingThereMovesTheWindow() async throws {
        let (host, _) = try await launchRestaurant(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        let scene = try sceneWindow(window)
        #expect(scene.navigationState(forPath: "menu/category/soups/dish/2")?.paths["menu"]
            == [Route("categories"), MenuItemsScreen.route("soups"), MenuItemDetailScreen.route(2)])
        #expect(scene.navigationState(forPath: "")?.selectedTab == "menu", "no tab named: the first")
        #expect(scene.navigationState(forPath: "order")?.selectedTab == "order")
        for nowhere in ["kitchen", "menu/category", "menu/dish/2/extra", "menu/nothing/1", "menu/%ZZ"] {
            #expect(scene.navigationState(forPath: nowhere) == nil, "\(nowhere)")
        }

        // A URL opened: built afresh, as restoration would; the browser is there, so "replace".
        try await host.perform(.navigate, on: SceneWindow.NodeID.window, value: "menu/category/soups/dish/2", in: window)
        #expect(window.title == "Onion Soup")
        #expect(sent(window) == ("menu/category/soups/dish/2", "replace"))
        // Back: pops to the category, the same screen as before.
        let category = try #require(scene.navigation?.screens[1])
        try await host.perform(.navigate, on: SceneWindow.NodeID.window, value: "menu/category/soups", in: window)
        #expect(window.title == "Soups" && scene.navigation?.screens.count == 2)
        #expect(scene.navigation?.screens[1] === category, "popped to, not built again")
        #expect(sent(window) == ("menu/category/soups", "replace"))
        // Another tab as it is: selected.
        try await host.perform(.navigate, on: SceneWindow.NodeID.window, value: "order", in: window)
        #expect(scene.selectedTabID == "order" && window.title == "Order")
        // Back again, to the Menu tab's place: the tab, and its stack as it was.
        try await host.perform(.navigate, on: SceneWindow.NodeID.window, value: "menu/category/soups", in: window)
        #expect(scene.selectedTabID == "menu" && window.title == "Soups")
        // A dish that is not on the menu: as far as the path makes sense.
        try await host.perform(.navigate, on: SceneWindow.NodeID.window, value: "menu/category/soups/dish/99", in: window)
        #expect(window.title == "Soups")
        #expect(sent(window).path == "menu/category/soups")
        // A path of nothing here: the window stays, and says where it is.
        let before = window.messages.count
        try await host.perform(.navigate, on: SceneWindow.NodeID.window, value: "kitchen/1", in: window)
        #expect(window.title == "Soups")
        #expect(window.messages.count > before && sent(window) == ("menu/category/soups", "replace"))
        await #expect(throws: ScreenError.self) {
            try await host.perform(.navigate, on: SceneWindow.NodeID.window, value: 3, in: window)
        }
    }

    @Test func aSegmentIsPercentEncodedAndReadBack() async throws {
        let (host, _) = try await launchRestaurant(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        let scene = try sceneWindow(window)
        let odd = NavigationState(paths: ["menu": [Route("categories"), MenuItemsScreen.route("a b/ç?")], "order": [Route("order")]],
                                  selectedTab: "menu")
        #expect(scene.navigationState(forPath: "menu/category/a%20b%2F%C3%A7%3F") == odd)
    }
}
