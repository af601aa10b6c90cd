import SceneSync

/// "Open in New Window" requests waiting for their window: each activity is kept under a random
/// one-time token, which the new window's URL carries back in `hello.open`.
struct OpenRequests {
    private var pending: [String: (activity: SceneActivity, expires: ContinuousClock.Instant)] = [:]
    private let lifetime: Duration
    /// Bounds the memory a window asking for many windows can take.
    private let limit = 1024

    init(lifetime: Duration) {
        self.lifetime = lifetime
    }

    /// Keeps `activity` and returns its token.
    mutating func insert(_ activity: SceneActivity, now: ContinuousClock.Instant = .now) -> String {
        pending = pending.filter { $0.value.expires > now }
        if pending.count >= limit, let oldest = pending.min(by: { $0.value.expires < $1.value.expires })?.key {
            pending[oldest] = nil
        }
        let token = SceneSession.ID().rawValue
        pending[token] = (activity, now.advanced(by: lifetime))
        return token
    }

    /// The activity kept under `token`, once: the token is spent either way.
    mutating func take(_ token: String, now: ContinuousClock.Instant = .now) -> SceneActivity? {
        guard let entry = pending.removeValue(forKey: token), entry.expires > now else { return nil }
        return entry.activity
    }
}
