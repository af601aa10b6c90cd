public import Foundation

/// The restaurant's menu: its dishes, and their categories in the order the menu lists them.
///
/// ```swift
/// let menu = try Menu.standard()                         // the menu that ships with Restaurant
/// let menu = try Menu(contentsOf: URL(fileURLWithPath: "my-menu.json"))
/// menu.items(in: "soups").map(\.name)
/// ```
public struct Menu: Equatable, Sendable {
    /// Every dish, in the order of the menu file.
    public let items: [MenuItem]
    /// The categories, in the order their first dish appears.
    public let categories: [String]
    private let byID: [Int: Int]

    /// A menu of `items`, checked as a menu file is.
    ///
    /// - Throws: ``MenuFileError`` naming the first dish and field that is wrong.
    public init(items: [MenuItem]) throws(MenuFileError) {
        var byID: [Int: Int] = [:]
        var categories: [String] = []
        for (index, item) in items.enumerated() {
            try MenuFileError.check(item, at: index)
            if let first = byID[item.id] { throw .duplicateID(item.id, entries: first, index) }
            byID[item.id] = index
            if !categories.contains(item.category) { categories.append(item.category) }
        }
        guard !items.isEmpty else { throw .empty }
        self.items = items
        self.categories = categories
        self.byID = byID
    }

    /// Reads a menu file in the course server's shape: `{"items": [dish, …]}` (or the bare
    /// array), each dish with `id`, `name`, `description`, `price`, `category` and
    /// `estimated_prep_time`.
    ///
    /// - Throws: ``MenuFileError`` naming the entry and the field that is wrong.
    public init(contentsOf url: URL) throws(MenuFileError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        try self.init(json: data)
    }

    /// Reads a menu from the JSON of a menu file; see ``init(contentsOf:)``.
    public init(json data: Data) throws(MenuFileError) {
        try self.init(items: try MenuFileReader.items(in: data))
    }

    /// The menu that ships with Restaurant: six categories, from appetizers to sandwiches.
    public static func standard() throws(MenuFileError) -> Menu {
        guard let url = Bundle.module.url(forResource: "menu", withExtension: "json", subdirectory: "Resources") else {
            throw .unreadable(path: "Resources/menu.json", reason: "It is missing from the Restaurant bundle.")
        }
        return try Menu(contentsOf: url)
    }

    /// The dish numbered `id`.
    public func item(_ id: Int) -> MenuItem? {
        byID[id].map { items[$0] }
    }

    /// The dishes of `category`, in menu order; none for a category the menu does not have.
    public func items(in category: String) -> [MenuItem] {
        items.filter { $0.category == category }
    }

    public static func == (lhs: Menu, rhs: Menu) -> Bool { lhs.items == rhs.items }
}
