import Foundation

/// Whole dollars as LootLogger shows them, grouped by thousands as in English (the app's
/// language): `$1,000,000,000`. Values are whole dollars, as in the app LootLogger comes from.
public enum Dollars {
    private static let locale = Locale(identifier: "en_US")

    /// `value` with a dollar sign and thousands separators.
    public static func format(_ value: Int) -> String {
        "$" + grouped(value)
    }

    /// `value` with thousands separators, such as a count of items: `10,000`.
    public static func grouped(_ value: Int) -> String {
        value.formatted(.number.locale(locale))
    }
}
