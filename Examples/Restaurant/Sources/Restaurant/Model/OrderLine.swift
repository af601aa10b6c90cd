public import Foundation

/// One dish in an order. Each line has its own id, so that two portions of the same dish can be
/// deleted or moved apart.
public struct OrderLine: Codable, Equatable, Hashable, Identifiable, Sendable {
    /// The line's id.
    public let id: UUID
    /// The dish's number on the menu.
    public let menuItemID: Int
    /// The dish's name when it was ordered.
    public let name: String
    /// The dish's price when it was ordered, in cents.
    public let priceInCents: Int

    /// A line for `item`.
    public init(id: UUID = UUID(), item: MenuItem) {
        self.init(id: id, menuItemID: item.id, name: item.name, priceInCents: item.priceInCents)
    }

    /// A line with these values.
    public init(id: UUID, menuItemID: Int, name: String, priceInCents: Int) {
        self.id = id
        self.menuItemID = menuItemID
        self.name = name
        self.priceInCents = priceInCents
    }
}

/// An order the kitchen has: what was ordered, when, and when it is ready.
public struct KitchenOrder: Codable, Equatable, Hashable, Identifiable, Sendable {
    /// Where an order came from.
    public enum Source: String, Codable, Sendable {
        /// The order the app's windows share, submitted from one of them; submitting empties it.
        case sharedOrder
        /// A client of the menu API (`POST /order`), such as the course's iOS app.
        case menuAPI
    }

    /// The order's number: 1 for the first ever submitted, and so on.
    public let number: Int
    /// The dishes ordered.
    public let lines: [OrderLine]
    /// Where the order came from.
    public let source: Source
    /// How long the kitchen said it would take, in minutes.
    public let preparationTime: Int
    /// When the kitchen got it.
    public let submittedAt: Date
    /// When it will be ready.
    public let readyAt: Date
    /// Whether the kitchen has said it is ready.
    public var isReady: Bool
    /// The network address of the menu API client that sent it, which
    /// ``OrderLimits/maximumOrdersInPreparationPerClient`` counts; `nil` for an order from the windows.
    public let client: String?

    /// The order's identity is its number.
    public var id: Int { number }

    /// The sum of the dishes' prices, in cents.
    public var totalInCents: Int { lines.reduce(0) { $0 + $1.priceInCents } }

    /// Creates an order.
    public init(number: Int, lines: [OrderLine], source: Source, preparationTime: Int, submittedAt: Date, readyAt: Date,
                isReady: Bool = false, client: String? = nil) {
        self.number = number
        self.lines = lines
        self.source = source
        self.preparationTime = preparationTime
        self.submittedAt = submittedAt
        self.readyAt = readyAt
        self.isReady = isReady
        self.client = client
    }
}
