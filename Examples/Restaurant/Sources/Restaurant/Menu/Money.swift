/// Prices as a menu prints them: `$9.00`, `$1,234.50`.
public enum Money {
    /// `cents` as dollars with two decimals and thousands separators, such as `$1,234.50`.
    public static func format(cents: Int) -> String {
        let sign = cents < 0 ? "-" : ""
        let magnitude = cents.magnitude
        var dollars = String(magnitude / 100)
        var grouped = ""
        while dollars.count > 3 {
            grouped = "," + dollars.suffix(3) + grouped
            dollars.removeLast(3)
        }
        let remainder = magnitude % 100
        return "\(sign)$\(dollars)\(grouped).\(remainder < 10 ? "0" : "")\(remainder)"
    }
}
