import Foundation
import Logging
import LootLogger
import SceneSync
import SceneSyncSQLite
import SceneSyncTesting
import SceneSyncUI
import Testing

/// An item's detail has a URL (`item/<key>`); the browser's Back to the list asks first when the
/// detail holds a refused edit, as the app's own Back does.
@MainActor
struct ItemURLTests {
    typealias Items = ItemsScreen.NodeID
    typealias Detail = ItemDetailScreen.NodeID

    func path(_ window: HostedWindow) -> (String?, String?) {
        let node = window.node(SceneWindow.NodeID.window)
        return (node?.props["path"]?.string, node?.props["history"]?.string)
    }

    @Test func browserBackWithARefusedValueAsksAndTheURLNamesTheItemAgain() async throws {
        let delegate = LootLoggerAppDelegate(logger: Logger(label: "test"))
        let host = try await SceneHost.launch(delegate: delegate, storage: try SQLiteStorage.inMemory())
        let store = try #require(delegate.store)
        let item = try await store.create(name: "Shiny Mac", value: "5", origin: nil)
        let window = try await host.openWindow()
        #expect(path(window).0 == "")
        try await host.perform(.select, on: Items.row(item.key), in: window)
        #expect(path(window) == ("item/\(item.key.uuidString)", "push"))
        try await host.type("12.99", into: Detail.value, in: window)

        // The browser went back to the list: the window asks, and the URL names the item again.
        try await host.perform(.navigate, on: SceneWindow.NodeID.window, value: "", in: window)
        #expect(window.node(SceneWindow.discardChangesAlert) != nil)
        #expect(window.title == "Shiny Mac")
        #expect(path(window) == ("item/\(item.key.uuidString)", "push"))
        try await host.perform("Discard", on: SceneWindow.discardChangesAlert, in: window)
        #expect(window.title == "LootLogger")
        #expect(path(window) == ("", "push"))

        // An item deleted meanwhile: its URL shows the list.
        try await store.remove(item.key, origin: nil)
        try await host.perform(.navigate, on: SceneWindow.NodeID.window, value: .string("item/\(item.key.uuidString)"), in: window)
        #expect(window.title == "LootLogger")
        #expect(path(window).0 == "")
    }
}
