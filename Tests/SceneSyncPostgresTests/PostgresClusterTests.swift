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
                let onA = Leads(a: databaseA.storage(scope: "app", node: "a").leadership(of: "services:app"))
                #expect(await onA.next()?.leads == true, "node A, alone, leads")
                let onB = Leads(b: databaseB.storage(scope: "app", node: "b").leadership(of: "services:app"))
                // Node A stops without letting go of its stream: its database closes.
                await databaseA.close()
                #expect(await onA.next()?.leads == false, "node A is told it no longer leads")
                #expect(await onB.next()?.leads == true, "node B takes the lead once node A's connection is gone")
            }
        }
    }
}

/// What nodes are told of a lead, in order, one value at a time, each waited for at most 20 seconds.
private final class Leads: Sendable {
    typealias Told = (node: String, leads: Bool)
    private let values: AsyncStream<Told?>
    private let tasks: [Task<Void, Never>]
    private let continuation: AsyncStream<Told?>.Continuation

    init(a: AsyncStream<Bool>? = nil, b: AsyncStream<Bool>? = nil) {
        let (values, continuation) = AsyncStream.makeStream(of: Told?.self)
        self.values = values
        self.continuation = continuation
        tasks = [("a", a), ("b", b)].compactMap { node, stream in
            stream.map { stream in
                Task {
                    for await leads in stream { continuation.yield((node, leads)) }
                }
            }
        }
    }

    deinit { tasks.forEach { $0.cancel() } }

    /// The next value; `nil` if none came in time.
    func next() async -> Told? {
        let timer = Task { [continuation] in
            guard (try? await Task.sleep(for: .seconds(20))) != nil else { return }
            continuation.yield(nil)
        }
        defer { timer.cancel() }
        var iterator = values.makeAsyncIterator()
        return await iterator.next() ?? nil
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
