import Foundation
import SceneSync
import SceneSyncPostgres
import SceneSyncTesting
import Synchronization
import Testing

/// PostgreSQL held to the contract every storage keeps, and to the races of nodes that share a
/// log: each node a `PostgresDatabase` of its own (its own pool and listener) on one database.
@Suite(.enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.notConfigured))
struct PostgresConformanceTests {
    @Test(arguments: StorageConformance.Check.allCases)
    func postgresConforms(check: StorageConformance.Check) async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let nodes = Nodes(url: url)
            do {
                try await StorageConformance.run(check) {
                    StorageConformance.Database { app, node in try await nodes.database(node).storage(scope: app, node: node) }
                }
            } catch {
                await nodes.close()
                throw error
            }
            await nodes.close()
        }
    }

    @Test(arguments: SharedLogConformance.Race.allCases, [2, 3])
    func nodesOnOnePostgresKeepOneOrder(race: SharedLogConformance.Race, nodes count: Int) async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let nodes = Nodes(url: url)
            do {
                try await SharedLogConformance.run(race, nodes: count) { node in
                    try await nodes.database("node-\(node)").storage(scope: "shared", node: "node-\(node)")
                }
            } catch {
                await nodes.close()
                throw error
            }
            await nodes.close()
        }
    }
}

/// In CI the PostgreSQL suites must run, not be skipped: `.ci/run` sets
/// `SCENESYNC_REQUIRE_POSTGRES`, and then a missing server is a failure.
@Test func thePostgresSuitesRunWhereTheyAreRequired() {
    let required = ProcessInfo.processInfo.environment["SCENESYNC_REQUIRE_POSTGRES"].map { !$0.isEmpty } ?? false
    #expect(!required || PostgresTestServer.isConfigured, "SCENESYNC_REQUIRE_POSTGRES is set but SCENESYNC_TEST_POSTGRES_URL is not")
}

/// One started `PostgresDatabase` per node name, opened on first use, closed together.
final class Nodes: Sendable {
    let url: PostgresURL
    private let databases = Mutex<[String: Database]>([:])

    init(url: PostgresURL) { self.url = url }

    func database(_ node: String) async throws -> Database {
        let database = databases.withLock { databases in
            if let database = databases[node] { return database }
            let database = Database(url: url, logger: PostgresTestServer.logger, options: .init(headPollInterval: .milliseconds(500)))
            databases[node] = database
            return database
        }
        try await database.start()
        return database
    }

    func close() async {
        for database in databases.withLock({ Array($0.values) }) { await database.close() }
    }
}
