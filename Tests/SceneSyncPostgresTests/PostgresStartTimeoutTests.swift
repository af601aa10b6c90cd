import Foundation
import Logging
import SceneSync
@testable import SceneSyncPostgres
import Testing

/// A database that does not answer in time is reported as not answering, whatever the work that
/// was waiting for it said as it was stopped. No PostgreSQL is needed.
@Suite(.timeLimit(.minutes(1)))
struct PostgresStartTimeoutTests {
    private struct Stopped: Error {}

    @Test func theTimeoutIsReportedNotTheErrorOfTheWorkItEnded() async throws {
        let (stop, stopper) = AsyncStream.makeStream(of: Void.self)
        do {
            _ = try await withTimeout(.milliseconds(50), operation: "connect", onTimeout: {
                // Like closing a pool: the waiting work ends with an error of its own, and that
                // error reaches the group before this returns.
                stopper.finish()
                try? await Task.sleep(for: .milliseconds(200))
            }) { () async throws -> Int in
                for await _ in stop {}
                throw Stopped()
            }
            Issue.record("the work ended without an answer, yet did not throw")
        } catch let error as PostgresStorageError {
            #expect("\(error)" == "PostgreSQL could not connect: no answer within 0.05 seconds")
        }
    }

    @Test func anAnswerThatComesOnlyOnceTheTimeIsUpIsNotTaken() async throws {
        // What `onTimeout` stopped may still end with a value (a connection closed under a query
        // that had finished): the caller has been told nothing yet, and must hear of the timeout.
        let (stop, stopper) = AsyncStream.makeStream(of: Void.self)
        do {
            let answer = try await withTimeout(.milliseconds(50), operation: "connect", onTimeout: { stopper.finish() }) { () async -> Int in
                for await _ in stop {}
                return 42
            }
            Issue.record("took \(answer), given after the time was up")
        } catch let error as PostgresStorageError {
            #expect("\(error)" == "PostgreSQL could not connect: no answer within 0.05 seconds")
        }
    }

    @Test func workThatEndsInTimeIsAnswered() async throws {
        let answer = try await withTimeout(.seconds(30), operation: "connect", onTimeout: {}) { 42 }
        #expect(answer == 42)
    }

    @Test func workThatFailsInTimeReportsItsOwnError() async throws {
        await #expect(throws: Stopped.self) {
            try await withTimeout(.seconds(30), operation: "connect", onTimeout: {}) { () async throws -> Int in throw Stopped() }
        }
    }

    @Test func aServerThatDoesNotAnswerStopsTheStartAsNotConnecting() async throws {
        // Port 1 on the loopback refuses every connection; the pool keeps trying until the start
        // gives up, then it is shut down, and its shutdown is not what the start reports.
        let url = try PostgresURL("postgres://u:hunter2@127.0.0.1:1/db")
        let database = PostgresDatabase(url: url, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                                        options: .init(startTimeout: .milliseconds(300)))
        do {
            try await database.start()
            Issue.record("started without a server")
        } catch {
            let text = "\(error)"
            #expect(text.hasPrefix("PostgreSQL could not connect"), "\(text)")
            #expect(!text.contains("hunter2"))
        }
    }
}
