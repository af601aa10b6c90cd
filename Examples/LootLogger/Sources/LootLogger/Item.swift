public import Foundation

/// One possession in the LootLogger inventory.
public struct Item: Codable, Equatable, Hashable, Sendable, Identifiable {
    /// The item's stable key.
    public let key: UUID
    /// The item's name, such as "Shiny Spork": 1 to ``ItemLimits/maximumNameLength`` characters.
    public var name: String
    /// The serial number, if it has one: at most ``ItemLimits/maximumSerialNumberLength`` characters.
    public var serialNumber: String?
    /// The value in whole dollars, 0 to ``ItemLimits/maximumValue``.
    public var valueInDollars: Int
    /// When the item was created.
    public let dateCreated: Date

    /// The item's key, as `Identifiable` wants it.
    public var id: UUID { key }

    /// Creates an item; the store validates it before it is kept.
    public init(key: UUID = UUID(), name: String, serialNumber: String? = nil, valueInDollars: Int, dateCreated: Date = Date()) {
        self.key = key
        self.name = name
        self.serialNumber = serialNumber
        self.valueInDollars = valueInDollars
        self.dateCreated = dateCreated
    }

    /// The fields a person can edit.
    public enum Field: String, Codable, Sendable, CaseIterable, Comparable {
        case name, serialNumber, valueInDollars

        public static func < (lhs: Field, rhs: Field) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }
}

/// The limits an item's fields must keep.
public enum ItemLimits {
    /// The longest name, in characters.
    public static let maximumNameLength = 200
    /// The most a name may take in UTF-8, so that a character heaped with combining marks cannot
    /// pass the character limit at any size.
    public static let maximumNameBytes = 800
    /// The longest serial number, in characters.
    public static let maximumSerialNumberLength = 64
    /// The most a serial number may take in UTF-8.
    public static let maximumSerialNumberBytes = 256
    /// The highest value in dollars.
    public static let maximumValue = 1_000_000_000
}
