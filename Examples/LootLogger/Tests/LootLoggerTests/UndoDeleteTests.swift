import Foundation
import Logging
import LootLogger
import SceneSync
import SceneSyncSQLite
import SceneSyncTesting
import SceneSyncUI
import Testing

/// A delete offers Undo in the window that deleted: the item comes back, with its key and fields,
/// at its place, in every window, through the model controller.
@MainActor
struct UndoDeleteTests {
    typealias Items = ItemsScreen.NodeID

    func launch() async throws -> (SceneHost, ItemStore) {
        let delegate = LootLoggerAppDelegate(logger: Logger(label: "test"))
        let host = try await SceneHost.launch(delegate: delegate, storage: try SQLiteStorage.inMemory())
        return (host, try #require(delegate.store))
    }

    func notices(_ window: HostedWindow) -> [ViewNode] { window.view?.nodes(of: .notice) ?? [] }

    @Test func undoPutsTheDeletedItemBackAtItsPlaceInEveryWindow() async throws {
        let (host, store) = try await launch()
        let deleting = try await host.openWindow()
        let other = try await host.openWindow()
        for _ in 0..<3 { try await host.tap(Items.add, in: deleting) }
        let before = await store.items
        try await host.waitUntil("three rows in the other window") { other.rowTitles.count == 3 }

        try await host.tap(Items.edit, in: deleting)
        try await host.perform("delete", on: Items.row(before[1].key), in: deleting)
        try await host.waitUntil("the delete in the other window") { other.rowTitles.count == 2 }
        let notice = try #require(notices(deleting).first)
        #expect(notice.props["message"]?.string == "“\(before[1].name)” deleted.")
        #expect(notice.props["undo"]?.string == "Undo")
        #expect(notices(other).isEmpty, "only the window that deleted offers to undo")

        try await host.tap(notice.id, in: deleting)
        try await host.waitUntil("the item back in the other window") { other.rowTitles.count == 3 }
        #expect(await store.items == before, "the same item, key and fields, at its place")
        #expect(other.rowTitles == before.map(\.name))
        #expect(deleting.rowTitles == before.map(\.name))
        #expect(notices(deleting).isEmpty, "the notice goes once used")
        // Used, it answers nothing more: a second tap undoes nothing twice.
        await #expect(throws: (any Error).self) { try await host.tap(notice.id, in: deleting) }
        #expect(await store.items.count == 3)
    }

    @Test func aNoticeWithoutUndoAnswersNoTap() async throws {
        let (host, _) = try await launch()
        let window = try await host.openWindow()
        (window.scene?.userInterface as? SceneWindow)?.showNotice("Just so you know.")
        let notice = try #require(notices(window).first)
        #expect(notice.props["undo"] == nil)
        await #expect(throws: ScreenError.self) { try await host.tap(notice.id, in: window) }
    }

    @Test func restoringIsAnIntentThatPutsTheItemAtTheEndOfAShorterListAndOnlyOnce() async throws {
        let (_, store) = try await launch()
        var items: [Item] = []
        for name in ["A", "B", "C"] { items.append(try await store.create(name: name, origin: nil)) }
        let removed = try await store.remove(items[2].key, origin: nil)
        #expect(removed.item == items[2] && removed.index == 2)
        try await store.remove(items[0].key, origin: nil)
        try await store.restore(removed, origin: nil)
        #expect(await store.items.map(\.name) == ["B", "C"], "index 2 of a list of one is its end")
        let sequence = await store.controller.snapshot().sequence
        try await store.restore(removed, origin: nil)
        #expect(await store.controller.snapshot().sequence == sequence, "undone twice: nothing more is committed")
        await #expect(throws: ItemStoreError.unknownItem(items[0].key)) { try await store.remove(items[0].key, origin: nil) }
    }
}
