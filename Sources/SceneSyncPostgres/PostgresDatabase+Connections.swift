import NIOCore
import PostgresNIO
import Synchronization

extension PostgresDatabase {
    /// How often a task working on a connection is checked for a connection that closed under it.
    /// Once the connection has been closed for this long and the task still waits, it waits for
    /// an answer that will not come.
    static let lostAnswerCheckInterval = Duration.milliseconds(250)

    /// Runs `body` on a connection of the pool, and throws rather than wait for good if the
    /// connection closes while `body` waits for an answer on it: see
    /// `unlessAnswerLost(on:checkEvery:_:)`.
    func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await client.withConnection { connection in
            try await Self.unlessAnswerLost(on: connection) { try await body(connection) }
        }
    }

    /// Runs `body`, which works on `connection`, in a task of its own and returns what it returns;
    /// but once `connection` has been closed for `interval` with `body` still running, cancels
    /// `body`, leaves it behind, and throws ``PostgresStorageError/database(operation:sqlState:message:)``.
    ///
    /// postgres-nio loses a query written to a connection whose channel has just closed: its
    /// answer never comes, and the task that waits for it does not see its cancellation. The pool
    /// lends such connections: one that a query gave back as it failed, the server having dropped
    /// the connection, before the pool heard that it closed. Waited for directly, that answer
    /// would stop for good whatever waits for it: the poll that says this node lives, a commit,
    /// ``close()``. A connection that closes fails every query written to it before, so `body`,
    /// if it does not end within `interval` of the close, is waiting for a lost answer.
    ///
    /// `body` runs on the connection's event loop: each answer it waits for resumes it on the
    /// thread that read the answer, rather than waking another thread to go on.
    static func unlessAnswerLost<Result: Sendable>(
        on connection: PostgresConnection, checkEvery interval: Duration = lostAnswerCheckInterval,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let outcome = FirstOutcome<Result>()
        let work = Task(executorPreference: EventLoopTaskExecutor(loop: connection.eventLoop)) {
            do {
                outcome.settle(.success(try await body()))
            } catch {
                outcome.settle(.failure(error))
            }
        }
        let watch = interval == lostAnswerCheckInterval ? LostAnswerWatch.standard : LostAnswerWatch(interval: interval)
        let watched = watch.watch(connection) {
            work.cancel()
            outcome.settle(.failure(PostgresStorageError.database(
                operation: "wait for an answer", sqlState: nil, message: "the connection closed before the database answered")))
        }
        defer { watch.stopWatching(watched) }
        return try await withTaskCancellationHandler {
            try await outcome.value
        } onCancel: {
            work.cancel()
        }
    }
}

/// Watches the connections that tasks wait on for answers, with one task for all of them, rather
/// than one timer for each wait: every `interval` it looks at each watched connection, and gives
/// up on a wait whose connection it has seen closed twice running.
final class LostAnswerWatch: Sendable {
    /// The watch `unlessAnswerLost(on:checkEvery:_:)` uses with its usual interval.
    static let standard = LostAnswerWatch(interval: PostgresDatabase.lostAnswerCheckInterval)

    private struct Watched {
        let connection: PostgresConnection
        var closedChecks = 0
        let abandon: @Sendable () -> Void
    }

    private struct State {
        var watched: [Int: Watched] = [:]
        var lastID = 0
        /// Whether the task that looks at the connections runs; it ends when none is watched.
        var running = false
    }

    let interval: Duration
    private let state = Mutex(State())

    init(interval: Duration) {
        self.interval = interval
    }

    /// Watches `connection` until ``stopWatching(_:)`` with the number returned; `abandon` is
    /// called, once, if the connection stays closed for `interval`.
    func watch(_ connection: PostgresConnection, abandon: @escaping @Sendable () -> Void) -> Int {
        let (id, start) = state.withLock { state -> (Int, Bool) in
            state.lastID += 1
            state.watched[state.lastID] = Watched(connection: connection, abandon: abandon)
            defer { state.running = true }
            return (state.lastID, !state.running)
        }
        if start { Task.detached { await self.run() } }
        return id
    }

    func stopWatching(_ id: Int) {
        state.withLock { _ = $0.watched.removeValue(forKey: id) }
    }

    private func run() async {
        while true {
            try? await Task.sleep(for: interval)
            let (abandoned, ended) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
                var abandoned: [@Sendable () -> Void] = []
                for (id, var watched) in state.watched {
                    watched.closedChecks = watched.connection.isClosed ? watched.closedChecks + 1 : 0
                    if watched.closedChecks >= 2 {
                        state.watched[id] = nil
                        abandoned.append(watched.abandon)
                    } else {
                        state.watched[id] = watched
                    }
                }
                if state.watched.isEmpty { state.running = false }
                return (abandoned, !state.running)
            }
            for abandon in abandoned { abandon() }
            if ended { return }
        }
    }
}

/// The first result given, to one task that waits for it, which may start waiting before it is
/// given; later results are ignored.
final class FirstOutcome<Value: Sendable>: Sendable {
    private let slot = Mutex<(result: Result<Value, any Error>?, waiter: CheckedContinuation<Value, any Error>?)>((nil, nil))

    /// Gives the result, unless one was given already, and wakes the waiting task, if any.
    func settle(_ result: Result<Value, any Error>) {
        let waiter = slot.withLock { slot -> CheckedContinuation<Value, any Error>? in
            guard slot.result == nil else { return nil }
            slot.result = result
            return slot.waiter.take()
        }
        waiter?.resume(with: result)
    }

    /// The first result given, once it is.
    var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let result = slot.withLock { slot -> Result<Value, any Error>? in
                    if slot.result == nil { slot.waiter = continuation }
                    return slot.result
                }
                if let result { continuation.resume(with: result) }
            }
        }
    }
}

/// Runs a task's jobs on one NIO event loop, as `Task(executorPreference:)` asks.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
