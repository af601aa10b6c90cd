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

    /// One window's waiting messages: at most `messageLimit` of them, and bytes within the
    /// window's and the server's bounds.
    final class Queue: Sendable {
        let budget: OutboundBudget
        /// The most messages the window may have waiting.
        let messageLimit: Int
        private struct Waiting {
            var bytes = 0
            var messages = 0
            /// Whether the window is done with: what is still being written no longer counts.
            var isClosed = false
        }
        private let waiting = Mutex(Waiting())

        init(budget: OutboundBudget, messageLimit: Int = .max) {
            self.budget = budget
            self.messageLimit = max(1, messageLimit)
        }

        /// Bytes waiting for this window now.
        var queuedBytes: Int { waiting.withLock { $0.bytes } }

        /// Counts one message of `count` bytes as waiting, if it fits; `false` if the window or
        /// the server would go over its bound, and then nothing is counted.
        func reserve(_ count: Int) -> Bool {
            waiting.withLock { waiting in
                guard !waiting.isClosed else { return false }
                let mine = waiting.bytes + count
                let all = budget.queued.add(count, ordering: .relaxed).newValue
                let fits = waiting.messages < messageLimit && mine <= budget.perWindow
                    && (all <= budget.total || mine <= budget.perWindow / 64)
                guard fits else {
                    budget.queued.subtract(count, ordering: .relaxed)
                    return false
                }
                waiting.bytes = mine
                waiting.messages += 1
                return true
            }
        }

        /// A message of `count` bytes has been written, or will not be.
        func release(_ count: Int) {
            waiting.withLock { waiting in
                guard !waiting.isClosed else { return }
                waiting.bytes -= count
                waiting.messages -= 1
                budget.queued.subtract(count, ordering: .relaxed)
            }
        }

        /// The window is done with: nothing it has waiting counts any more.
        func releaseAll() {
            waiting.withLock { waiting in
                guard !waiting.isClosed else { return }
                waiting.isClosed = true
                budget.queued.subtract(waiting.bytes, ordering: .relaxed)
                waiting.bytes = 0
                waiting.messages = 0
            }
        }
    }
}
