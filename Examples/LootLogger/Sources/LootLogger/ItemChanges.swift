import Foundation
import SceneSync

/// An edit to one or more fields of an item, as a person typed it. Fields left `nil` are not
/// touched, so two windows that edit different fields of one item both keep their edit.
public struct ItemChanges: Sendable, Equatable {
    /// The new name.
    public var name: String?
    /// The new serial number; an empty one removes it.
    public var serialNumber: String?
    /// The new value in dollars as typed, such as `"42"` or `"$42"`; parsed strictly.
    public var value: String?

    /// Creates an edit from typed text.
    public init(name: String? = nil, serialNumber: String? = nil, value: String? = nil) {
        self.name = name
        self.serialNumber = serialNumber
        self.value = value
    }

    /// Creates an edit with a value in whole dollars.
    public init(name: String? = nil, serialNumber: String? = nil, valueInDollars: Int) {
        self.init(name: name, serialNumber: serialNumber, value: String(valueInDollars))
    }
}

/// The checks every intent's fields pass before anything changes.
public enum ItemValidation {
    /// A name without the white space and invisible characters around it, or an error: a name
    /// that shows nothing (white space, control characters, joiners, fillers) is empty, and one
    /// with a character the text policy refuses inside it (NUL, ESC, U+FEFF, an unclosed
    /// right-to-left override, a private-use character) is refused.
    public static func name(_ text: String) throws(ItemStoreError) -> String {
        let trimmed = VisibleText.trimmed(text)
        guard VisibleText.hasVisibleContent(trimmed) else { throw .emptyName }
        do { try VisibleText.check(trimmed) } catch { throw .unshowableName(error) }
        guard trimmed.count <= ItemLimits.maximumNameLength else { throw .nameTooLong(length: trimmed.count) }
        guard trimmed.utf8.count <= ItemLimits.maximumNameBytes else { throw .nameTooLarge(bytes: trimmed.utf8.count) }
        return trimmed
    }

    /// A serial number without the white space and invisible characters around it (`nil` if
    /// nothing visible is left), or an error.
    public static func serialNumber(_ text: String?) throws(ItemStoreError) -> String? {
        guard let text else { return nil }
        let trimmed = VisibleText.trimmed(text)
        guard VisibleText.hasVisibleContent(trimmed) else { return nil }
        do { try VisibleText.check(trimmed) } catch { throw .unshowableSerialNumber(error) }
        guard trimmed.count <= ItemLimits.maximumSerialNumberLength else {
            throw .serialNumberTooLong(length: trimmed.count)
        }
        guard trimmed.utf8.count <= ItemLimits.maximumSerialNumberBytes else {
            throw .serialNumberTooLarge(bytes: trimmed.utf8.count)
        }
        return trimmed
    }

    /// A value in dollars parsed strictly: ASCII digits, optionally after a `$`, grouped by
    /// thousands with commas or not (`1,250` as the list shows it, or `1250`), from 0 to
    /// 1,000,000,000. `"abc"`, `"-5"`, `"1e99"`, `"4.5"` and `"1,25"` are refused, never read as 0.
    public static func value(_ text: String) throws(ItemStoreError) -> Int {
        var digits = trimmingBlanks(text)
        if digits.first == "$" { digits = digits.dropFirst() }
        if digits.contains(",") {
            // Groups of three after the first, which has one to three digits.
            let groups = digits.split(separator: ",", omittingEmptySubsequences: false)
            guard let first = groups.first, (1...3).contains(first.count), groups.dropFirst().allSatisfy({ $0.count == 3 })
            else { throw .invalidValue(text) }
            digits = Substring(groups.joined())
        }
        guard !digits.isEmpty, digits.count <= 10,
              digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }),
              let value = Int(digits), value <= ItemLimits.maximumValue
        else { throw .invalidValue(text) }
        return value
    }

    /// `text` without the spaces and tabs around it, read scalar by scalar: the characters of
    /// Foundation's `CharacterSet.whitespaces` (tab, space, no-break space, U+1680, U+2000 to
    /// U+200B, U+202F, U+205F, U+3000).
    private static func trimmingBlanks(_ text: String) -> Substring {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x20, 0x09, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
            default: false
            }
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }), let last = scalars.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return Substring(scalars[first...last])
    }

    /// A value in whole dollars, or an error if out of range.
    public static func value(_ dollars: Int) throws(ItemStoreError) -> Int {
        guard (0...ItemLimits.maximumValue).contains(dollars) else { throw .invalidValue(String(dollars)) }
        return dollars
    }
}
