import Synchronization

/// The bytes waiting to be written to windows: bounded per window and for the whole server, so
/// that a window that never reads holds a bounded amount of memory, and many of them together
/// cannot take the rest.
final class OutboundBudget: Sendable {
    /// The most bytes one window may have waiting.
    let perWindow: Int
    /// The most bytes every window together may have waiting.
    let total: Int
    private let queued = Atomic<Int>(0)

    init(perWindow: Int, total: Int) {
        self.perWindow = max(1, perWindow)
        self.total = max(1, total)
    }

    /// Bytes waiting for every window now.
    var queuedBytes: Int { queued.load(ordering: .relaxed) }

    /// One window's share of the budget.
    final class Queue: Sendable {
        let budget: OutboundBudget
        private let bytes = Atomic<Int>(0)

        init(budget: OutboundBudget) {
            self.budget = budget
        }

        /// Bytes waiting for this window now.
        var queuedBytes: Int { bytes.load(ordering: .relaxed) }

        /// Counts `count` bytes in if they fit; `false` if the window would go over its own bound,
        /// or the server over its total while this window holds more than a sliver of its own
        /// (windows that keep up are not closed for those that do not).
        func reserve(_ count: Int) -> Bool {
            let mine = bytes.add(count, ordering: .relaxed).newValue
            let all = budget.queued.add(count, ordering: .relaxed).newValue
            let fits = mine <= budget.perWindow && (all <= budget.total || mine <= budget.perWindow / 64)
            if !fits { release(count) }
            return fits
        }

        /// Counts `count` bytes out once written.
        func release(_ count: Int) {
            bytes.subtract(count, ordering: .relaxed)
            budget.queued.subtract(count, ordering: .relaxed)
        }

        /// Counts out everything still counted in: the window will write nothing more.
        func releaseAll() {
            let left = bytes.exchange(0, ordering: .relaxed)
            budget.queued.subtract(left, ordering: .relaxed)
        }
    }
}
