import SceneSync
public import SceneSyncUI

/// What the category list asks of its coordinator.
@MainActor
public protocol CategoriesScreenDelegate: AnyObject {
    /// The user wants to see the dishes of `category`.
    func categoriesScreen(_ screen: CategoriesScreen, didSelect category: String) async
}

/// The menu's categories, the Menu tab's first screen.
@MainActor
public final class CategoriesScreen: ScreenController {
    /// Node ids.
    public enum NodeID {
        /// The table of categories.
        public static let table = "categories"
        /// The table's one section.
        public static let section = "categories-section"
        /// The row of `category`.
        public static func row(_ category: String) -> String { rows.id(for: category) }
    }

    /// The category rows, keyed by the category's name.
    public nonisolated static let rows = KeyedRows<String>(prefix: "category-")

    /// Who to tell what the user wants.
    public weak var delegate: (any CategoriesScreenDelegate)?
    private let menu: Menu

    /// Creates the screen for `menu`.
    public init(menu: Menu) {
        self.menu = menu
        super.init(route: Route("categories"), title: "Menu")
        handleRows(Self.rows, shown: { menu.categories.contains($0) }, onSelect: { [weak self] category in
            guard let self else { return }
            await delegate?.categoriesScreen(self, didSelect: category)
        })
    }

    public override func makeContent() -> [ViewNode] {
        [.table(id: NodeID.table, label: "Categories", sections: [
            .section(id: NodeID.section, children: menu.categories.map { category in
                let count = menu.items(in: category).count
                return .row(id: NodeID.row(category), title: Menu.title(of: category),
                            subtitle: "\(count) \(count == 1 ? "dish" : "dishes")")
                    .disclosure()
            }),
        ])]
    }
}

extension Menu {
    /// A category's name as a title: "appetizers" is "Appetizers".
    public static func title(of category: String) -> String {
        category.prefix(1).uppercased() + category.dropFirst()
    }
}
