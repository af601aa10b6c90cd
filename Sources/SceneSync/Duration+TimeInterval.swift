public import Foundation

extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval`: `.milliseconds(1_500)` is `1.5`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
