public import Foundation

extension ViewValue {
    /// A moment as the wire carries it: whole milliseconds since 1970, UTC.
    ///
    /// ```swift
    /// update([.set(row, .countdown, to: .time(order.readyAt))])
    /// ```
    public static func time(_ date: Date) -> ViewValue {
        .int(Int((date.timeIntervalSince1970 * 1000).rounded()))
    }
}
