import Logging
import SceneSync
import SceneSyncPostgres
import Testing

/// What a database's options give its storages. No PostgreSQL is needed.
struct PostgresOptionsTests {
    /// A commit on PostgreSQL costs much whatever it holds: its model controllers gather, unless
    /// the options say not to. Nothing connects for this.
    @Test func storagesGatherCommitsAsTheDatabasesOptionsSay() throws {
        let url = try PostgresURL("postgres://u@127.0.0.1:1/db")
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        #expect(PostgresDatabase(url: url, logger: logger).storage(scope: "s", node: "n").commitGathering == CommitGathering())
        let tuned = CommitGathering(maximumWait: .microseconds(500), minimumBatch: 16)
        #expect(PostgresDatabase(url: url, logger: logger, options: .init(commitGathering: tuned)).storage(scope: "s", node: "n").commitGathering == tuned)
        #expect(PostgresDatabase(url: url, logger: logger, options: .init(commitGathering: nil)).storage(scope: "s", node: "n").commitGathering == nil)
    }
}
