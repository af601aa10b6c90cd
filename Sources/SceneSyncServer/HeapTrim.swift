import Dispatch
import SceneSync
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Gives the memory of large messages back to the system once they have been written.
///
/// A window's first render of a long list is megabytes (2.6 MB for 10,000 rows), built, encoded
/// and written once, then freed. glibc's allocator keeps what was freed for later, so a hundred
/// windows opening on such a list leave the process hundreds of megabytes larger than what it
/// holds, for good. Once a large message has been written, the server asks glibc to return its
/// free memory (`malloc_trim`), off the main actor, when no other large message has been written
/// for ``quietPeriod``: a burst of windows opening costs one trim. A steady stream of them still
/// gets one within ``maximumDelay`` of the first, and trims are at least ``minimumGap`` apart,
/// since a trim holds each of glibc's arenas while it walks it. The apps' launch asks for one too.
/// Elsewhere than on glibc it does nothing.
final class HeapTrim: Sendable {
    /// The process's one trimmer: the heap is the process's.
    static let shared = HeapTrim()

    /// A message this large, or larger, asks for a trim.
    static let largeMessage = 512 * 1024
    /// How long after the last request the trim waits.
    let quietPeriod: Duration
    /// How long after the first request the trim waits at most, quiet or not.
    let maximumDelay: Duration
    /// The least time from one trim to the next.
    let minimumGap: Duration

    init(quietPeriod: Duration = .seconds(1), maximumDelay: Duration = .seconds(10), minimumGap: Duration = .seconds(2)) {
        self.quietPeriod = quietPeriod
        self.maximumDelay = maximumDelay
        self.minimumGap = minimumGap
    }

    private struct State {
        var isScheduled = false
        var first = ContinuousClock.now
        var last = ContinuousClock.now
        /// When each trim ran, for tests (the last few).
        var trimmedAt: [ContinuousClock.Instant] = []
        var trims = 0
    }

    private let state = Mutex(State())
    /// Where trims wait and run: a queue of their own, which gets a thread even when every
    /// thread of the shared pool is busy.
    private static let queue = DispatchQueue(label: "SceneSync.HeapTrim")

    /// How many trims have run, for tests.
    var trims: Int { state.withLock(\.trims) }

    /// When the last few trims ran, for tests.
    var trimmedAt: [ContinuousClock.Instant] { state.withLock(\.trimmedAt) }

    /// A message of `size` bytes has been written to a window (or could not be).
    func note(messageOf size: Int) {
        guard size >= Self.largeMessage else { return }
        requestTrim()
    }

    /// Asks for a trim: after a large message, or once the apps have launched (loading a large
    /// state leaves much of what it read freed).
    func requestTrim() {
        let schedule = state.withLock { state -> Bool in
            let now = ContinuousClock.now
            state.last = now
            guard !state.isScheduled else { return false }
            state.isScheduled = true
            state.first = now
            return true
        }
        if schedule { trim(after: quietPeriod) }
    }

    private func trim(after delay: Duration) {
        Self.queue.asyncAfter(deadline: .now() + max(0, delay.timeInterval)) { [self] in
            let wait: Duration? = state.withLock { state in
                let now = ContinuousClock.now
                let overdue = state.first.duration(to: now) >= maximumDelay
                var wait = overdue ? .zero : quietPeriod - state.last.duration(to: now)
                if let previous = state.trimmedAt.last { wait = max(wait, minimumGap - previous.duration(to: now)) }
                guard wait <= .zero else { return wait }
                state.isScheduled = false
                state.trims += 1
                state.trimmedAt = Array((state.trimmedAt + [now]).suffix(4))
                return nil
            }
            if let wait { return trim(after: wait) }
            _ = Self.mallocTrim?(0)
        }
    }

    /// glibc's `malloc_trim`, which its Swift module does not declare; nil elsewhere.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
