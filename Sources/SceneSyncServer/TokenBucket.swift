import SceneSync
/// A token bucket: up to `capacity` messages at once, refilled at `refillPerSecond`.
struct TokenBucket {
    private let capacity: Double
    private let refillPerSecond: Double
    private var tokens: Double
    private var lastRefill: ContinuousClock.Instant

    init(_ limit: SceneSyncServer.RateLimit, now: ContinuousClock.Instant = .now) {
        capacity = Double(max(limit.burst, 1))
        refillPerSecond = max(limit.perSecond, 0)
        tokens = capacity
        lastRefill = now
    }

    /// Takes a token if one is left.
    mutating func take(now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = lastRefill.duration(to: now)
        let seconds = elapsed.timeInterval
        tokens = min(capacity, tokens + seconds * refillPerSecond)
        lastRefill = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
