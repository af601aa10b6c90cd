import PostgresNIO
import Synchronization

/// The commits of one app through one database object, run one after another on one connection
/// that the lane keeps while commits keep coming, and gives back to the pool once none has come
/// for between one and two ``PostgresDatabase/Options/commitConnectionIdleTime`` (it looks once
/// per idle time).
///
/// A commit borrowed from the pool costs the pool's bookkeeping each time: a lease, a release,
/// and the keep-alive and idle timers it starts on a connection given back and stops on one
/// lent. A model controller commits one batch after another, so the lane keeps the connection
/// between them instead. Its work runs on the connection's event loop (see
/// `PostgresDatabase.withConnection(_:)`), which also watches the connection for answers that
/// will not come: if one is lost, the commit waiting for it fails, and commits not sent yet wait
/// for another connection (up to ``connectionsWasted`` of them in a row).
///
/// A lane takes a connection only with one of the database's ``Slots``: lanes together keep no
/// more connections than that, and a commit that finds its lane without a connection and no slot
/// free is not taken (``run(_:)`` returns false) and borrows one from the pool instead.
final class PostgresCommitLane: Sendable {
    typealias Work = @Sendable (PostgresConnection) async throws -> Void

    /// How many lanes of one database may keep a connection at once.
    final class Slots: Sendable {
        private let free: Atomic<Int>

        init(_ count: Int) {
            free = Atomic(max(0, count))
        }

        func take() -> Bool {
            var current = free.load(ordering: .relaxed)
            while current > 0 {
                let (exchanged, original) = free.compareExchange(
                    expected: current, desired: current - 1, ordering: .acquiringAndReleasing)
                if exchanged { return true }
                current = original
            }
            return false
        }

        func give() {
            free.add(1, ordering: .acquiringAndReleasing)
        }
    }

    private struct Request: Sendable {
        let id: Int
        let work: Work
        /// Answered true once the work ran, or with what it threw.
        let continuation: CheckedContinuation<Bool, any Error>
    }

    private struct State {
        /// Requests not started, in order.
        var queue: [Request] = []
        /// The request taken to run next, or running; whoever takes it from here resumes it.
        var inFlight: Request?
        /// Whether ``inFlight``'s work has started: its outcome is unknown if its answer is lost.
        var sent = false
        /// Requests whose callers were cancelled after they left the queue, before their work
        /// started: they are answered with `CancellationError` instead of being run.
        var cancelled: Set<Int> = []
        /// The lane's task, waiting for the next request, when none is queued.
        var waiting: CheckedContinuation<Request?, Never>?
        /// Whether a task serves the lane, or is getting it a connection; it holds a slot.
        var running = false
        /// Which connection of the lane is current: a task serving an earlier one takes nothing
        /// more.
        var generation = 0
        /// The current generation's connection, once it has one.
        var connection: PostgresConnection?
        /// Whether work started on the current generation's connection.
        var ran = false
        /// Connections in a row that ended, with requests waiting, before any work started on them.
        var wasted = 0
        /// Requests put back in the queue because their connection had closed before they were sent.
        var requeued = 0
        var lastRequest = ContinuousClock.now
        var lastID = 0
        var closed = false
        /// Tasks waiting for no task to serve the lane (see ``waitUntilStopped()``).
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// How many connections in a row may end, with requests waiting, before any work started on
    /// them, before the waiting requests fail.
    static let connectionsWasted = 3

    private let database: PostgresDatabase
    private let slots: Slots
    private let state = Mutex(State())

    init(database: PostgresDatabase, slots: Slots) {
        self.database = database
        self.slots = slots
    }

    /// Whether a task serves the lane: it holds a connection, or is getting one.
    var isServed: Bool { state.withLock { $0.running } }

    /// The connection the lane keeps now, if any (for tests).
    var keptConnection: PostgresConnection? { state.withLock { $0.connection } }

    /// How many requests were put back in the queue because their connection had closed before
    /// they were sent (for tests).
    var requeuedCount: Int { state.withLock { $0.requeued } }

    /// Runs `work` on the lane's connection once the requests before it have run, and returns
    /// true once it did, or throws what it threw; ``PostgresStorageError/closed`` once the
    /// database is closing, and `CancellationError` if the calling task is cancelled before
    /// `work` starts. Returns false at once, without running `work`, when the lane has no
    /// connection and no slot is free to get one.
    func run(_ work: @escaping Work) async throws -> Bool {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                let request = Request(id: id, work: work, continuation: continuation)
                enum Next { case refuse(any Error), decline, hand(CheckedContinuation<Request?, Never>), start, queued }
                let next = state.withLock { state -> Next in
                    guard !state.closed else { return .refuse(PostgresStorageError.closed) }
                    guard !Task.isCancelled else { return .refuse(CancellationError()) }
                    state.lastRequest = .now
                    if let waiting = state.waiting {
                        state.waiting = nil
                        state.inFlight = request
                        state.sent = false
                        return .hand(waiting)
                    }
                    if !state.running {
                        guard slots.take() else { return .decline }
                        state.running = true
                        state.queue.append(request)
                        return .start
                    }
                    state.queue.append(request)
                    return .queued
                }
                switch next {
                case let .refuse(error): continuation.resume(throwing: error)
                case .decline: continuation.resume(returning: false)
                case let .hand(waiting): waiting.resume(returning: request)
                case .start: Task { await self.drive() }
                case .queued: break
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Request? in
                if let index = state.queue.firstIndex(where: { $0.id == id }) { return state.queue.remove(at: index) }
                if state.inFlight?.id == id, !state.sent { state.cancelled.insert(id) }
                return nil
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Waits until no task serves the lane: after ``close()``, until the request in flight (if
    /// any) has finished and the lane has let its connection go.
    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = state.withLock { state in
                if !state.running { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if stopped { continuation.resume() }
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

    /// Gets the lane a connection and serves it, again while requests are queued; gives the
    /// lane's slot back when it stops.
    private func drive() async {
        while true {
            let generation = state.withLock { state in
                state.generation += 1
                state.connection = nil
                state.ran = false
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
            let lostAnswer = PostgresStorageError.database(
                operation: "wait for an answer", sqlState: nil, message: "the connection closed before the database answered")
            // A task left serving a lost connection takes nothing more: it is no longer current.
            let (lost, waiting, failed, refusal, again, stopWaiters) = state.withLock { state in
                state.generation += 1
                let connected = state.connection != nil
                state.connection = nil
                let waiting = state.waiting.take()
                var lost: Request?
                if let request = state.inFlight.take() {
                    // Sent: its answer was lost, and whether it committed is unknown. Not sent
                    // yet: it waits for the next connection.
                    if state.sent { lost = request } else { state.queue.insert(request, at: 0) }
                }
                if state.ran || lost != nil || !connected {
                    state.wasted = 0
                } else if !state.queue.isEmpty {
                    state.wasted += 1
                }
                var failed: [Request] = []
                var refusal: any Error = PostgresStorageError.closed
                if state.closed || !connected || state.wasted >= Self.connectionsWasted {
                    // Closing; or no connection could be had, or none stayed open long enough
                    // to send anything: what waits was not sent, and fails as a commit on its
                    // own would have.
                    if !state.closed {
                        refusal = connected
                            ? PostgresStorageError.database(
                                operation: "send a commit", sqlState: nil,
                                message: "\(Self.connectionsWasted) connections in a row closed before it could be sent")
                            : failure ?? lostAnswer
                    }
                    failed = state.queue
                    state.queue = []
                    state.wasted = 0
                }
                let again = !state.queue.isEmpty
                var stopWaiters: [CheckedContinuation<Void, Never>] = []
                if !again {
                    state.running = false
                    stopWaiters = state.stopWaiters
                    state.stopWaiters = []
                }
                return (lost, waiting, failed, refusal, again, stopWaiters)
            }
            waiting?.resume(returning: nil)
            lost?.continuation.resume(throwing: failure ?? lostAnswer)
            for request in failed { request.continuation.resume(throwing: refusal) }
            if !again {
                slots.give()
                for waiter in stopWaiters { waiter.resume() }
                return
            }
        }
    }

    /// Runs requests on `connection` until the lane is idle or closed, or the connection fails.
    private func serve(on connection: PostgresConnection, generation: Int) async {
        state.withLock { state in
            if state.generation == generation { state.connection = connection }
        }
        while let request = await next(generation: generation) {
            enum Start { case stop, run, cancelled }
            let start = state.withLock { state -> Start in
                guard state.generation == generation, state.inFlight?.id == request.id else { return .stop }
                if state.cancelled.remove(request.id) != nil {
                    state.inFlight = nil
                    return .cancelled
                }
                // A connection that closed while the lane kept it (the server restarted, or
                // ended it) is not used: the request waits for the next one.
                guard !connection.isClosed else {
                    state.inFlight = nil
                    state.queue.insert(request, at: 0)
                    state.requeued += 1
                    return .stop
                }
                state.sent = true
                state.ran = true
                return .run
            }
            switch start {
            case .stop: return
            case .cancelled:
                request.continuation.resume(throwing: CancellationError())
                continue
            case .run: break
            }
            var result: Result<Bool, any Error>
            do {
                try await request.work(connection)
                result = .success(true)
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
    /// connection goes back to the pool; one look per idle time, rather than a timer per wait.
    private func releaseWhenIdle(generation: Int) async {
        let idleTime = database.options.commitConnectionIdleTime
        while (try? await Task.sleep(for: max(idleTime, .milliseconds(1)))) != nil {
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
