import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Gives the memory of large messages back to the system once they have been written.
///
/// A window's first render of a long list is megabytes (2.6 MB for 10,000 rows), built, encoded
/// and written once, then freed. glibc's allocator keeps what was freed for later, so a hundred
/// windows opening on such a list leave the process hundreds of megabytes larger than what it
/// holds, for good. After a large message the server asks glibc to return its free memory
/// (`malloc_trim`), once things have been quiet for ``quietPeriod``: a burst of windows opening
/// costs one trim, off the main actor. The apps' launch asks for one too. Elsewhere than on glibc
/// it does nothing.
final class HeapTrim: Sendable {
    /// The process's one trimmer: the heap is the process's.
    static let shared = HeapTrim()

    /// A message this large, or larger, asks for a trim.
    static let largeMessage = 512 * 1024
    /// How long after the last large message the trim waits.
    let quietPeriod: Duration

    init(quietPeriod: Duration = .seconds(1)) {
        self.quietPeriod = quietPeriod
    }

    private struct State {
        var isScheduled = false
        var last = ContinuousClock.now
        var trims = 0
    }

    private let state = Mutex(State())
    /// Where trims wait and run: a queue of their own, which gets a thread even when every
    /// thread of the shared pool is busy.
    private static let queue = DispatchQueue(label: "SceneSync.HeapTrim")

    /// How many trims have run, for tests.
    var trims: Int { state.withLock(\.trims) }

    /// A message of `size` bytes is on its way to a window.
    func note(messageOf size: Int) {
        guard size >= Self.largeMessage else { return }
        requestTrim()
    }

    /// Asks for a trim once things have been quiet for ``quietPeriod``: after a large message, or
    /// once the apps have launched (loading a large state leaves much of what it read freed).
    func requestTrim() {
        let schedule = state.withLock { state -> Bool in
            state.last = .now
            defer { state.isScheduled = true }
            return !state.isScheduled
        }
        if schedule { trim(after: quietPeriod) }
    }

    private func trim(after delay: Duration) {
        let nanoseconds = Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        Self.queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            let wait: Duration? = state.withLock { state in
                let quiet = state.last.duration(to: .now)
                guard quiet >= quietPeriod else { return quietPeriod - quiet }
                state.isScheduled = false
                state.trims += 1
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
