import Foundation
import Logging
import SceneSync
@testable import SceneSyncUI

/// A small tabbed app, shaped like a restaurant's: a Menu tab (categories, then a category's
/// dishes) and an Order tab whose badge counts the dishes ordered, with confirmations before the
/// order is sent or cleared. The order is a ``Journal``: one line per dish, `cleared` when sent.
@MainActor
final class DinerAppDelegate: ApplicationDelegate {
    static let app = "diner"
    private(set) var order: ModelController<Journal>?
    private let options: ModelController<Journal>.Options

    init(options: ModelController<Journal>.Options = .init()) {
        self.options = options
    }

    func applicationDidFinishLaunching(_ application: Application) async throws {
        order = try await ModelController(app: Self.app, storage: application.storage, options: options, logger: Logger(label: "diner"))
    }

    func application(_ application: Application, configurationForConnecting session: SceneSession, options: ConnectionOptions) -> SceneConfiguration {
        guard let order else { preconditionFailure("Scenes connect only after launch opened the order") }
        return SceneConfiguration(name: "Main") { DinerSceneDelegate(order: order) }
    }
}

/// One window: its restoration activity is the window's ``NavigationState``.
@MainActor
final class DinerSceneDelegate: SceneDelegate {
    static let activityType = "test.diner.window"
    let order: ModelController<Journal>
    private(set) var coordinator: DinerCoordinator?

    init(order: ModelController<Journal>) { self.order = order }

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {
        let coordinator = DinerCoordinator(order: order, window: SceneWindow(scene: scene, title: "Diner"))
        self.coordinator = coordinator
        let restored = session.stateRestorationActivity.flatMap { try? $0.decodePayload(as: NavigationState.self) }
        scene.task { await coordinator.start(restoring: restored) }
    }

    func stateRestorationActivity(for scene: Scene) -> SceneActivity? {
        guard let state = scene.window?.navigationState else { return nil }
        return try? SceneActivity(type: Self.activityType, payload: state)
    }
}

/// Owns both tabs' stacks: pushes a category over the menu, says when the order went elsewhere.
@MainActor
final class DinerCoordinator: Coordinator {
    enum TabID {
        static let menu = "menu"
        static let order = "order"
    }

    static let categories = ["Starters": ["Soup", "Salad"], "Drinks": ["Lemonade", "Coffee"]]

    let order: ModelController<Journal>
    unowned let window: SceneWindow
    let menu = NavigationController()
    let orderStack = NavigationController()
    private(set) var orderScreen: OrderScreen?

    init(order: ModelController<Journal>, window: SceneWindow) {
        self.order = order
        self.window = window
    }

    override func start(restoring state: NavigationState?) async {
        var menuScreens: [ScreenController] = [MenuScreen(coordinator: self)]
        for route in (state?.paths[TabID.menu] ?? []).dropFirst() {
            guard route.name == "category", let name = route.argument, Self.categories[name] != nil else { break }
            menuScreens.append(CategoryScreen(category: name, order: order))
        }
        let orderScreen = OrderScreen(order: order, coordinator: self)
        self.orderScreen = orderScreen
        await menu.setScreens(menuScreens)
        await orderStack.setScreens([orderScreen])
        await window.setTabs([
            SceneWindow.Tab(id: TabID.menu, title: "Menu", navigation: menu),
            SceneWindow.Tab(id: TabID.order, title: "Order", icon: .cart, badge: orderScreen.badge, navigation: orderStack),
        ], selected: state?.selectedTab ?? TabID.menu)
    }

    func showCategory(_ name: String) async {
        await menu.push(CategoryScreen(category: name, order: order))
    }

    func orderWasSentElsewhere() {
        window.showNotice("The order was sent from another window.")
    }
}

/// The menu's categories.
@MainActor
final class MenuScreen: ScreenController {
    static func row(_ category: String) -> String { "category-\(category)" }
    private weak var coordinator: DinerCoordinator?

    init(coordinator: DinerCoordinator) {
        self.coordinator = coordinator
        super.init(route: Route("menu"), title: "Menu")
    }

    override func makeContent() -> [ViewNode] {
        [.table(id: "categories", label: "Categories", sections: [
            .section(id: "categories-section", children: DinerCoordinator.categories.keys.sorted().map {
                name in .row(id: Self.row(name), title: name).disclosure().onSelect { [weak self] in await self?.coordinator?.showCategory(name) }
            }),
        ])]
    }
}

/// One category's dishes; selecting a dish orders it.
@MainActor
final class CategoryScreen: ScreenController {
    static func row(_ dish: String) -> String { "dish-\(dish)" }
    let dishes: [String]
    private let order: ModelController<Journal>

    init(category: String, order: ModelController<Journal>) {
        self.dishes = DinerCoordinator.categories[category] ?? []
        self.order = order
        super.init(route: Route("category", argument: category), title: category)
    }

    override func makeContent() -> [ViewNode] {
        [.table(id: "dishes", label: title, sections: [.section(id: "dishes-section", children: dishes.map { dish in
            .row(id: Self.row(dish), title: dish).onSelect { [weak self] in try await self?.order.append(dish, origin: self?.origin) }
        })])]
    }
}

/// The order: its dishes, Send and Clear buttons that ask first, and the Order tab's badge, kept
/// up to date in every window from the order's events.
@MainActor
final class OrderScreen: ScreenController {
    enum NodeID {
        static let table = "order-table"
        static let send = "send"
        static let clear = "clear"
        static let emptyAlert = "empty-order"
        static let sendAlert = "confirm-send"
        static let clearAlert = "confirm-clear"
    }

    /// Every button chosen in this screen's alerts, as "alert:button", in order.
    private(set) var choices: [String] = []
    private(set) var lines: [String] = []
    private let order: ModelController<Journal>
    private weak var coordinator: DinerCoordinator?

    init(order: ModelController<Journal>, coordinator: DinerCoordinator) {
        self.order = order
        self.coordinator = coordinator
        super.init(route: Route("order"), title: "Order")
    }

    /// The Order tab's badge: how many dishes are ordered, or none.
    var badge: String? { lines.isEmpty ? nil : String(lines.count) }

    override func load() async {
        let snapshot = await order.snapshot()
        lines = snapshot.state.lines
        window?.setBadge(badge, forTab: DinerCoordinator.TabID.order)
        follow(order, from: snapshot.sequence) { [weak self] envelope in self?.apply(envelope) }
    }

    override func makeContent() -> [ViewNode] {
        [
            .table(id: NodeID.table, label: "Order", sections: [.section(id: "order-section", children: lines.isEmpty
                    ? [.emptyState(id: "order-empty", title: "Nothing ordered yet")]
                    : lines.enumerated().map { .row(id: "line-\($0.offset)", title: $0.element) })]),
            .button(id: NodeID.send, label: "Send to Kitchen", role: .primary) { [weak self] in self?.send() },
            .button(id: NodeID.clear, label: "Clear", role: .destructive) { [weak self] in self?.clear() },
        ]
    }

    private func send() {
        guard !lines.isEmpty else {
            return present(NodeID.emptyAlert, "Nothing to send", [.init("OK", name: "ok")])
        }
        present(NodeID.sendAlert, "Send \(lines.count) dishes to the kitchen?", [
            .init("Cancel", role: .cancel, name: "cancel"),
            .init("Send", name: "send") { [weak self] in try await self?.clearOrder() },
        ])
    }

    private func clear() {
        present(NodeID.clearAlert, "Clear the order?", [
            .init("Cancel", role: .cancel, name: "cancel"),
            .init("Clear Order", role: .destructive, name: "clear") { [weak self] in try await self?.clearOrder() },
        ])
    }

    private func clearOrder() async throws {
        _ = try await order.perform(origin: origin) { _ in [.cleared] }
    }

    /// Presents an alert whose every choice is also noted in ``choices``.
    private func present(_ id: String, _ title: String, _ actions: [Alert.Action]) {
        window?.present(Alert(id: id, title: title, actions: actions.map { action in
            Alert.Action(action.label, role: action.role, name: action.name) { [weak self] in
                self?.choices.append("\(id):\(action.name)")
                try await action.handler?()
            }
        }))
    }

    private func apply(_ envelope: EventEnvelope<Journal.Event>) {
        switch envelope.event {
        case let .appended(dish, _): lines.append(dish)
        case .cleared: lines = []
        }
        update([.replace(id: NodeID.table, node: makeContent()[0], transition: nil)])
        window?.setBadge(badge, forTab: DinerCoordinator.TabID.order)
        if envelope.event == .cleared, envelope.origin != window?.scene?.session.id {
            coordinator?.orderWasSentElsewhere()
        }
    }
}
