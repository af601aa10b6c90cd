import Foundation

/// A dish on the menu, as the course's server describes it in `menu.json`.
public struct MenuItem: Codable, Equatable, Hashable, Identifiable, Sendable {
    /// The dish's number, unique on the menu; the menu API and orders use it.
    public let id: Int
    /// The dish's name, such as "Tomato Bruschetta".
    public let name: String
    /// A sentence or two about the dish.
    public let description: String
    /// The price in dollars, as the menu file gives it.
    public let price: Double
    /// The category the dish is listed under, such as "appetizers".
    public let category: String
    /// How many minutes the kitchen needs to make the dish.
    public let estimatedPrepTime: Int

    /// Creates a dish.
    public init(id: Int, name: String, description: String, price: Double, category: String, estimatedPrepTime: Int) {
        self.id = id
        self.name = name
        self.description = description
        self.price = price
        self.category = category
        self.estimatedPrepTime = estimatedPrepTime
    }

    /// The price in whole cents, which orders add up without rounding errors.
    public var priceInCents: Int { Int((price * 100).rounded()) }

    enum CodingKeys: String, CodingKey {
        case id, name, description, price, category
        case estimatedPrepTime = "estimated_prep_time"
    }
}
