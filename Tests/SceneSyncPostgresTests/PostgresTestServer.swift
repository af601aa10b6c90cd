import Foundation
import Logging
import PostgresNIO
import SceneSync
import SceneSyncPostgres
import Synchronization
import Testing

/// SceneSyncPostgres's database, apart from PostgresNIO's protocol of the same name.
typealias Database = SceneSyncPostgres.PostgresDatabase

/// The PostgreSQL server the tests run against: `SCENESYNC_TEST_POSTGRES_URL`, an administrator's
/// URL such as the one `scripts/test-postgres start DIR` prints. Each test makes its own database.
enum PostgresTestServer {
    static let adminURL = ProcessInfo.processInfo.environment["SCENESYNC_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// Whether a server is configured; the suites that need one are disabled otherwise.
    static var isConfigured: Bool { adminURL != nil }

    static let notConfigured: Comment = "set SCENESYNC_TEST_POSTGRES_URL (scripts/test-postgres start DIR prints one)"

    static let logger: Logger = {
        var logger = Logger(label: "scenesync.postgres.tests")
        logger.logLevel = .warning
        return logger
    }()

    /// The administrator's URL.
    static func admin() throws -> PostgresURL {
        try PostgresURL(try #require(adminURL))
    }

    /// Creates an empty database on the server, runs `body` with its URL, and drops it.
    static func withFreshDatabase<Result>(_ body: (PostgresURL) async throws -> Result) async throws -> Result {
        let admin = try admin()
        let name = "scenesync_test_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try await withConnection(admin) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(try await body(admin.with(database: name)))
        } catch {
            result = .failure(error)
        }
        _ = try? await withConnection(admin) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        }
        return try result.get()
    }

    /// Runs `body` with a started database on `url`, and closes it after.
    static func withDatabase<Result>(_ url: PostgresURL, options: Database.Options = .init(),
                                     _ body: (Database) async throws -> Result) async throws -> Result {
        let database = Database(url: url, logger: logger, options: options)
        do {
            try await database.start()
            let result = try await body(database)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    /// Runs `body` with a plain connection to `url`, outside SceneSync.
    @discardableResult
    static func withConnection<Result>(_ url: PostgresURL, _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// Records what a log-heads stream yields, so a test can wait, bounded, for a value.
final class HeadRecorder: Sendable {
    private let heads = Mutex<[UInt64]>([])
    private let ended = Mutex(false)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ stream: AsyncStream<UInt64>) {
        let task = Task { [weak self] in
            for await head in stream {
                self?.heads.withLock { $0.append(head) }
            }
            self?.ended.withLock { $0 = true }
        }
        self.task.withLock { $0 = task }
    }

    /// Everything yielded so far.
    var values: [UInt64] { heads.withLock { $0 } }

    /// Waits until a value at least `head` was yielded, polling, for at most `timeout`; whether it was.
    func waitFor(atLeast head: UInt64, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if values.contains(where: { $0 >= head }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return values.contains(where: { $0 >= head })
    }

    /// Waits until the stream ends, polling, for at most `timeout`; whether it did.
    func waitForEnd(timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if ended.withLock({ $0 }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return ended.withLock { $0 }
    }

    /// Stops iterating, which ends the stream.
    func stop() {
        task.withLock { $0?.cancel() }
    }
}

/// Test data.
enum Fixture {
    static func event(_ sequence: UInt64, origin: SceneSession.ID? = nil) -> StoredEvent {
        StoredEvent(sequence: sequence, origin: origin, timestamp: Date(timeIntervalSinceReferenceDate: Double(sequence) + 0.125),
                    payload: Data(#"{"n":\#(sequence)}"#.utf8))
    }

    static func batch(_ app: String, _ sequences: ClosedRange<UInt64>, record: String = "a", value: String = "1",
                      trimThrough: UInt64? = nil) -> CommitBatch {
        CommitBatch(app: app, events: sequences.map { event($0) },
                    changes: [EncodedRecordChange(collection: "c", key: record, value: Data(value.utf8))], trimThrough: trimThrough)
    }
}

/// Keeps every log entry of the loggers it makes, at every level.
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: String
    }

    private let storage = Mutex<[Entry]>([])

    /// Everything logged so far.
    var entries: [Entry] { storage.withLock { $0 } }

    /// A logger whose entries this recorder keeps, from `.trace` up.
    var logger: Logger {
        Logger(label: "scenesync.postgres.tests") { _ in Handler(recorder: self) }
    }

    fileprivate func append(_ entry: Entry) {
        storage.withLock { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.append(Entry(level: event.level, message: event.message.description,
                                  metadata: all.map { "\($0)=\($1)" }.sorted().joined(separator: " ")
                                      + (event.error.map { " error=\(String(reflecting: $0))" } ?? "")))
        }
    }
}
