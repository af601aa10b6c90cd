import Foundation
import Logging
import PostgresNIO
import SceneSync
import SceneSyncPostgres
import SceneSyncTesting
import Testing

/// What nodes on one PostgreSQL tell each other beyond the log, where it takes two applications
/// or PostgreSQL's own limits to show.
@Suite(.enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.notConfigured), .timeLimit(.minutes(1)))
struct PostgresClusterTests {
    @Test func aTransientEventTooLargeForANotificationIsRefusedTyped() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let storage = database.storage(scope: "chat", node: "a")
                await #expect(throws: PostgresStorageError.transientTooLarge(bytes: 8_043, limit: 7_999)) {
                    try await storage.sendTransient(Data(repeating: 0x61, count: 8_000), app: "chat")
                }
                // One that fits is sent.
                try await storage.sendTransient(Data(#"[{"event":{}}]"#.utf8), app: "chat")
            }
        }
    }

    @Test func aWindowConnectedToAnotherNodeKeepsItsSessionWhenThisNodeMakesRoom() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { databaseA in
                try await PostgresTestServer.withDatabase(url) { databaseB in
                    try await Self.makeRoom(onA: databaseA.storage(scope: "app", node: "a"), onB: databaseB.storage(scope: "app", node: "b"))
                }
            }
        }
    }

    @MainActor
    private static func makeRoom(onA storageA: PostgresStorage, onB storageB: PostgresStorage) async throws {
        let options = Application.Options(maximumSessions: 2)
        let logger = Logger(label: "cluster")
        let nodeA = try await SceneHost.launch(delegate: PlainAppDelegate(), storage: storageA, options: options, logger: logger)
        let nodeB = try await SceneHost.launch(delegate: PlainAppDelegate(), storage: storageB, options: options, logger: logger)
        // The oldest session is a window connected to node A.
        let onA = try await nodeA.openWindow()
        let closed = try await nodeB.openWindow()
        await nodeB.disconnect(closed)
        // Node B, at the limit, makes room: not with the window live on node A.
        _ = try await nodeB.openWindow()
        #expect(try await storageB.session(id: onA.sessionID) != nil, "the window on node A keeps its session")
        #expect(try await storageB.session(id: closed.sessionID) == nil, "the disconnected one went")

        // Once node A's window disconnects, it may go too.
        await nodeA.disconnect(onA)
        _ = try await nodeB.openWindow()
        #expect(try await storageB.session(id: onA.sessionID) == nil)
        await nodeA.application.terminate()
        await nodeB.application.terminate()
    }

    @Test func aNodeWhoseDatabaseClosesLosesTheLeadToAnother() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let fast = Database.Options(headPollInterval: .milliseconds(200))
            try await PostgresTestServer.withDatabase(url, options: fast) { databaseB in
                let databaseA = Database(url: url, logger: PostgresTestServer.logger, options: fast)
                try await databaseA.start()
                var onA = databaseA.storage(scope: "app", node: "a").leadership(of: "services:app").makeAsyncIterator()
                #expect(await onA.next() == true, "node A, alone, leads")
                let onB = databaseB.storage(scope: "app", node: "b").leadership(of: "services:app")
                let following = Task {
                    var iterator = onB.makeAsyncIterator()
                    return await iterator.next()
                }
                try await Task.sleep(for: .seconds(1))
                // Node A goes away without letting go of its stream: its connection closes.
                await databaseA.close()
                let taken = try await withTimeout(.seconds(20)) { await following.value }
                #expect(taken == true, "node B takes the lead once node A's connection is gone")
            }
        }
    }

    private func withTimeout<Value: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let value = try await group.next() ?? nil else { throw HostTimeout(waitingFor: "the lead") }
            return value
        }
    }
}

/// An application delegate whose windows show nothing.
@MainActor
private final class PlainAppDelegate: ApplicationDelegate {
    func application(_ application: Application, configurationForConnecting session: SceneSession, options: ConnectionOptions) -> SceneConfiguration {
        SceneConfiguration(name: "Main") { PlainSceneDelegate() }
    }
}

@MainActor
private final class PlainSceneDelegate: SceneDelegate {}
