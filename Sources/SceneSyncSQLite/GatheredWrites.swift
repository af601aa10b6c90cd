import GRDB
import Synchronization

/// Small writes that do not depend on one another (a window's session saved, a draft set), gathered
/// while a transaction is under way and written together in the next one: a thousand windows
/// closing at once wait for a few synced commits, not a thousand. Each write runs in a savepoint of
/// its own, so one that fails leaves the others and is told its own error; a transaction that does
/// not commit fails every write in it, and keeps none. Writes commit in the order they were asked
/// for, among themselves: a write that must follow one of them goes through here too.
final class GatheredWrites: Sendable {
    typealias Write = @Sendable (Database) throws -> Void

    private struct Waiting {
        let write: Write
        let done: CheckedContinuation<Void, any Error>
    }

    private let writer: any DatabaseWriter
    private let state = Mutex<(waiting: [Waiting], isWriting: Bool)>(([], false))

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// How many writes wait for the next transaction.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `write` in the next transaction, and returns once it has committed.
    func write(_ write: @escaping Write) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let startsWriting = state.withLock { state in
                state.waiting.append(Waiting(write: write, done: done))
                guard !state.isWriting else { return false }
                state.isWriting = true
                return true
            }
            if startsWriting { writeWaiting() }
        }
    }

    /// Writes everything waiting in one transaction, then whatever came meanwhile, until nothing waits.
    private func writeWaiting() {
        let batch = state.withLock { state in
            let batch = state.waiting
            state.waiting = []
            return batch
        }
        writer.asyncWrite({ db in
            batch.map { waiting -> Result<Void, any Error> in
                Result { try db.inSavepoint { try waiting.write(db); return .commit } }
            }
        }, completion: { _, outcome in
            switch outcome {
            case let .success(results):
                for (waiting, result) in zip(batch, results) { waiting.done.resume(with: result) }
            case let .failure(error):
                for waiting in batch { waiting.done.resume(throwing: error) }
            }
            let more = self.state.withLock { state in
                state.isWriting = !state.waiting.isEmpty
                return state.isWriting
            }
            if more { self.writeWaiting() }
        })
    }
}
