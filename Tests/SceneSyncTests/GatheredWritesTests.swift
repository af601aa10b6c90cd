import Dispatch
import GRDB
@testable import SceneSyncSQLite
import Synchronization
import Testing

/// Sessions and drafts saved while a transaction is under way go together in the next one.
struct GatheredWritesTests {
    /// Counts the transactions that commit.
    final class Commits: TransactionObserver, Sendable {
        let count = Atomic(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.add(1, ordering: .relaxed) }
        func databaseDidRollback(_ db: Database) {}
    }

    @Test func writesThatComeWhileOneIsUnderWayCommitTogetherAndEachFailsAlone() async throws {
        let queue = try DatabaseQueue()
        let commits = Commits()
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE row (n INTEGER UNIQUE)")
            try db.execute(sql: "INSERT INTO row VALUES (100)")
            db.add(transactionObserver: commits, extent: .databaseLifetime)
        }
        commits.count.store(0, ordering: .relaxed)
        let gathered = GatheredWrites(writer: queue)
        // The writer is held while the writes queue up behind the first.
        let release = DispatchSemaphore(value: 0)
        queue.asyncWrite({ _ in release.wait() }, completion: { _, _ in })

        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for n in 0...20 {
                group.addTask {
                    do {
                        // Write 7 writes its number, then one taken already: it fails, alone,
                        // and nothing of it is kept.
                        try await gathered.write { db in
                            try db.execute(sql: "INSERT INTO row VALUES (?)", arguments: [n])
                            if n == 7 { try db.execute(sql: "INSERT INTO row VALUES (100)") }
                        }
                        return (n, true)
                    } catch is DatabaseError {
                        return (n, false)
                    }
                }
            }
            // The first to come was taken to be written at once, behind the held transaction; the
            // twenty others wait for the next one.
            let deadline = ContinuousClock.now + .seconds(10)
            while gathered.waitingCount < 20, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            #expect(gathered.waitingCount == 20)
            release.signal()
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }

        #expect(outcomes.filter { !$0.value }.map(\.key) == [7])
        let rows = try await queue.read { db in try Int.fetchAll(db, sql: "SELECT n FROM row ORDER BY n") }
        #expect(rows == Array(0...20).filter { $0 != 7 } + [100])
        // The held one, the first write to come alone, then the twenty others together.
        #expect(commits.count.load(ordering: .relaxed) == 3)
    }
}
