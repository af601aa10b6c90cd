import SceneSync
public import SceneSyncUI

/// One dish: a large picture, its name, description and price, and "Add to Order", as the
/// course's `MenuItemDetailViewController`. Adding says so in this window only; the order and
/// the badge change in every window when the restaurant broadcasts the new line.
@MainActor
public final class MenuItemDetailScreen: ScreenController {
    /// The screen's kind of route, whose argument is the dish's id.
    public static let route = RoutePattern<Int>("dish")

    /// Node ids.
    public enum NodeID {
        /// The column of the dish's parts.
        public static let stack = "dish"
        /// The dish's picture.
        public static let image = "dish-image"
        /// The dish's name.
        public static let name = "dish-name"
        /// The dish's description.
        public static let description = "dish-description"
        /// The dish's price.
        public static let price = "dish-price"
        /// The "Add to Order" button.
        public static let add = "add-to-order"
    }

    /// The dish shown.
    public let itemID: Int
    private let restaurant: RestaurantController
    private let picture: String?

    /// Creates the screen for the dish `itemID`.
    public init(restaurant: RestaurantController, itemID: Int, picture: String?) {
        self.restaurant = restaurant
        self.itemID = itemID
        self.picture = picture
        super.init(route: Self.route(itemID), title: restaurant.menu.item(itemID)?.name ?? "Dish")
    }

    public override func makeContent() -> [ViewNode] {
        guard let item = restaurant.menu.item(itemID) else {
            return [.emptyState(id: "dish-missing", title: "This dish is not on the menu.")]
        }
        var parts: [ViewNode] = []
        if let picture { parts.append(.image(id: NodeID.image, source: picture, alternative: item.name)) }
        parts += [
            .text(id: NodeID.name, item.name, style: .title),
            .text(id: NodeID.description, item.description),
            .text(id: NodeID.price, Money.format(cents: item.priceInCents)),
            .button(id: NodeID.add, label: "Add to Order", role: .primary) { [weak self] in try await self?.addToOrder() },
        ]
        return [.stack(id: NodeID.stack, children: parts)]
    }

    private func addToOrder() async throws {
        let line = try await restaurant.addToOrder(menuItemID: itemID, origin: origin)
        window?.showNotice("Added \(line.name) to your order.")
    }
}
