import Foundation
import Logging
import LootLogger
import SceneSync
import SceneSyncSQLite
import SceneSyncTesting
import Testing

@MainActor
struct LootLoggerSceneTests {
    func launch(_ storage: any SceneSyncStorage) async throws -> (SceneHost, LootLoggerAppDelegate) {
        let delegate = LootLoggerAppDelegate(logger: Logger(label: "test"))
        return (try await SceneHost.launch(delegate: delegate, storage: storage), delegate)
    }

    func items(_ window: HostedWindow) -> [Item] {
        window.delegate(as: LootLoggerSceneDelegate.self)?.items ?? []
    }

    @Test(arguments: StorageKind.allCases)
    func everyChangeInOneWindowShowsInTheOtherWithItsOrigin(kind: StorageKind) async throws {
        let (host, app) = try await launch(try kind.make())
        let store = try #require(app.store)
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        let rightDelegate = try #require(right.delegate(as: LootLoggerSceneDelegate.self))

        let first = try await store.createRandomItem(origin: left.sessionID)
        let second = try await store.create(name: "Rusty Spork", value: "12", origin: left.sessionID)
        try await host.waitUntil("both windows show two items") { items(left).count == 2 && items(right).count == 2 }
        #expect(items(right) == [first, second])
        #expect(rightDelegate.received.allSatisfy { $0.origin == left.sessionID })

        try await store.move(second.key, to: 0, origin: right.sessionID)
        try await store.update(first.key, ItemChanges(name: "Shiny Bear"), origin: right.sessionID)
        try await host.waitUntil("the left window shows the move and the edit") {
            items(left).map(\.name) == ["Rusty Spork", "Shiny Bear"]
        }
        #expect(left.delegate(as: LootLoggerSceneDelegate.self)?.received.last?.origin == right.sessionID)

        try await store.remove(second.key, origin: left.sessionID)
        try await host.waitUntil("both windows show one item") { items(left).count == 1 && items(right).count == 1 }
        #expect(items(left) == items(right))
        #expect(items(right) == (await store.items))
    }

    @Test func aWindowThatWasAwayCatchesUpWhenItComesBack() async throws {
        let (host, app) = try await launch(try SQLiteStorage.inMemory())
        let store = try #require(app.store)
        let window = try await host.openWindow()
        try await host.hide(window)
        await host.disconnect(window)
        for _ in 0..<5 { try await store.createRandomItem(origin: nil) }

        try await host.reload(window)
        try await host.waitUntil("the window shows five items") { items(window).count == 5 }
        #expect(items(window) == (await store.items))
    }

    @Test func anEditingWindowComesBackWithItsDraftAfterTheWholeApplicationRestarts() async throws {
        let path = TemporaryDirectory().path("lootlogger.sqlite")
        let sessionID: SceneSession.ID
        let key: UUID
        do {
            let (host, app) = try await launch(try SQLiteStorage(path: path))
            key = try await app.store!.create(name: "Rusty Spork", value: "3", origin: nil).key
            let window = try await host.openWindow()
            sessionID = window.sessionID
            window.delegate(as: LootLoggerSceneDelegate.self)!.editing =
                .init(item: key, nameDraft: "Rusty Sp")
            await host.disconnect(window)
            await host.terminate()
        }

        let (host, _) = try await launch(try SQLiteStorage(path: path))
        let window = try await host.openWindow(session: sessionID)
        let delegate = try #require(window.delegate(as: LootLoggerSceneDelegate.self))

        #expect(window.sessionID == sessionID)
        let restored = try #require(delegate.restoredActivity)
        #expect(restored.type == LootLoggerSceneDelegate.activityType)
        #expect(try restored.decodePayload(as: LootLoggerSceneDelegate.EditingState.self)
            == .init(item: key, nameDraft: "Rusty Sp"))
        #expect(delegate.editing == .init(item: key, nameDraft: "Rusty Sp"))
        try await host.waitUntil("the restored window shows the item") { items(window).map(\.key) == [key] }
    }

    @Test func closingAWindowIsReportedToTheAppDelegate() async throws {
        let (host, app) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.close(window)
        #expect(app.discardedSessions == [window.sessionID])
    }
}
