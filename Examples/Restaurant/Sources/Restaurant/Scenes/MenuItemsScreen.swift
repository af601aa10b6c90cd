import SceneSync
public import SceneSyncUI

/// What a category's dish list asks of its coordinator.
@MainActor
public protocol MenuItemsScreenDelegate: AnyObject {
    /// The user wants to see the dish `id`.
    func menuItemsScreen(_ screen: MenuItemsScreen, didSelect id: Int) async
}

/// A category's dishes: name, price and picture, as the course's `MenuTableViewController`.
@MainActor
public final class MenuItemsScreen: ScreenController {
    /// The screen's kind of route, whose argument is the category.
    public static let route = RoutePattern<String>("category")

    /// Node ids.
    public enum NodeID {
        /// The table of dishes.
        public static let table = "dishes"
        /// The table's one section.
        public static let section = "dishes-section"
        /// The row of the dish `id`.
        public static func row(_ id: Int) -> String { rows.id(for: id) }
    }

    /// The dish rows, keyed by the dish's id.
    public nonisolated static let rows = KeyedRows<Int>(prefix: "dish-")

    /// Who to tell what the user wants.
    public weak var delegate: (any MenuItemsScreenDelegate)?
    /// The category shown.
    public let category: String
    private let items: [MenuItem]
    private let pictures: DishPictures

    /// Creates the screen for the dishes of `category`.
    public init(menu: Menu, category: String, pictures: DishPictures) {
        self.category = category
        let items = menu.items(in: category)
        self.items = items
        self.pictures = pictures
        super.init(route: Self.route(category), title: Menu.title(of: category))
        let ids = Set(items.map(\.id))
        handleRows(Self.rows, shown: { ids.contains($0) }, onSelect: { [weak self] id in
            guard let self else { return }
            await delegate?.menuItemsScreen(self, didSelect: id)
        })
    }

    public override func makeContent() -> [ViewNode] {
        [.table(id: NodeID.table, label: title, sections: [
            .section(id: NodeID.section, children: items.map { item in
                .row(id: NodeID.row(item.id), title: item.name, detail: Money.format(cents: item.priceInCents),
                     image: pictures.url(for: item.id))
                    .disclosure()
            }),
        ])]
    }
}
