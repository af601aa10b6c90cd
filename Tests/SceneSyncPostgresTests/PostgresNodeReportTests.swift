import Foundation
import SceneSync
import SceneSyncPostgres
import Testing

/// Node reports on PostgreSQL: what each node publishes for the dashboard, read by every node.
@Suite(.enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.notConfigured), .timeLimit(.minutes(1)))
struct PostgresNodeReportTests {
    @Test func twoNodesReportsAreBothVisibleToEachAndTheNewestReplacesTheLast() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { databaseA in
                try await PostgresTestServer.withDatabase(url) { databaseB in
                    let a = databaseA.storage(scope: "lootlogger", node: "a")
                    let b = databaseB.storage(scope: "chat", node: "b")
                    #expect(try await a.reports().isEmpty)
                    try await a.publishReport(Data(#"{"node":"a","n":1}"#.utf8))
                    try await b.publishReport(Data(#"{"node":"b","windows":["x"]}"#.utf8))
                    try await a.publishReport(Data(#"{"node":"a","n":2}"#.utf8))
                    for storage in [a, b] {
                        let records = try await storage.reports()
                        #expect(records.map(\.node) == ["a", "b"])
                        let reports = try records.map { try JSONSerialization.jsonObject(with: $0.report) as? NSDictionary }
                        #expect(reports[0] == ["node": "a", "n": 2])
                        #expect(reports[1] == ["node": "b", "windows": ["x"]])
                        #expect(records.allSatisfy { abs($0.publishedAt.timeIntervalSinceNow) < 60 })
                    }
                }
            }
        }
    }

    @Test func aNodeThatStoppedReportingDropsOut() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            // Two seconds: a report read right after it was published is well within it, however
            // busy the machine, and one published no more drops out soon after.
            let fast = Database.Options(headPollInterval: .milliseconds(100), nodeTimeout: .seconds(2))
            try await PostgresTestServer.withDatabase(url, options: fast) { databaseA in
                try await PostgresTestServer.withDatabase(url, options: fast) { databaseB in
                    let a = databaseA.storage(scope: "app", node: "a")
                    let b = databaseB.storage(scope: "app", node: "b")
                    try await a.publishReport(Data(#"{"node":"a"}"#.utf8))
                    try await b.publishReport(Data(#"{"node":"b"}"#.utf8))
                    #expect(try await a.reports().map(\.node) == ["a", "b"])
                    // Node B still lives (its database says so every poll) but publishes nothing more.
                    try await Task.sleep(for: .milliseconds(2_500))
                    try await a.publishReport(Data(#"{"node":"a"}"#.utf8))
                    #expect(try await a.reports().map(\.node) == ["a"])
                }
            }
        }
    }
}
