import Foundation
import Logging
import LootLogger
import SceneSync
import SceneSyncUI
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

@MainActor
struct LootLoggerSceneTests {
    typealias Items = ItemsScreen.NodeID
    typealias Detail = ItemDetailScreen.NodeID

    func launch(_ storage: any SceneSyncStorage) async throws -> (SceneHost, ItemStore) {
        let delegate = LootLoggerAppDelegate(logger: Logger(label: "test"))
        let host = try await SceneHost.launch(delegate: delegate, storage: storage)
        return (host, try #require(delegate.store))
    }

    /// The window's screen as a fresh window would draw it.
    func screenNode(_ window: HostedWindow) -> ViewNode? { window.node(SceneWindow.NodeID.screen) }

    @Test(arguments: StorageKind.allCases)
    func addEditMoveAndDeleteInOneWindowShowInTheOther(kind: StorageKind) async throws {
        let (host, store) = try await launch(try kind.make())
        let recorder = EventRecorder(store.events(after: 0))
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        #expect(right.title == "LootLogger")
        #expect(right.node(Items.empty) != nil)

        for _ in 0..<3 { try await host.tap(Items.add, in: left) }
        try await host.waitUntil("three rows on the right") { right.rowTitles.count == 3 }
        #expect(left.rowTitles == right.rowTitles)
        #expect(right.node(Items.empty) == nil)
        #expect(try await recorder.waitForEvents(count: 3).allSatisfy { $0.origin == left.sessionID })

        let items = await store.items
        try await host.perform("select", on: Items.row(items[0].key), in: left)
        #expect(left.title == items[0].name)
        try await host.type("Rusty Spork", into: Detail.name, in: left)
        try await host.waitUntil("the renamed row on the right") { right.rowTitles.first == "Rusty Spork" }
        #expect(left.title == "Rusty Spork")

        try await host.tap(Items.edit, in: right)
        #expect(right.text(Items.edit, "label") == "Done")
        #expect(right.node(Items.table)?.props["editing"] == true)
        try await host.perform("move", on: Items.row(items[0].key), value: 2, in: right)
        try await host.waitUntil("the move on the right") { right.rowTitles.last == "Rusty Spork" }
        try await host.perform("delete", on: Items.row(items[1].key), in: right)
        try await host.back(in: left)
        try await host.waitUntil("the delete on the left") { left.rowTitles.count == 2 }
        #expect(left.rowTitles == right.rowTitles)
        #expect(left.rowTitles == (await store.items).map(\.name))
        let footer = "2 items — $\((await store.items).reduce(0) { $0 + $1.valueInDollars }) total"
        #expect(left.text(Items.section, "footer") == footer)
        #expect(left.patchFailures.isEmpty && right.patchFailures.isEmpty)
    }

    @Test func aWindowBuiltFromPatchesShowsWhatAFreshWindowDraws() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let old = try await host.openWindow()
        for round in 0..<40 {
            let items = await store.items
            switch round % 5 {
            case 0, 1: try await store.createRandomItem(origin: nil)
            case 2: try await store.move(items[0].key, to: items.count - 1, origin: nil)
            case 3: try await store.update(items[items.count / 2].key, ItemChanges(name: "Renamed \(round)", valueInDollars: round), origin: nil)
            default: try await store.remove(items[1].key, origin: nil)
            }
        }
        let sequence = await store.snapshot().sequence
        try await host.waitUntil("the old window to catch up") { old.sequences[ItemStore.app] == sequence }
        let fresh = try await host.openWindow()
        #expect(old.patchFailures.isEmpty)
        #expect(screenNode(old) == screenNode(fresh))
        #expect(old.rowTitles.count == (await store.items).count)
    }

    @Test func aOneRowChangeSendsTheSameSmallPatchFor100And10000Items() async throws {
        var sizes: [Int] = []
        for count in [100, 10_000] {
            let (host, store) = try await launch(try SQLiteStorage.inMemory())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<50 {
                    group.addTask {
                        for index in stride(from: writer, to: count, by: 50) {
                            try await store.create(name: "Item \(index)", value: "1", origin: nil)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let window = try await host.openWindow()
            let key = (await store.items)[count / 2].key
            let before = window.messages.count
            try await store.update(key, ItemChanges(valueInDollars: 7), origin: nil)
            try await host.waitUntil("the patch") { window.messages.count > before }
            guard case let .patch(ops, _) = window.messages.last else { Issue.record("expected a patch"); return }
            #expect(ops.count == 2)
            #expect(ops.first == .set(id: Items.row(key), props: ["detail": "$7"]))
            sizes.append(try JSONEncoder().encode(ops).count)
        }
        // The row's patch is the same; the footer ("100 items — $106 total" against
        // "10,000 items — $10,006 total") differs only by the digits of its two numbers.
        #expect(sizes[1] - sizes[0] == 6)
        #expect(sizes.allSatisfy { $0 < 512 })
    }

    @Test func twoWindowsOnOneItemSeeEachOthersCommittedFields() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let item = try await store.create(name: "Shiny Mac", serialNumber: "A1", value: "5", origin: nil)
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        for window in [left, right] { try await host.perform("select", on: Items.row(item.key), in: window) }

        try await host.type("Rusty Mac", into: Detail.name, in: left)
        try await host.type("99", into: Detail.value, in: right)

        try await host.waitUntil("both fields in both windows") {
            [left, right].allSatisfy { $0.text(Detail.name, "value") == "Rusty Mac" && $0.text(Detail.value, "value") == "99" }
        }
        #expect(right.title == "Rusty Mac")
        #expect(left.text(Detail.serialNumber, "value") == "A1")
        #expect((await store.items).first?.name == "Rusty Mac")
    }

    @Test func theCommittingWindowIsAnsweredOnceWithTheTextItTypedAndOthersGetTheStoredValue() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let item = try await store.create(name: "Shiny Mac", origin: nil)
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        for window in [left, right] { try await host.perform("select", on: Items.row(item.key), in: window) }
        let sent = (left: left.messages.count, right: right.messages.count)

        try await host.type("  Rusty Mac  ", into: Detail.name, in: left)
        try await host.waitUntil("the stored name in both windows") {
            [left, right].allSatisfy { $0.text(Detail.name, "value") == "Rusty Mac" }
        }

        // The event carries the left window's origin: its screen skips it and answers the commit
        // itself, with the text typed, so that the field shows the trimmed name as its own.
        #expect(Self.sets(of: Detail.name, in: left.messages[sent.left...]) == [[
            "value": .string("Rusty Mac"), "accepted": .string("  Rusty Mac  "), "error": ViewValue.null, "draft": ViewValue.null,
        ]])
        #expect(Self.sets(of: Detail.name, in: right.messages[sent.right...]) == [["value": .string("Rusty Mac")]])
    }

    /// The properties each patch in `messages` set on `node`, in order.
    static func sets(of node: String, in messages: ArraySlice<WindowUpdate>) -> [[String: ViewValue]] {
        messages.flatMap { message -> [[String: ViewValue]] in
            guard case let .patch(ops, _) = message else { return [] }
            return ops.compactMap { op in
                guard case let .set(id, props) = op, id == node else { return nil }
                return props
            }
        }
    }

    @Test func anInvalidValueShowsItsErrorAndKeepsTheStoredValue() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let item = try await store.create(name: "Shiny Mac", value: "5", origin: nil)
        let window = try await host.openWindow()
        try await host.perform("select", on: Items.row(item.key), in: window)

        for bad in ["abc", "-5", "1e99"] {
            try await host.type(bad, into: Detail.value, in: window)
            #expect(window.text(Detail.value, "error") == ItemStoreError.invalidValue(bad).description)
            #expect(window.text(Detail.value, "value") == "5")
        }
        #expect(await store.items == [item])

        try await host.type("$12", into: Detail.value, in: window)
        #expect(window.node(Detail.value)?.props["error"] == nil)
        try await host.waitUntil("the stored value") { window.text(Detail.value, "value") == "12" }
    }

    @Test func backWithARefusedValueAsksBeforeDiscardingIt() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let item = try await store.create(name: "Shiny Mac", value: "5", origin: nil)
        let window = try await host.openWindow()
        try await host.perform("select", on: Items.row(item.key), in: window)
        try await host.type("12.99", into: Detail.value, in: window)

        // Back asks; Keep Editing stays, with the error.
        try await host.back(in: window)
        let alert = try #require(window.node(SceneWindow.discardChangesAlert))
        #expect(alert.props["title"] == "Discard changes?")
        #expect(alert.props["message"] == "“12.99” in Value was not saved. Discard, or keep editing to fix it.")
        #expect(window.title == "Shiny Mac")
        try await host.perform("Keep Editing", on: SceneWindow.discardChangesAlert, in: window)
        #expect(window.node(SceneWindow.discardChangesAlert) == nil)
        #expect(window.title == "Shiny Mac")
        #expect(window.text(Detail.value, "error") != nil)

        // Discard goes back, the stored value as it was; the next visit shows no error.
        try await host.back(in: window)
        try await host.perform("Discard", on: SceneWindow.discardChangesAlert, in: window)
        #expect(window.title == "LootLogger")
        #expect(await store.items == [item])
        try await host.perform("select", on: Items.row(item.key), in: window)
        #expect(window.node(Detail.value)?.props["error"] == nil)
        try await host.back(in: window)
        #expect(window.title == "LootLogger", "nothing unsaved: Back goes at once")

        // A value refused, then a good one: nothing to ask about.
        try await host.perform("select", on: Items.row(item.key), in: window)
        try await host.type("abc", into: Detail.value, in: window)
        try await host.type("7", into: Detail.value, in: window)
        try await host.back(in: window)
        #expect(window.title == "LootLogger")
    }

    @Test func anItemDeletedElsewhereTakesItsDetailWindowBackToTheListAndSaysWhy() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let item = try await store.create(name: "Fluffy Bear", origin: nil)
        let detail = try await host.openWindow()
        let list = try await host.openWindow()
        try await host.perform("select", on: Items.row(item.key), in: detail)
        #expect(detail.title == "Fluffy Bear")

        try await host.tap(Items.edit, in: list)
        try await host.perform("delete", on: Items.row(item.key), in: list)

        // The detail screen and the list beneath it follow the removal each in its own task: the
        // window may be back on the list a moment before the list has dropped the row.
        try await host.waitUntil("the detail window back on the empty list") {
            detail.title == "LootLogger" && detail.node(Items.empty) != nil
        }
        #expect(detail.view?.nodes(of: .notice).first?.props["message"] == "“Fluffy Bear” was deleted in another window.")
    }

    @Test func openInNewWindowOpensASceneOnThatItemsDetail() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let item = try await store.create(name: "Shiny Spork", origin: nil)
        let window = try await host.openWindow()
        try await host.perform(ItemsScreen.openInNewWindow, on: Items.row(item.key), in: window)
        let activity = try #require(window.openRequests.first)

        let opened = try await host.openWindow(activity: activity)

        #expect(opened.sessionID != window.sessionID)
        #expect(opened.title == "Shiny Spork")
        #expect(opened.text(SceneWindow.NodeID.navigationBar, "back") == "LootLogger")
        try await host.back(in: opened)
        #expect(opened.rowTitles == ["Shiny Spork"])
    }

    @Test func aHiddenWindowGetsItsChangesWhenShownAgain() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.hide(window)
        let sent = window.messages.count
        for _ in 0..<3 { try await store.createRandomItem(origin: nil) }
        // The window's screen has applied all three (a screen makes its patches as it applies an
        // event): none of them was sent.
        try await host.waitUntil("the hidden window to apply every change") {
            window.scene?.window?.sequences[ItemStore.app] == 3
        }
        #expect(window.messages.count == sent)

        try await host.show(window)
        #expect(window.messages.count == sent + 1)
        #expect(window.rowTitles == (await store.items).map(\.name))
    }

    @Test func changesToOneRowWhileHiddenAreCoalescedIntoOnePatch() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let item = try await store.create(name: "Shiny Mac", value: "1", origin: nil)
        let window = try await host.openWindow()
        try await host.hide(window)
        for value in 2...6 { try await store.update(item.key, ItemChanges(valueInDollars: value), origin: nil) }
        try await host.waitUntil("the hidden window to apply every change") {
            window.scene?.window?.sequences[ItemStore.app] == 6
        }
        #expect(window.messages.count == 1)

        try await host.show(window)

        guard case let .patch(ops, _) = window.messages.last else { Issue.record("expected one patch"); return }
        #expect(ops == [
            .set(id: Items.row(item.key), props: ["detail": "$6"]),
            .set(id: Items.section, props: ["footer": "1 item — $6 total"]),
        ])
        #expect(window.text(Items.row(item.key), "detail") == "$6")
    }

    @Test func aReloadedDetailWindowComesBackWithItsDraft() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        let item = try await store.create(name: "Rusty Spork", origin: nil)
        let window = try await host.openWindow()
        try await host.perform("select", on: Items.row(item.key), in: window)
        try await host.perform("draft", on: Detail.name, value: "Rusty Sp", in: window)

        try await host.reload(window)

        #expect(window.title == "Rusty Spork")
        #expect(window.text(Detail.name, "draft") == "Rusty Sp")
        #expect(window.text(Detail.name, "value") == "Rusty Spork")
    }

    @Test func anEditingWindowComesBackWithItsDraftAfterTheWholeApplicationRestarts() async throws {
        let path = TemporaryDirectory().path("lootlogger.sqlite")
        let sessionID: SceneSession.ID
        do {
            let (host, store) = try await launch(try SQLiteStorage(path: path))
            let item = try await store.create(name: "Rusty Spork", value: "3", origin: nil)
            let window = try await host.openWindow()
            sessionID = window.sessionID
            try await host.perform("select", on: Items.row(item.key), in: window)
            try await host.perform("draft", on: Detail.name, value: "Rusty Sp", in: window)
            await host.terminate()
        }

        let (host, _) = try await launch(try SQLiteStorage(path: path))
        let window = try await host.openWindow(session: sessionID)

        #expect(window.sessionID == sessionID)
        #expect(window.title == "Rusty Spork")
        #expect(window.text(Detail.name, "draft") == "Rusty Sp")
        let activity = try #require(window.scene?.session.stateRestorationActivity)
        let state = try activity.decodePayload(as: LootLoggerSceneDelegate.WindowState.self)
        #expect(state.navigation.paths["main"]?.map(\.name) == ["items", "item"])
    }

    /// `kill -9` skips background and disconnect, where the activity used to be saved: a window's
    /// navigation is saved shortly after it changes instead.
    @Test func aWindowComesBackWhereItWasAfterTheProcessWasKilled() async throws {
        let path = TemporaryDirectory().path("lootlogger.sqlite")
        let storage = try SQLiteStorage(path: path)
        let (crashed, store) = try await launch(storage)
        let item = try await store.create(name: "Rusty Spork", value: "3", origin: nil)
        let window = try await crashed.openWindow()
        /// The window's path as stored, once it has `count` screens.
        func storedPath(count: Int) async throws -> [String]? {
            var saved: [Route]?
            for _ in 0..<300 where saved?.count != count {
                try await Task.sleep(for: .milliseconds(10))
                saved = try await storage.session(id: window.sessionID)?.stateRestorationActivity
                    .flatMap { try? $0.decodePayload(as: LootLoggerSceneDelegate.WindowState.self) }?.navigation.paths["main"]
            }
            return saved?.map(\.name)
        }
        #expect(try await storedPath(count: 1) == ["items"], "the new window's place is stored")
        try await crashed.perform("select", on: Items.row(item.key), in: window)
        try await crashed.perform("draft", on: Detail.name, value: "Rusty Sp", in: window)
        // No hide, no disconnect, no terminate: the process is gone as after `kill -9`.
        #expect(try await storedPath(count: 2) == ["items", "item"], "the push is stored")

        let (host, _) = try await launch(try SQLiteStorage(path: path))
        let restored = try await host.openWindow(session: window.sessionID)
        #expect(restored.sessionID == window.sessionID)
        #expect(restored.title == "Rusty Spork")
        #expect(restored.text(Detail.name, "draft") == "Rusty Sp")
    }

    @Test func aWindowInEditModeComesBackInEditModeAfterTheProcessWasKilled() async throws {
        let path = TemporaryDirectory().path("lootlogger.sqlite")
        let storage = try SQLiteStorage(path: path)
        let (crashed, store) = try await launch(storage)
        try await store.createRandomItem(origin: nil)
        let window = try await crashed.openWindow()
        try await crashed.tap(Items.edit, in: window)
        var editing: Bool?
        for _ in 0..<300 where editing != true {
            try await Task.sleep(for: .milliseconds(10))
            editing = try await storage.session(id: window.sessionID)?.stateRestorationActivity
                .flatMap { try? $0.decodePayload(as: LootLoggerSceneDelegate.WindowState.self) }?.editing
        }
        #expect(editing == true, "edit mode is stored without a hide or disconnect")

        let (host, _) = try await launch(try SQLiteStorage(path: path))
        let restored = try await host.openWindow(session: window.sessionID)
        #expect(restored.text(Items.edit, "label") == "Done")
        #expect(restored.node(Items.table)?.props["editing"] == .bool(true))
    }

    @Test func unknownOrMalformedActionsAreRefusedAndChangeNothing() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        try await store.createRandomItem(origin: nil)
        let window = try await host.openWindow()
        let key = (await store.items)[0].key
        await #expect(throws: ScreenError.self) { try await host.perform("select", on: "item-not-a-uuid", in: window) }
        await #expect(throws: ScreenError.self) { try await host.perform("select", on: Items.row(UUID()), in: window) }
        await #expect(throws: ScreenError.self) { try await host.perform("move", on: Items.row(key), value: "x", in: window) }
        await #expect(throws: ItemStoreError.moveOutOfRange(index: 5, count: 1)) {
            try await host.perform("move", on: Items.row(key), value: 5, in: window)
        }
        await #expect(throws: ScreenError.self) { try await host.back(in: window) }
        #expect(await store.snapshot().sequence == 1)
    }

    @Test func closingAWindowIsReportedToTheAppDelegate() async throws {
        let delegate = LootLoggerAppDelegate(logger: Logger(label: "test"))
        let host = try await SceneHost.launch(delegate: delegate, storage: try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.close(window)
        #expect(delegate.discardedSessions == [window.sessionID])
    }
}

@MainActor
struct LootLoggerResumeTests {
    func launch(_ storage: any SceneSyncStorage) async throws -> (SceneHost, ItemStore) {
        let delegate = LootLoggerAppDelegate(logger: Logger(label: "test"))
        let host = try await SceneHost.launch(delegate: delegate, storage: storage)
        return (host, try #require(delegate.store))
    }

    @Test func aWindowThatLostItsConnectionIsPatchedUpToDateNotRedrawn() async throws {
        let (host, store) = try await launch(try SQLiteStorage.inMemory())
        for _ in 0..<5 { try await store.createRandomItem(origin: nil) }
        let window = try await host.openWindow()
        await host.disconnect(window)
        let items = await store.items
        try await store.remove(items[1].key, origin: nil)
        try await store.update(items[3].key, ItemChanges(name: "Renamed"), origin: nil)
        try await store.move(items[0].key, to: 3, origin: nil)
        try await store.createRandomItem(origin: nil)
        let rendersBefore = window.messages.filter { if case .render = $0 { true } else { false } }.count

        try await host.resume(window)

        let renders = window.messages.filter { if case .render = $0 { true } else { false } }.count
        #expect(renders == rendersBefore)
        guard case .resumed = window.messages.suffix(2).first, case let .patch(ops, _) = window.messages.last else {
            Issue.record("expected resumed, then one patch: \(window.messages.suffix(2))")
            return
        }
        #expect(ops.count < 12)
        #expect(window.patchFailures.isEmpty)
        let fresh = try await host.openWindow()
        #expect(window.node(SceneWindow.NodeID.screen) == fresh.node(SceneWindow.NodeID.screen))
    }

    @Test func aWindowResumesOnItsDetailScreenAcrossARestart() async throws {
        let path = TemporaryDirectory().path("resume.sqlite")
        let window: HostedWindow
        let key: UUID
        do {
            let (host, store) = try await launch(try SQLiteStorage(path: path))
            key = try await store.create(name: "Shiny Spork", value: "4", origin: nil).key
            window = try await host.openWindow()
            try await host.perform("select", on: ItemsScreen.NodeID.row(key), in: window)
            await host.terminate()
            try await store.update(key, ItemChanges(valueInDollars: 9), origin: nil)
        }
        let (host, _) = try await launch(try SQLiteStorage(path: path))
        let renders = window.messages.filter { if case .render = $0 { true } else { false } }.count

        try await host.resume(window)

        #expect(window.messages.filter { if case .render = $0 { true } else { false } }.count == renders)
        #expect(window.text(ItemDetailScreen.NodeID.value, "value") == "9")
        #expect(window.title == "Shiny Spork")
        #expect(window.patchFailures.isEmpty)
        #expect(host.application.connectedScenes[window.sessionID] != nil)
        #expect(try await host.application.storage.session(id: window.sessionID)?.id == window.sessionID)
        #expect(window.node(ItemDetailScreen.NodeID.name)?.props["value"] == .string("Shiny Spork"))
        #expect(host.application.connectedScenes[window.sessionID]?.window?.routeKey == "main:item/\(key.uuidString)")
    }
}
