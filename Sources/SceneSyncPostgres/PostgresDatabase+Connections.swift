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
    static func unlessAnswerLost<Result: Sendable>(
        on connection: PostgresConnection, checkEvery interval: Duration = lostAnswerCheckInterval,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let outcome = FirstOutcome<Result>()
        let work = Task {
            do {
                outcome.settle(.success(try await body()))
            } catch {
                outcome.settle(.failure(error))
            }
        }
        let watch = Task {
            var closedChecks = 0
            while closedChecks < 2 {
                guard (try? await Task.sleep(for: interval)) != nil else { return }
                closedChecks = connection.isClosed ? closedChecks + 1 : 0
            }
            work.cancel()
            outcome.settle(.failure(PostgresStorageError.database(
                operation: "wait for an answer", sqlState: nil, message: "the connection closed before the database answered")))
        }
        defer { watch.cancel() }
        return try await withTaskCancellationHandler {
            try await outcome.value
        } onCancel: {
            work.cancel()
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
