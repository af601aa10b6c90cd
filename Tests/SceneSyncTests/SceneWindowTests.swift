import Foundation
import Synchronization
import SceneSync
@testable import SceneSyncUI
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

/// Tabs, tab badges, alerts, confirmations and notices, driven through the headless host the way a
/// browser drives a window.
@MainActor
struct SceneWindowTests {
    typealias Order = OrderScreen.NodeID
    typealias TabID = DinerCoordinator.TabID

    func launch(_ storage: any SceneSyncStorage) async throws -> (SceneHost, ModelController<Journal>) {
        let delegate = DinerAppDelegate()
        let host = try await SceneHost.launch(delegate: delegate, storage: storage)
        return (host, try #require(delegate.order))
    }

    /// A window on the Order tab, showing `dishes` ordered.
    func orderWindow(_ dishes: [String]) async throws -> (SceneHost, ModelController<Journal>, HostedWindow) {
        let (host, order) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        for dish in dishes { try await order.append(dish) }
        try await host.perform("select", on: tab(TabID.order), in: window)
        try await host.waitUntil("the ordered dishes") { window.rowTitles == dishes }
        return (host, order, window)
    }

    // MARK: - Tabs

    @Test func theFirstRenderShowsEveryTabAndWhichIsSelected() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()

        let tabs = try #require(window.node(SceneWindow.NodeID.tabBar)).children
        #expect(tabs.map(\.id) == ["tab-menu", "tab-order"])
        #expect(tabs.map { $0.props["label"] } == ["Menu", "Order"])
        #expect(tabs.map { $0.props["selected"] } == [true, false])
        #expect(tabs.allSatisfy { $0.props["badge"] == nil })
        #expect(tabs.map { $0.props["icon"] } == [nil, "cart"]) // a tab without an icon sends none
        #expect(window.title == "Menu")
        #expect(window.route == "menu:menu")
        #expect(window.rowTitles == ["Drinks", "Starters"])
    }

    /// The renderer draws every icon a tab may name (`dom.js`, `TAB_ICONS`): one it lacks would
    /// leave the tab with no icon and no error.
    @Test func theRendererDrawsEveryTabIcon() throws {
        let dom = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/SceneSyncServer/Public/js/dom.js")
        let source = try String(contentsOf: dom, encoding: .utf8)
        for icon in SceneWindow.Tab.Icon.allCases {
            #expect(source.contains("\"\(icon.rawValue)\": ["), "dom.js draws no \(icon.rawValue)")
        }
    }

    @Test func selectingATabSwitchesStacksAndEachTabKeepsItsOwn() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.perform("select", on: MenuScreen.row("Drinks"), in: window)
        #expect(window.title == "Drinks")
        #expect(window.text(SceneWindow.NodeID.navigationBar, .back) == "Menu")

        try await host.perform("select", on: tab(TabID.order), in: window)
        #expect(window.title == "Order")
        #expect(window.text(SceneWindow.NodeID.navigationBar, .back) == nil)
        #expect(window.text(SceneWindow.NodeID.screen, .route) == "order")
        #expect(selectedTabs(window) == [TabID.order])

        try await host.perform("select", on: tab(TabID.menu), in: window)
        #expect(window.title == "Drinks")
        #expect(window.text(SceneWindow.NodeID.navigationBar, .back) == "Menu")
        #expect(window.rowTitles == ["Lemonade", "Coffee"])
        #expect(selectedTabs(window) == [TabID.menu])
        #expect(renders(window) == 1)
        #expect(window.patchFailures.isEmpty)
    }

    @Test func selectingTheShownTabAgainGoesBackToItsFirstScreen() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.perform("select", on: MenuScreen.row("Drinks"), in: window)
        #expect(window.title == "Drinks")

        try await host.perform("select", on: tab(TabID.menu), in: window)
        #expect(window.title == "Menu")
        #expect(window.rowTitles == ["Drinks", "Starters"])
        #expect(selectedTabs(window) == [TabID.menu])
        #expect(renders(window) == 1)
    }

    /// A screen holding an edit the model refused.
    final class RefusedEditScreen: ScreenController {
        var discarded = false
        init() { super.init(route: Route("refused"), title: "Refused") }
        override var unsavedWork: String? { discarded ? nil : "“12.99” in Price was not saved." }
        override func discardUnsavedWork() async { discarded = true }
    }

    @Test func selectingTheShownTabAgainAsksBeforeLeavingUnsavedWork() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.perform("select", on: MenuScreen.row("Drinks"), in: window)
        let screen = RefusedEditScreen()
        await window.scene?.window?.navigation?.push(screen)
        #expect(window.title == "Refused")

        try await host.perform("select", on: tab(TabID.menu), in: window)
        let alert = try #require(window.node(SceneWindow.discardChangesAlert))
        #expect(alert.props["title"] == "Discard changes?")
        #expect(window.title == "Refused")
        try await host.perform("Keep Editing", on: SceneWindow.discardChangesAlert, in: window)
        #expect(window.title == "Refused")

        try await host.perform("select", on: tab(TabID.menu), in: window)
        try await host.perform("Discard", on: SceneWindow.discardChangesAlert, in: window)
        #expect(screen.discarded)
        #expect(window.title == "Menu")
        #expect(window.rowTitles == ["Drinks", "Starters"])
        #expect(window.patchFailures.isEmpty)
    }

    @Test func theRestorationActivityHoldsTheSelectedTabAndEveryStack() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.perform("select", on: MenuScreen.row("Starters"), in: window)
        try await host.perform("select", on: tab(TabID.order), in: window)
        #expect(window.scene?.window?.routeKey == "order:order")

        try await host.hide(window)
        let activity = try #require(window.scene?.session.stateRestorationActivity)
        #expect(try activity.decodePayload(as: NavigationState.self) == NavigationState(
            paths: [TabID.menu: [Route("menu"), Route("category", argument: "Starters")], TabID.order: [Route("order")]],
            selectedTab: TabID.order))

        try await host.reload(window)
        #expect(window.route == "order:order")
        #expect(window.title == "Order")
        #expect(selectedTabs(window) == [TabID.order])
        try await host.perform("select", on: tab(TabID.menu), in: window)
        #expect(window.title == "Starters")
        #expect(window.rowTitles == ["Soup", "Salad"])
    }

    /// After a crash no tree was saved. The window's route is that of its last render, which does
    /// not say where it navigated since, so it is redrawn, and every control on it answers.
    @Test func aWindowWithoutASavedTreeIsRedrawnAndAnswers() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, _) = try await launch(storage)
        let window = try await host.openWindow()
        await host.disconnect(window)
        try await storage.setDraft(nil, key: SceneWindow.resumePointKey, session: window.sessionID)

        try await host.resume(window)
        #expect(renders(window) == 2)
        try await host.perform("select", on: MenuScreen.row("Drinks"), in: window)
        #expect(window.title == "Drinks")
    }

    /// A saved tree is used once: a window resumed from it that navigates on and then loses its
    /// server to a crash is redrawn, not patched from the old tree into the wrong screen.
    @Test func aSavedTreeIsForgottenOnceUsedSoACrashLaterCannotResumeFromIt() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, _) = try await launch(storage)
        let window = try await host.openWindow()
        await host.disconnect(window)
        try await host.resume(window)
        guard case .resumed = window.messages.last else { Issue.record("expected the window to resume"); return }
        try await waitUntil("the used tree to be deleted") {
            host.application.connectedScenes[window.sessionID]?.drafts.data(for: SceneWindow.resumePointKey) == nil
        }
        #expect(try await storage.drafts(session: window.sessionID)[SceneWindow.resumePointKey] == nil)

        // It navigates by a patch; then the process dies, with nothing saved on the way out.
        try await host.perform("select", on: MenuScreen.row("Drinks"), in: window)
        #expect(window.title == "Drinks")
        let restarted = try await SceneHost.launch(delegate: DinerAppDelegate(), storage: storage)
        try await restarted.resume(window)
        #expect(renders(window) == 2, "redrawn: nothing says it shows Drinks")
        #expect(window.patchFailures.isEmpty)
    }

    /// A saved tree from which the current one is reached only by inserting a node before the
    /// node with its id is removed (it changed parents) is redrawn; one where the removal comes
    /// first is patched: exactly what the renderer accepts.
    @Test func aResumePointIsPatchedOnlyWhereTheRendererWouldAcceptThePatches() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        let scene = try #require(window.scene)
        let sceneWindow = try #require(scene.window)
        let current = sceneWindow.makeRoot()
        func saved(movingTabBarInto parent: String) throws -> Data {
            var root = current
            let tabBar = try #require(root.children.first { $0.id == SceneWindow.NodeID.tabBar })
            root.children.removeAll { $0.id == SceneWindow.NodeID.tabBar }
            let index = try #require(root.children.firstIndex { $0.id == parent })
            root.children[index].children.append(tabBar)
            return try JSONEncoder().encode(SceneWindow.ResumePoint(root: root, seq: sceneWindow.sequences, route: sceneWindow.routeKey))
        }
        let resume = (seq: sceneWindow.sequences, route: sceneWindow.routeKey)

        // Under the overlay, after the tab bar's place: the insert meets the id still there.
        try await scene.drafts.setData(saved(movingTabBarInto: SceneWindow.NodeID.overlay), for: SceneWindow.resumePointKey, limit: 1 << 20)
        #expect(sceneWindow.resumePatches(for: resume) == nil)

        // Under the navigation bar, before it: removed first, then inserted.
        try await scene.drafts.setData(saved(movingTabBarInto: SceneWindow.NodeID.navigationBar), for: SceneWindow.resumePointKey, limit: 1 << 20)
        let patches = try #require(sceneWindow.resumePatches(for: resume))
        var tree = ViewTree(try JSONDecoder().decode(SceneWindow.ResumePoint.self, from: saved(movingTabBarInto: SceneWindow.NodeID.navigationBar)).root)
        try tree.apply(patches)
        #expect(tree.root == current)
    }

    @Test func aResumedWindowKeepsItsTabsWithoutARedraw() async throws {
        let (host, order) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.perform("select", on: MenuScreen.row("Drinks"), in: window)
        try await host.perform("select", on: tab(TabID.order), in: window)
        await host.disconnect(window)
        try await order.append("Soup")

        try await host.resume(window)

        #expect(renders(window) == 1)
        #expect(window.title == "Order")
        #expect(window.rowTitles == ["Soup"])
        #expect(window.node(tab(TabID.order))?.props["badge"] == "1")
        try await host.perform("select", on: tab(TabID.menu), in: window)
        #expect(window.title == "Drinks")
        #expect(window.patchFailures.isEmpty)
    }

    @Test func aWindowTooLargeToKeepIsRedrawnWhenItComesBackAndKeepsNothingOnDisk() async throws {
        let storage = try SQLiteStorage.inMemory()
        let (host, order) = try await launch(storage)
        let window = try await host.openWindow()
        try await host.perform("select", on: tab(TabID.order), in: window)
        let dish = String(repeating: "Bouillabaisse ", count: 50)
        for index in 0..<400 { try await order.append("\(index) \(dish)") }
        try await host.waitUntil("the long order") { window.rowTitles.count == 400 }
        await host.disconnect(window)
        let drafts = try await storage.drafts(session: window.sessionID)
        #expect(drafts[SceneWindow.resumePointKey] == nil, "a tree over \(SceneWindow.resumePointLimit) bytes is not saved")

        try await host.resume(window)
        #expect(renders(window) == 2, "redrawn, as nothing says what it showed")
        #expect(window.rowTitles.count == 400)
    }

    @Test func tabsAndStacksComeBackAfterTheApplicationRestarts() async throws {
        let path = TemporaryDirectory().path("diner.sqlite")
        let sessionID: SceneSession.ID
        do {
            let (host, _) = try await launch(try SQLiteStorage(path: path))
            let window = try await host.openWindow()
            sessionID = window.sessionID
            try await host.perform("select", on: MenuScreen.row("Drinks"), in: window)
            try await host.perform("select", on: CategoryScreen.row("Coffee"), in: window)
            try await host.perform("select", on: tab(TabID.order), in: window)
            await host.terminate()
        }

        let (host, _) = try await launch(try SQLiteStorage(path: path))
        let window = try await host.openWindow(session: sessionID)

        #expect(window.sessionID == sessionID)
        #expect(window.title == "Order")
        #expect(window.rowTitles == ["Coffee"])
        #expect(selectedTabs(window) == [TabID.order])
        #expect(window.node(tab(TabID.order))?.props["badge"] == "1")
        try await host.perform("select", on: tab(TabID.menu), in: window)
        #expect(window.title == "Drinks")
        #expect(window.text(SceneWindow.NodeID.navigationBar, "back") == "Menu")
    }

    @Test func aWindowWhoseSavedTreeWasLostIsRedrawnWhenTheOrderChangedMeanwhile() async throws {
        let path = TemporaryDirectory().path("crash.sqlite")
        let (crashed, _) = try await launch(try SQLiteStorage(path: path))
        let window = try await crashed.openWindow()
        // The process is killed: nothing is saved. A new one starts on the same file.
        let (host, order) = try await launch(try SQLiteStorage(path: path))
        try await order.append("Soup")

        try await host.resume(window)

        #expect(badge(window) == "1")
        #expect(renders(window) == 2)
    }

    // MARK: - Badges

    @Test func aBadgeFromTheModelShowsInEveryWindowByAPatchAndClears() async throws {
        let (host, order) = try await launch(try SQLiteStorage.inMemory())
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        try await host.perform("select", on: tab(TabID.order), in: right)
        try await host.perform("select", on: MenuScreen.row("Drinks"), in: left)

        try await host.perform("select", on: CategoryScreen.row("Lemonade"), in: left)
        try await host.waitUntil("the badge in both windows") { [left, right].allSatisfy { badge($0) == "1" } }
        guard case let .patch(ops, _) = left.messages.last else { Issue.record("expected a patch"); return }
        #expect(ops == [.set(id: tab(TabID.order), props: ["badge": "1"])])
        #expect(right.rowTitles == ["Lemonade"])

        try await order.append("Soup")
        try await host.waitUntil("the second dish in both windows") { [left, right].allSatisfy { badge($0) == "2" } }
        #expect(try await host.openWindow().node(tab(TabID.order))?.props["badge"] == "2")

        try await order.perform(origin: nil) { _ in [.cleared] }
        try await host.waitUntil("no badge in either window") { [left, right].allSatisfy { badge($0) == nil } }
        #expect(left.node(tab(TabID.order))?.props.keys.sorted() == ["icon", "label", "selected"])
        #expect([left, right].map(renders) == [1, 1])
        #expect(left.patchFailures.isEmpty && right.patchFailures.isEmpty)
    }

    @Test func badgeChangesWhileHiddenAreCoalescedAndShownWhenTheWindowComesBack() async throws {
        let (host, order) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.hide(window)
        let sent = window.messages.count
        for dish in ["Soup", "Salad", "Coffee"] { try await order.append(dish) }
        try await host.waitUntil("the hidden window to apply every event") { window.scene?.window?.sequences[DinerAppDelegate.app] == 3 }
        #expect(window.messages.count == sent)
        #expect(badge(window) == nil)

        try await host.show(window)

        #expect(window.messages.count == sent + 1)
        guard case let .patch(ops, _) = window.messages.last else { Issue.record("expected one patch"); return }
        #expect(ops == [.set(id: tab(TabID.order), props: ["badge": "3"])])
        #expect(badge(window) == "3")

        try await host.hide(window)
        try await order.append("Lemonade")
        try await order.perform(origin: nil) { _ in [.cleared] }
        try await host.waitUntil("the hidden window to apply the clear") { window.scene?.window?.sequences[DinerAppDelegate.app] == 5 }
        try await host.show(window)
        guard case let .patch(cleared, _) = window.messages.last else { Issue.record("expected one patch"); return }
        #expect(cleared == [
            .set(id: tab(TabID.order), props: ["badge": .null]),
            .insert(parent: SceneWindow.NodeID.overlay, index: 0,
                    node: ViewNode(id: "notice-1", kind: .notice, props: ["message": "The order was sent from another window."])),
        ])
        #expect(badge(window) == nil)
        #expect(window.node(tab(TabID.order))?.props.keys.sorted() == ["icon", "label", "selected"])
        #expect(window.patchFailures.isEmpty)
    }

    @Test func aHiddenWindowPastItsPatchLimitIsRedrawnWhenShown() async throws {
        let (host, order, window) = try await orderWindow([])
        try await orderWhileHidden(window, host: host, order: order, limit: 4, dishes: 6)
        guard case let .render(root, _, _) = window.messages.last else { Issue.record("expected a redraw"); return }
        #expect(ViewTree(root).nodes(of: .row).count == 6)
        #expect(window.rowTitles == (0..<6).map { "Dish \($0)" })
        #expect(badge(window) == "6")
    }

    @Test func aHiddenWindowWithinItsPatchLimitIsPatchedWhenShown() async throws {
        let (host, order, window) = try await orderWindow([])
        try await orderWhileHidden(window, host: host, order: order, limit: 256, dishes: 6)
        guard case .patch = window.messages.last else { Issue.record("expected the held patches"); return }
        #expect(window.rowTitles == (0..<6).map { "Dish \($0)" })
        #expect(badge(window) == "6")
        #expect(window.patchFailures.isEmpty)
    }

    /// Hides `window`, orders `dishes` dishes while it holds at most `limit` patches, and shows it
    /// again: it is sent one message then, patches or a redraw.
    func orderWhileHidden(_ window: HostedWindow, host: SceneHost, order: ModelController<Journal>, limit: Int, dishes: Int) async throws {
        let sceneWindow = try #require(window.scene?.window)
        sceneWindow.backgroundPatchLimit = limit
        try await host.hide(window)
        let sent = window.messages.count
        for index in 0..<dishes { try await order.append("Dish \(index)") }
        try await host.waitUntil("the hidden window to apply every event") { sceneWindow.sequences[DinerAppDelegate.app] == UInt64(dishes) }
        #expect(window.messages.count == sent)
        try await host.show(window)
        #expect(window.messages.count == sent + 1)
    }

    @Test func aScreenThatFallsBehindATrimmedLogReloadsAndRedraws() async throws {
        let delegate = DinerAppDelegate(options: .init(logRetention: 2, subscriberBufferLimit: 1))
        let host = try await SceneHost.launch(delegate: delegate, storage: try SQLiteStorage.inMemory())
        let order = try #require(delegate.order)
        let window = try await host.openWindow()
        try await host.perform(.select, on: tab(TabID.order), in: window)
        let renders = window.messages.filter(\.isRender).count
        // The main actor is held while forty dishes are ordered elsewhere: the order screen cannot
        // take their events, its subscription drops them, and the log is trimmed past them.
        let done = Atomic(false)
        Task.detached {
            for index in 0..<40 { _ = try? await order.append("Dish \(index)") }
            done.store(true, ordering: .releasing)
        }
        while !done.load(ordering: .acquiring) { usleep(2_000) }
        try await host.waitUntil("the order screen to catch up") { window.rowTitles.count == 40 }
        #expect(window.rowTitles == (0..<40).map { "Dish \($0)" })
        #expect(window.messages.filter(\.isRender).count == renders + 1)
        #expect(badge(window) == "40")
        #expect(window.patchFailures.isEmpty)
        // And it follows again: the next dish comes as a patch.
        try await order.append("Dish 40")
        try await host.waitUntil("the next dish") { window.rowTitles.count == 41 }
    }

    @Test func aBadgeOnAWindowWithOneTabSendsNothingItCannotShow() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        let sceneWindow = try #require(window.scene?.window)
        await sceneWindow.setRoot(NavigationController())
        #expect(window.node(SceneWindow.NodeID.tabBar) == nil)
        let sent = window.messages.count

        sceneWindow.setBadge("3", forTab: "main")

        #expect(window.messages.count == sent)
        #expect(sceneWindow.tabs.first?.badge == "3")
        #expect(window.patchFailures.isEmpty)
    }

    // MARK: - Alerts and notices

    @Test func aConfirmationTakesOneChoiceAndGoesAwayByAPatch() async throws {
        let (host, order, window) = try await orderWindow(["Soup", "Coffee"])
        let other = try await host.openWindow()

        try await host.tap(Order.send, in: window)
        let alert = try #require(window.node(Order.sendAlert))
        #expect(alert.kind == .alert)
        #expect(alert.props["title"] == "Send 2 dishes to the kitchen?")
        #expect(alert.props["buttons"] == [["name": "cancel", "label": "Cancel", "role": "cancel"], ["name": "send", "label": "Send"]])
        #expect(window.node(SceneWindow.NodeID.overlay)?.children.map(\.id) == [Order.sendAlert])
        #expect(other.node(Order.sendAlert) == nil)

        try await host.perform("cancel", on: Order.sendAlert, in: window)
        #expect(window.node(Order.sendAlert) == nil)
        #expect(choices(window) == ["confirm-send:cancel"])
        #expect(await order.state.lines.count == 2)

        try await host.tap(Order.send, in: window)
        try await host.perform("send", on: Order.sendAlert, in: window)
        #expect(choices(window) == ["confirm-send:cancel", "confirm-send:send"])
        #expect(await order.state.lines.isEmpty)
        #expect(window.node(Order.sendAlert) == nil)
        try await host.waitUntil("the order cleared everywhere") { badge(window) == nil && badge(other) == nil }

        let sequence = await order.snapshot().sequence
        await #expect(throws: ScreenError.unknownAction(node: Order.sendAlert, name: "send")) {
            try await host.perform("send", on: Order.sendAlert, in: window)
        }
        #expect(choices(window) == ["confirm-send:cancel", "confirm-send:send"])
        #expect(await order.snapshot().sequence == sequence)
        #expect(renders(window) == 1)
        #expect(window.patchFailures.isEmpty)
        #expect(window.view?.nodes(of: .notice).isEmpty == true)
    }

    @Test func aConfirmedActionTheModelRefusesIsTheAnswerToTheChoice() async throws {
        let storage = InstrumentedStorage(try SQLiteStorage.inMemory())
        let (host, order) = try await launch(storage)
        let window = try await host.openWindow()
        try await order.append("Soup")
        try await host.perform("select", on: tab(TabID.order), in: window)
        try await host.waitUntil("the ordered dish") { window.rowTitles == ["Soup"] }

        try await host.tap(Order.send, in: window)
        storage.failNextCommits(1)
        await #expect(throws: ModelControllerError.self) {
            try await host.perform("send", on: Order.sendAlert, in: window)
        }
        #expect(window.node(Order.sendAlert) == nil)
        #expect(await order.state.lines == ["Soup"])
        #expect(window.rowTitles == ["Soup"])
        #expect(badge(window) == "1")
    }

    @Test func anAlertAndADestructiveConfirmation() async throws {
        let (host, order, window) = try await orderWindow([])

        try await host.tap(Order.send, in: window)
        #expect(window.text(Order.emptyAlert, "title") == "Nothing to send")
        try await host.perform("ok", on: Order.emptyAlert, in: window)
        #expect(window.node(Order.emptyAlert) == nil)

        try await order.append("Salad")
        try await host.waitUntil("the dish") { window.rowTitles == ["Salad"] }
        try await host.tap(Order.clear, in: window)
        #expect(window.node(Order.clearAlert)?.props["buttons"] == [
            ["name": "cancel", "label": "Cancel", "role": "cancel"], ["name": "clear", "label": "Clear Order", "role": "destructive"],
        ])
        try await host.perform("clear", on: Order.clearAlert, in: window)
        #expect(await order.state.lines.isEmpty)
        #expect(choices(window) == ["empty-order:ok", "confirm-clear:clear"])
        try await host.waitUntil("the empty order") { window.rowTitles.isEmpty && badge(window) == nil }
        #expect(window.node(SceneWindow.NodeID.overlay)?.children.isEmpty == true)
    }

    @Test func aDoubleTapPresentsTheConfirmationOnce() async throws {
        let (host, order, window) = try await orderWindow(["Soup"])

        try await host.tap(Order.clear, in: window)
        try await host.tap(Order.clear, in: window)
        #expect(window.node(SceneWindow.NodeID.overlay)?.children.map(\.id) == [Order.clearAlert])

        try await host.perform("cancel", on: Order.clearAlert, in: window)
        #expect(window.node(SceneWindow.NodeID.overlay)?.children.isEmpty == true)
        await #expect(throws: ScreenError.self) { try await host.perform("clear", on: Order.clearAlert, in: window) }
        #expect(choices(window) == ["confirm-clear:cancel"])
        #expect(await order.state.lines == ["Soup"])
        #expect(window.patchFailures.isEmpty)
    }

    @Test func aNoticeSaysWhatAnotherWindowDidAndCanBeDismissed() async throws {
        let (host, _, sender) = try await orderWindow(["Soup"])
        let other = try await host.openWindow()
        try await host.tap(Order.send, in: sender)
        try await host.perform("send", on: Order.sendAlert, in: sender)

        try await host.waitUntil("the notice") { !(other.view?.nodes(of: .notice).isEmpty ?? true) }
        let notice = try #require(other.view?.nodes(of: .notice).first)
        #expect(notice.props["message"] == "The order was sent from another window.")
        #expect(other.scene?.window?.noticeMessages == ["The order was sent from another window."])
        #expect(sender.view?.nodes(of: .notice).isEmpty == true)

        let renders = renders(other)
        try await host.perform("dismiss", on: notice.id, in: other)
        #expect(other.view?.nodes(of: .notice).isEmpty == true)
        #expect(other.scene?.window?.noticeMessages == [])
        #expect(self.renders(other) == renders)
        await #expect(throws: ScreenError.self) { try await host.perform("dismiss", on: notice.id, in: other) }
        #expect(other.patchFailures.isEmpty)
    }

    // MARK: - Hostile input

    @Test func aTabThatDoesNotExistIsRefusedAndChangesNothing() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        let view = window.view
        let sent = window.messages.count

        await #expect(throws: ScreenError.unknownAction(node: "tab-kitchen", name: "select")) {
            try await host.perform("select", on: "tab-kitchen", in: window)
        }
        await #expect(throws: ScreenError.self) { try await host.perform("delete", on: tab(TabID.order), in: window) }

        #expect(window.view == view)
        #expect(window.messages.count == sent)
        #expect(window.scene?.window?.selectedTabID == TabID.menu)
    }

    @Test func anAlertAnswerWithAnUnknownButtonIsRefusedAndTheAlertStays() async throws {
        let (host, order, window) = try await orderWindow(["Soup"])
        try await host.tap(Order.clear, in: window)
        let view = window.view
        let sent = window.messages.count

        await #expect(throws: ScreenError.unknownAction(node: Order.clearAlert, name: "explode")) {
            try await host.perform("explode", on: Order.clearAlert, in: window)
        }

        #expect(window.view == view)
        #expect(window.messages.count == sent)
        #expect(choices(window).isEmpty)
        #expect(await order.state.lines == ["Soup"])
        try await host.perform("cancel", on: Order.clearAlert, in: window)
        #expect(choices(window) == ["confirm-clear:cancel"])
    }

    // MARK: - Helpers

    func tab(_ id: String) -> String { "tab-\(id)" }

    func badge(_ window: HostedWindow) -> String? { window.text(tab(TabID.order), "badge") }

    func selectedTabs(_ window: HostedWindow) -> [String] {
        window.node(SceneWindow.NodeID.tabBar)?.children.filter { $0.props["selected"] == true }.map { String($0.id.dropFirst(4)) } ?? []
    }

    func renders(_ window: HostedWindow) -> Int {
        window.messages.filter { if case .render = $0 { true } else { false } }.count
    }

    func choices(_ window: HostedWindow) -> [String] {
        window.delegate(as: DinerSceneDelegate.self)?.coordinator?.orderScreen?.choices ?? []
    }
}

extension WindowUpdate {
    fileprivate var isRender: Bool { if case .render = self { true } else { false } }
}
