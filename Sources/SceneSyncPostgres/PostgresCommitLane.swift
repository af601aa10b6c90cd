import Logging
import PostgresNIO
import Synchronization

/// The commits of one app through one database object, run one after another on one connection
/// that the lane keeps while commits keep coming, and gives back to the pool once none has come
/// for ``PostgresDatabase/Options/commitConnectionIdleTime``.
///
/// A commit borrowed from the pool costs the pool's bookkeeping each time: a lease, a release,
/// and the keep-alive and idle timers it starts on a connection given back and stops on one
/// lent. A model controller commits one batch after another, so the lane keeps the connection
/// between them instead. Its work runs on the connection's event loop (see
/// `PostgresDatabase.withConnection(_:)`), which also watches the connection for answers that
/// will not come: if one is lost, the commit waiting for it fails, and commits not sent yet wait
/// for another connection.
final class PostgresCommitLane: Sendable {
    typealias Work = @Sendable (PostgresConnection) async throws -> Void

    private struct Request: Sendable {
        let id: Int
        let work: Work
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// Requests not started, in order.
        var queue: [Request] = []
        /// The request taken to run next, or running; whoever takes it from here resumes it.
        var inFlight: Request?
        /// Whether ``inFlight``'s work has started: its outcome is unknown if its answer is lost.
        var sent = false
        /// The lane's task, waiting for the next request, when none is queued.
        var waiting: CheckedContinuation<Request?, Never>?
        /// Whether a task serves the lane, or is getting it a connection.
        var running = false
        /// Which connection of the lane is current: a task serving an earlier one takes nothing
        /// more.
        var generation = 0
        /// Whether the current generation got a connection.
        var connected = false
        /// Connections in a row that ended before a request ran on them.
        var wasted = 0
        var lastRequest = ContinuousClock.now
        var lastID = 0
        var closed = false
    }

    /// How many connections in a row may end before any queued request has run on them, before
    /// the queued requests fail.
    static let connectionsWasted = 3

    private let database: PostgresDatabase
    private let state = Mutex(State())

    init(database: PostgresDatabase) {
        self.database = database
    }

    /// Whether a task serves the lane: it holds a connection, or is getting one.
    var isServed: Bool { state.withLock { $0.running } }

    /// Runs `work` on the lane's connection once the requests before it have run, and returns or
    /// throws what it did; ``PostgresStorageError/closed`` once the database is closing, and
    /// `CancellationError` if the calling task is cancelled before `work` starts.
    func run(_ work: @escaping Work) async throws {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let request = Request(id: id, work: work, continuation: continuation)
                enum Next { case refuse, hand(CheckedContinuation<Request?, Never>), start, queued }
                guard !Task.isCancelled else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let next = state.withLock { state -> Next in
                    guard !state.closed else { return .refuse }
                    state.lastRequest = .now
                    if let waiting = state.waiting {
                        state.waiting = nil
                        state.inFlight = request
                        state.sent = false
                        return .hand(waiting)
                    }
                    state.queue.append(request)
                    guard !state.running else { return .queued }
                    state.running = true
                    return .start
                }
                switch next {
                case .refuse: continuation.resume(throwing: PostgresStorageError.closed)
                case let .hand(waiting): waiting.resume(returning: request)
                case .start: Task { await self.drive() }
                case .queued: break
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Request? in
                guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
                return state.queue.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Fails the requests not started, and lets the lane's connection go once the one in flight
    /// (if any) has finished.
    func close() {
        let (queued, waiting) = state.withLock { state in
            state.closed = true
            defer {
                state.queue = []
                state.waiting = nil
            }
            return (state.queue, state.waiting)
        }
        for request in queued { request.continuation.resume(throwing: PostgresStorageError.closed) }
        waiting?.resume(returning: nil)
    }

    /// Gets the lane a connection and serves it, again while requests are queued.
    private func drive() async {
        while true {
            let generation = state.withLock { state in
                state.generation += 1
                state.connected = false
                return state.generation
            }
            let idleCheck = Task { await self.releaseWhenIdle(generation: generation) }
            var failure: (any Error)?
            do {
                try await database.withConnection { connection in
                    await self.serve(on: connection, generation: generation)
                }
            } catch {
                failure = error
            }
            idleCheck.cancel()
            // A task left serving a lost connection takes nothing more: it is no longer current.
            let (lost, waiting, failed, again) = state.withLock { state in
                state.generation += 1
                let waiting = state.waiting.take()
                var lost: Request?
                if let request = state.inFlight.take() {
                    // Sent: its answer was lost, and whether it committed is unknown. Not sent
                    // yet: it waits for the next connection.
                    if state.sent { lost = request } else { state.queue.insert(request, at: 0) }
                }
                if !state.connected || lost != nil { state.wasted = 0 } else if !state.queue.isEmpty { state.wasted += 1 }
                var failed: [Request] = []
                if state.closed || !state.connected || state.wasted >= Self.connectionsWasted {
                    // Closing; or no connection could be had, or none stayed open long enough:
                    // what waits fails as a commit on its own would have.
                    failed = state.queue
                    state.queue = []
                    state.wasted = 0
                }
                let again = !state.queue.isEmpty
                if !again { state.running = false }
                return (lost, waiting, failed, again)
            }
            waiting?.resume(returning: nil)
            let lostAnswer = PostgresStorageError.database(
                operation: "wait for an answer", sqlState: nil, message: "the connection closed before the database answered")
            lost?.continuation.resume(throwing: failure ?? lostAnswer)
            let refusal = state.withLock { $0.closed } ? PostgresStorageError.closed : (failure ?? lostAnswer)
            for request in failed { request.continuation.resume(throwing: refusal) }
            if !again { return }
        }
    }

    /// Runs requests on `connection` until the lane is idle or closed, or the connection fails.
    private func serve(on connection: PostgresConnection, generation: Int) async {
        state.withLock { state in
            if state.generation == generation { state.connected = true }
        }
        while let request = await next(generation: generation) {
            // A connection that closed while the lane kept it (the server restarted, or ended
            // it) is not used: the request waits for the next one.
            let start = state.withLock { state -> Bool in
                guard state.generation == generation, !connection.isClosed, state.inFlight?.id == request.id else { return false }
                state.sent = true
                return true
            }
            guard start else { return }
            var result: Result<Void, any Error>
            do {
                try await request.work(connection)
                result = .success(())
            } catch {
                result = .failure(error)
            }
            let mine = state.withLock { state -> Request? in
                guard state.generation == generation else { return nil }
                state.wasted = 0
                return state.inFlight.take()
            }
            mine?.continuation.resume(with: result)
            // A connection the work closed (it cannot be trusted any more) goes back to the pool,
            // which opens another.
            if mine == nil || connection.isClosed { return }
        }
    }

    /// The next request: a queued one at once, or the next one to come; nil once the lane is
    /// idle, closed, or no longer served by this generation.
    private func next(generation: Int) async -> Request? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Request?, Never>) in
            let request = state.withLock { state -> Request?? in
                guard state.generation == generation, !state.closed else { return .some(nil) }
                if !state.queue.isEmpty {
                    let request = state.queue.removeFirst()
                    state.inFlight = request
                    state.sent = false
                    return request
                }
                state.waiting = continuation
                return nil
            }
            if let request { continuation.resume(returning: request) }
        }
    }

    /// Ends the wait of the lane's task once no request has come for the idle time, so that the
    /// connection goes back to the pool; one check per idle time, rather than a timer per wait.
    private func releaseWhenIdle(generation: Int) async {
        let idleTime = database.options.commitConnectionIdleTime
        while (try? await Task.sleep(for: idleTime)) != nil {
            let (waiting, current) = state.withLock { state -> (CheckedContinuation<Request?, Never>?, Bool) in
                guard state.generation == generation else { return (nil, false) }
                guard state.waiting != nil, ContinuousClock.now - state.lastRequest >= idleTime else { return (nil, true) }
                return (state.waiting.take(), true)
            }
            waiting?.resume(returning: nil)
            if waiting != nil || !current { return }
        }
    }
}
