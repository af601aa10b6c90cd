import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

/// Model controllers of several processes on one SQLite file: SQLite cannot tell them of each
/// other's commits, but a refused commit makes a controller follow the log and check its intents
/// again, so they keep one order. (PostgreSQL, which hears other nodes, runs the same races in
/// `SceneSyncPostgresTests`.)
struct SharedLogTests {
    @Test(arguments: SharedLogConformance.Race.allCases, [2, 3])
    func nodesOnOneSQLiteFileKeepOneOrder(race: SharedLogConformance.Race, nodes: Int) async throws {
        let path = TemporaryDirectory().path("shared.sqlite")
        try await SharedLogConformance.run(race, nodes: nodes) { _ in try SQLiteStorage(path: path) }
    }

    @Test func aNumberFromANodeFurtherAheadIsFollowedNotRefused() async throws {
        let path = TemporaryDirectory().path("ahead.sqlite")
        let logger = Logger(label: "test")
        let ahead = try await ModelController<Journal>(app: "journal", storage: try SQLiteStorage(path: path), logger: logger)
        let behind = try await ModelController<Journal>(app: "journal", storage: try SQLiteStorage(path: path), logger: logger)
        for line in ["one", "two", "three"] { try await ahead.append(line) }

        // A window that was on the node ahead reconnects to the one behind with the number it saw.
        let recorder = EventRecorder(behind.events(after: 2))
        try await behind.catchUp()
        let received = try await recorder.waitForEvents(count: 1)
        #expect(received.map(\.sequence) == [3])
        #expect(recorder.error == nil)
        #expect(await behind.state.lines == ["one", "two", "three"])
        await ahead.close()
        await behind.close()
    }
}
