import Restaurant
import Synchronization

/// `POST /order`'s rate per client address: a token bucket each, holding up to
/// ``OrderLimits/orderBurst`` orders and refilled with one every ``OrderLimits/orderInterval``.
///
/// What it keeps is bounded: a bucket that has filled up again is worth no more than a new one, so
/// it is forgotten (in a sweep at most once per refill time); and at
/// ``OrderLimits/maximumTrackedClients`` addresses the least recently seen one makes room.
final class OrderRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var lastSweep: ContinuousClock.Instant
    }

    private let burst: Double
    private let interval: Duration
    private let maximumClients: Int
    private let state: Mutex<State>

    init(_ limits: OrderLimits, now: ContinuousClock.Instant = .now) {
        burst = Double(max(limits.orderBurst, 1))
        interval = max(limits.orderInterval, .zero)
        maximumClients = max(limits.maximumTrackedClients, 1)
        state = Mutex(State(lastSweep: now))
    }

    /// How long a bucket takes to fill from empty; one idle that long is full.
    private var refillTime: Duration { interval * burst }

    /// The addresses followed now.
    var trackedClients: Int { state.withLock { $0.buckets.count } }

    /// Takes an order's token from `client`'s bucket. Returns `nil` when it had one, or else how
    /// long until it has.
    func take(for client: String, now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in
            if state.lastSweep.duration(to: now) >= refillTime {
                state.buckets = state.buckets.filter { !isFull($0.value, at: now) }
                state.lastSweep = now
            }
            var bucket = state.buckets[client] ?? Bucket(tokens: burst, updated: now)
            if state.buckets[client] == nil, state.buckets.count >= maximumClients {
                makeRoom(in: &state, now: now)
            }
            bucket.tokens = tokens(in: bucket, at: now)
            bucket.updated = now
            defer { state.buckets[client] = bucket }
            guard bucket.tokens < 1 else {
                bucket.tokens -= 1
                return nil
            }
            return interval * (1 - bucket.tokens)
        }
    }

    private func tokens(in bucket: Bucket, at now: ContinuousClock.Instant) -> Double {
        guard interval > .zero else { return burst }
        let elapsed = max(bucket.updated.duration(to: now), .zero)
        return min(burst, bucket.tokens + elapsed / interval)
    }

    private func isFull(_ bucket: Bucket, at now: ContinuousClock.Instant) -> Bool {
        tokens(in: bucket, at: now) >= burst
    }

    /// Forgets full buckets, or else the least recently seen one.
    private func makeRoom(in state: inout State, now: ContinuousClock.Instant) {
        state.buckets = state.buckets.filter { !isFull($0.value, at: now) }
        state.lastSweep = now
        guard state.buckets.count >= maximumClients,
              let oldest = state.buckets.min(by: { $0.value.updated < $1.value.updated })?.key else { return }
        state.buckets[oldest] = nil
    }
}
