import Foundation

/// Why a menu file was refused, naming the entry and the field, so that whoever wrote it can fix it.
public enum MenuFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The file is not JSON.
    case notJSON(reason: String)
    /// The JSON is not a list of dishes: neither `{"items": […]}` nor `[…]`.
    case notAMenu(reason: String)
    /// Entry number `entry` (counted from 1), whose `id` is `id` if it has one, has a wrong `field`.
    case invalidField(entry: Int, id: Int?, field: String, problem: String)
    /// Two entries (counted from 1) have the same id.
    case duplicateID(Int, entries: Int, Int)
    /// The menu has no dishes.
    case empty

    /// The longest name a dish may have, in characters.
    public static let maximumNameLength = 100
    /// The longest description a dish may have, in characters.
    public static let maximumDescriptionLength = 1_000
    /// The highest price a dish may have, in dollars.
    public static let maximumPrice = 100_000.0
    /// The longest a dish may take the kitchen, in minutes.
    public static let maximumPrepTime = 24 * 60

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            "The menu file \(path) cannot be read: \(reason)"
        case let .notJSON(reason):
            "The menu file is not valid JSON: \(reason)"
        case let .notAMenu(reason):
            "The menu file must hold {\"items\": [dish, …]}: \(reason)"
        case let .invalidField(entry, id, field, problem):
            "Menu entry \(entry)\(id.map { " (id \($0))" } ?? ""), field \"\(field)\": \(problem)"
        case let .duplicateID(id, first, second):
            "Menu entries \(first + 1) and \(second + 1) have the same id, \(id)."
        case .empty:
            "The menu has no dishes."
        }
    }

    /// Checks the values of a dish, the `index`th of its menu (counted from 0).
    static func check(_ item: MenuItem, at index: Int) throws(MenuFileError) {
        func fail(_ field: MenuItem.CodingKeys, _ problem: String) -> MenuFileError {
            .invalidField(entry: index + 1, id: item.id, field: field.rawValue, problem: problem)
        }
        if item.id < 0 { throw fail(.id, "must be a whole number of 0 or more, not \(item.id).") }
        let name = item.name.trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty { throw fail(.name, "must not be empty.") }
        if item.name.count > Self.maximumNameLength {
            throw fail(.name, "must have at most \(Self.maximumNameLength) characters; it has \(item.name.count).")
        }
        if item.description.count > Self.maximumDescriptionLength {
            throw fail(.description, "must have at most \(Self.maximumDescriptionLength) characters; it has \(item.description.count).")
        }
        if !(item.price.isFinite && item.price >= 0 && item.price <= Self.maximumPrice) {
            throw fail(.price, "must be a number of dollars from 0 to \(Int(Self.maximumPrice)), not \(item.price).")
        }
        if item.category.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw fail(.category, "must not be empty.") }
        if !(1...Self.maximumPrepTime).contains(item.estimatedPrepTime) {
            throw fail(.estimatedPrepTime, "must be a whole number of minutes from 1 to \(Self.maximumPrepTime), not \(item.estimatedPrepTime).")
        }
    }
}
