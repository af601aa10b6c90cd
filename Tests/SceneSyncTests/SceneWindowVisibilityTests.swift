import SceneSync
@testable import SceneSyncUI
import SceneSyncSQLite
import SceneSyncTesting
import Testing

extension SceneWindowTests {
    /// Each screen knows whether it is the one its window shows: exactly the top of the selected
    /// stack, through pushes, pops, tab changes and a stack replaced.
    @Test func exactlyTheScreenOnTopOfTheSelectedStackIsVisible() async throws {
        let (host, order) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        let scene = try #require(window.scene?.window)
        func visible() -> [String] {
            scene.tabs.flatMap(\.navigation.screens).filter(\.isVisible).map(\.route.description)
        }
        #expect(visible() == ["menu"])
        try await host.perform("select", on: MenuScreen.row("Drinks"), in: window)
        #expect(visible() == ["category/Drinks"])
        try await host.perform("select", on: tab(TabID.order), in: window)
        #expect(visible() == ["order"])
        try await host.perform("select", on: tab(TabID.menu), in: window)
        #expect(visible() == ["category/Drinks"])
        let menu = try #require(scene.tabs.first { $0.id == TabID.menu }?.navigation)
        let drinks = try #require(menu.topScreen)
        menu.pop()
        #expect(visible() == ["menu"] && !drinks.isVisible)
        let root = try #require(menu.topScreen)
        await menu.setScreens([root, CategoryScreen(category: "Starters", order: order)])
        #expect(visible() == ["category/Starters"] && !root.isVisible)
        #expect(scene.visibleScreen?.isVisible == true)
    }
}
