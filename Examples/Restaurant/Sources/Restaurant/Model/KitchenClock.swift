public import Foundation

/// The kitchen's sense of time: what time it is, how long a minute of preparation lasts, and how
/// to wait. The system clock in production; a test clock (or quicker minutes for a demo) elsewhere.
///
/// ```swift
/// let clock = KitchenClock.system                                   // real minutes
/// let demo = KitchenClock(minute: .seconds(2))                      // a minute lasts 2 seconds
/// let test = KitchenClock(ManualClock(), startingAt: .now)          // time moves when a test says
/// ```
public struct KitchenClock: Sendable {
    /// How long one minute of preparation lasts.
    public let minute: Duration
    private let currentDate: @Sendable () -> Date
    private let sleeper: @Sendable (Date) async throws -> Void

    /// The system's clock, with minutes of `minute`.
    public init(minute: Duration = .seconds(60)) {
        self.minute = minute
        currentDate = { Date() }
        sleeper = { date in try await Task.sleep(for: Self.wait(date.timeIntervalSinceNow)) }
    }

    /// A clock whose dates start at `date` and move as `clock` does.
    public init<C: Clock>(_ clock: C, startingAt date: Date, minute: Duration = .seconds(60)) where C.Duration == Duration {
        let start = clock.now
        self.minute = minute
        currentDate = { date.addingTimeInterval(Self.seconds(start.duration(to: clock.now))) }
        // Until the clock's instant for the date, not for a duration from now: time the clock
        // moves while the sleep begins is not waited again.
        sleeper = { until in try await clock.sleep(until: start.advanced(by: Self.wait(until.timeIntervalSince(date))), tolerance: nil) }
    }

    /// The system's clock with real minutes.
    public static let system = KitchenClock()

    /// What time it is.
    public var now: Date { currentDate() }

    /// The moment `minutes` of preparation after `date`, on the whole second before it, so that
    /// every countdown ticks on the same beat and none starts above the minutes promised.
    public func date(_ minutes: Int, minutesAfter date: Date) -> Date {
        Date(timeIntervalSince1970: date.addingTimeInterval(Self.seconds(minute * minutes)).timeIntervalSince1970.rounded(.down))
    }

    /// Waits until `date`, or returns at once if it has passed.
    ///
    /// - Throws: `CancellationError` if the task is cancelled meanwhile.
    public func sleep(until date: Date) async throws {
        guard date > now else { return }
        try await sleeper(date)
    }

    /// `seconds` as a duration, rounded up to the millisecond so that a sleep never ends early.
    private static func wait(_ seconds: TimeInterval) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
