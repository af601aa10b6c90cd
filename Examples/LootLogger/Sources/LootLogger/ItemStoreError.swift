public import Foundation
public import SceneSync

/// Why the item store refused an intent. Nothing changes when it does.
public enum ItemStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name is empty, or shows nothing: only white space or invisible characters.
    case emptyName
    /// The name has a character the text policy refuses: a control or invisible character, an
    /// unclosed direction override, a private-use character (see ``VisibleText/check(_:allowsLineBreaks:)``).
    case unshowableName(VisibleText.Refusal)
    /// The serial number has a character the text policy refuses.
    case unshowableSerialNumber(VisibleText.Refusal)
    /// The name has more than ``ItemLimits/maximumNameLength`` characters.
    case nameTooLong(length: Int)
    /// The name takes more than ``ItemLimits/maximumNameBytes`` bytes of UTF-8.
    case nameTooLarge(bytes: Int)
    /// The serial number has more than ``ItemLimits/maximumSerialNumberLength`` characters.
    case serialNumberTooLong(length: Int)
    /// The serial number takes more than ``ItemLimits/maximumSerialNumberBytes`` bytes of UTF-8.
    case serialNumberTooLarge(bytes: Int)
    /// The value is not a whole number of dollars from 0 to ``ItemLimits/maximumValue``.
    case invalidValue(String)
    /// No item has this key (it may have been removed in another window).
    case unknownItem(UUID)
    /// A move to an index outside the list.
    case moveOutOfRange(index: Int, count: Int)
    /// The change could not be saved; nothing of it was kept.
    case notSaved(reason: String)

    /// The field the error is about, so a form can show it next to that field.
    public var field: Item.Field? {
        switch self {
        case .emptyName, .unshowableName, .nameTooLong, .nameTooLarge: .name
        case .unshowableSerialNumber, .serialNumberTooLong, .serialNumberTooLarge: .serialNumber
        case .invalidValue: .valueInDollars
        case .unknownItem, .moveOutOfRange, .notSaved: nil
        }
    }

    /// A sentence a person can read.
    public var description: String {
        switch self {
        case .emptyName:
            "An item needs a name."
        case let .unshowableName(refusal):
            "A name can't contain that: it \(refusal)."
        case let .unshowableSerialNumber(refusal):
            "A serial number can't contain that: it \(refusal)."
        case let .nameTooLong(length):
            "A name can have at most \(ItemLimits.maximumNameLength) characters; this one has \(length)."
        case let .nameTooLarge(bytes):
            "A name can take at most \(ItemLimits.maximumNameBytes) bytes; this one takes \(bytes) (accents and symbols take several)."
        case let .serialNumberTooLarge(bytes):
            "A serial number can take at most \(ItemLimits.maximumSerialNumberBytes) bytes; this one takes \(bytes)."
        case let .serialNumberTooLong(length):
            "A serial number can have at most \(ItemLimits.maximumSerialNumberLength) characters; this one has \(length)."
        case let .invalidValue(text):
            "The value must be a whole number of dollars from 0 to 1,000,000,000, not \(text.debugDescription)."
        case .unknownItem:
            "That item no longer exists; it may have been deleted in another window."
        case let .moveOutOfRange(index, count):
            "An item cannot move to position \(index) of a list of \(count)."
        case let .notSaved(reason):
            "The change could not be saved: \(reason)"
        }
    }
}
