public import Logging
public import SceneSync
import PostgresNIO
public import ServiceLifecycle
import Foundation
import Synchronization

/// One PostgreSQL database shared by several apps and several nodes (`scenesync` processes).
///
/// It owns a pool of connections (`PostgresClient`) and one more connection, apart from the pool,
/// that listens for other nodes' commits. Each app's log is ordered by its row in
/// `scenesync_model`: a commit takes the next sequence numbers under that row's lock, so nodes
/// writing to one app keep one order, and a node that lost a race is refused with
/// `StorageError.sequenceConflict(app:expected:got:)`. A commit is one call of a procedure that
/// commits before it answers, so it needs PostgreSQL 11 or later; an app may keep one of the pool's
/// connections for its commits while they keep coming (see
/// ``Options-swift.struct/commitConnectionIdleTime``).
///
/// ```swift
/// let database = PostgresDatabase(url: try PostgresURL("postgres://scenesync@db.internal/scenesync"), logger: logger)
/// try await database.start()
/// let storage = database.storage(scope: "lootlogger", node: hostName)
/// // …
/// await database.close()
/// ```
///
/// Call ``start()`` before using a storage, and ``close()`` when done; or run the database as a
/// `Service` of a `ServiceGroup`, which does both.
public final class PostgresDatabase: Sendable {
    /// How a database works.
    public struct Options: Sendable {
        /// How often the log heads of followed apps are read, in case a notification was lost.
        /// Two seconds by default.
        public var headPollInterval: Duration
        /// The most connections the pool opens, besides the one that listens and the one that
        /// holds leads (see ``PostgresStorage/leadership(of:)``). 16 by default.
        public var maximumConnections: Int
        /// How long a node may go unseen before the others take it for dead: its windows' sessions
        /// may be discarded then. Nodes say they live every ``headPollInterval``; at least three of
        /// those. Ten seconds by
        /// default.
        public var nodeTimeout: Duration
        /// How long ``PostgresDatabase/start()`` waits for the database to answer before it gives
        /// up. Fifteen seconds by default.
        public var startTimeout: Duration
        /// How long an app keeps the connection its commits go by after its last commit, before it
        /// gives it back to the pool (it looks once per this time, so between one and two of it). An
        /// app that commits again within this time commits on the same connection, without
        /// borrowing one. Fewer than half of ``maximumConnections`` are kept so; zero or less: none,
        /// every commit borrows a connection. One second by default.
        public var commitConnectionIdleTime: Duration
        /// How a model controller fills its commits here (``PostgresStorage/commitGathering``): by
        /// default it waits up to a millisecond, after a commit of 8 intents or more, for the next
        /// one to be as full. A commit costs PostgreSQL about twice the CPU of the raw statement
        /// whatever it holds; `nil` commits what waits at once.
        public var commitGathering: CommitGathering?

        /// Options with the given values.
        public init(headPollInterval: Duration = .seconds(2), maximumConnections: Int = 16, nodeTimeout: Duration = .seconds(10),
                    startTimeout: Duration = .seconds(15), commitConnectionIdleTime: Duration = .seconds(1),
                    commitGathering: CommitGathering? = CommitGathering()) {
            self.headPollInterval = headPollInterval
            self.maximumConnections = maximumConnections
            // Nodes say they live once a poll: a timeout of fewer polls would take live nodes for dead.
            self.nodeTimeout = max(nodeTimeout, headPollInterval * 3)
            self.startTimeout = startTimeout
            self.commitConnectionIdleTime = commitConnectionIdleTime
            self.commitGathering = commitGathering
        }
    }

    /// Where the database is.
    public let url: PostgresURL
    /// How the database works.
    public let options: Options
    let logger: Logger
    let client: PostgresClient
    let state = Mutex(State())
    /// This database object's own name, in the transient events it sends, to know them when they
    /// come back.
    let instance = UUID().uuidString
    /// How many apps' commit lanes may keep a connection at once: fewer than half the pool (none
    /// with fewer than three connections, or with no idle time).
    let commitLaneSlots: PostgresCommitLane.Slots

    /// The notification channel commits are announced on, as `"<app> <last sequence>"`.
    static let channel = "scenesync_log"
    /// The longest app name, in UTF-8 bytes, a commit accepts: the name is part of a notification,
    /// whose payload PostgreSQL limits to 8000 bytes.
    static let maximumAppNameBytes = 1_000
    static let firstRetryDelay = Duration.milliseconds(100)
    static let maximumRetryDelay = Duration.seconds(5)

    /// Prepares a database; nothing connects until ``start()``.
    public init(url: PostgresURL, logger: Logger, options: Options = .init()) {
        self.url = url
        self.options = options
        self.logger = logger
        var configuration = url.clientConfiguration()
        configuration.options.maximumConnections = max(1, options.maximumConnections)
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        commitLaneSlots = PostgresCommitLane.Slots(
            options.commitConnectionIdleTime > .zero ? (configuration.options.maximumConnections - 1) / 2 : 0)
    }

    /// A storage for one hosting app on one node.
    ///
    /// - Parameters:
    ///   - scope: the hosting app's name. Apps sharing the database keep their scene sessions,
    ///     drafts and run marks apart by scope; every app's log and records are shared by all
    ///     scopes, by app name.
    ///   - node: this process's name among the nodes sharing the database, such as its host
    ///     name. The run mark is kept per scope and node, so a node that starts while another runs
    ///     is not told that the last run crashed.
    public func storage(scope: String, node: String) -> PostgresStorage {
        state.withLock { _ = $0.nodes.insert(node) }
        return PostgresStorage(database: self, scope: scope, node: node)
    }

    // MARK: - Lifecycle

    /// Connects, brings the schema up to date, and starts listening for other nodes' commits.
    ///
    /// Several nodes may start at once: the schema is migrated under an advisory lock, once. This
    /// returns once the listener listens, or once its first attempt failed (it keeps trying, and
    /// the log heads are read every ``Options/headPollInterval`` meanwhile). Calls after the first
    /// wait for the first to finish, and throw what it threw.
    ///
    /// - Throws: if the database does not answer within ``Options/startTimeout`` or the schema
    ///   cannot be migrated (the database is then closed), or ``PostgresStorageError/closed``
    ///   after ``close()``.
    public func start() async throws {
        let startUp = try state.withLock { state -> Task<Void, any Error> in
            guard state.phase != .closed else { throw PostgresStorageError.closed }
            if let task = state.startUp { return task }
            state.phase = .starting
            // Detached: the client must not stop on a service group's graceful shutdown signal
            // before the services that still write to it have stopped.
            state.clientTask = Task.detached { [client] in await client.run() }
            let task = Task.detached { try await self.startUp() }
            state.startUp = task
            return task
        }
        try await startUp.value
    }

    private func startUp() async throws {
        do {
            // A pool that cannot connect keeps the migration waiting: stopping the pool ends it.
            try await withTimeout(options.startTimeout, operation: "connect", onTimeout: {
                self.state.withLock { $0.clientTask }?.cancel()
            }) { try await self.migrate() }
        } catch {
            await close()
            throw PostgresStorageError.wrap(error, operation: "migrate the schema")
        }
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
        let running = state.withLock { state -> Bool in
            guard state.phase == .starting else { return false }
            state.phase = .running
            state.listenerTask = Task.detached { await self.listen(ready: readyContinuation) }
            state.pollTask = Task.detached { await self.poll() }
            return true
        }
        guard running else { throw PostgresStorageError.closed }
        do {
            try await beat()
        } catch {
            logger.debug("Could not say that this node lives", metadata: ["error": "\(PostgresStorageError.describe(error).message)"])
        }
        for await _ in ready {}
        logger.info("Opened PostgreSQL storage", metadata: ["url": "\(url)"])
    }

    /// Stops listening, ends every ``PostgresStorage/logHeads(app:)`` stream, and closes the
    /// connections. Storages of this database fail with ``PostgresStorageError/closed`` after.
    ///
    /// A commit already sent on its app's connection is let finish first, for up to 5 seconds,
    /// so that its writer learns whether it committed; commits not sent yet fail at once.
    public func close() async {
        let (tasks, followers, transientFollowers, leaders, clientTask, lanes) = state.withLock { state in
            state.phase = .closed
            defer {
                state.commitLanes = [:]
                state.listenerTask = nil
                state.pollTask = nil
                state.leadTask = nil
                state.clientTask = nil
                state.followers = [:]
                state.transientFollowers = [:]
                state.leaders = [:]
            }
            return ([state.listenerTask, state.pollTask, state.leadTask].compactMap { $0 }, Array(state.followers.values),
                    Array(state.transientFollowers.values), Array(state.leaders.values), state.clientTask,
                    Array(state.commitLanes.values))
        }
        for lane in lanes { lane.close() }
        for task in tasks { task.cancel() }
        // A task waiting for a connection the pool does not make does not see its cancellation:
        // stopping the pool ends that wait. The tasks get a few seconds to end on their own first,
        // and so do the commits already sent, so that their writers hear whether they committed.
        _ = try? await withTimeout(.seconds(5), operation: "close", onTimeout: { clientTask?.cancel() }) {
            for task in tasks { await task.value }
            for lane in lanes { await lane.waitUntilStopped() }
            return true
        }
        // Outside the lock: finishing runs each stream's termination handler, which takes it.
        for follower in followers { follower.continuation.finish() }
        for follower in transientFollowers { follower.continuation.finish() }
        for leader in leaders {
            if leader.holds { leader.continuation.yield(false) }
            leader.continuation.finish()
        }
        clientTask?.cancel()
        await clientTask?.value
    }

    /// Runs `body`, one of `app`'s commits, on the app's commit lane if the database runs, turning
    /// postgres-nio's errors into ``PostgresStorageError/database(operation:sqlState:message:)``.
    ///
    /// Lanes keep fewer than half the pool's connections (``commitLaneSlots``): a commit whose
    /// lane keeps none while every slot is taken borrows a connection for the commit, so that busy
    /// apps cannot take every connection from the rest of the database's work.
    func performCommit(
        app: String, _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws {
        let lane = try state.withLock { state -> PostgresCommitLane in
            switch state.phase {
            case .running: break
            case .idle, .starting: throw PostgresStorageError.notStarted
            case .closed: throw PostgresStorageError.closed
            }
            if let lane = state.commitLanes[app] { return lane }
            let lane = PostgresCommitLane(database: self, slots: commitLaneSlots)
            state.commitLanes[app] = lane
            return lane
        }
        let ran: Bool
        do {
            ran = try await lane.run(body)
        } catch {
            throw PostgresStorageError.wrap(error, operation: operation)
        }
        if !ran { try await perform(operation, body) }
    }

    /// Runs `body` on a connection of the pool if the database runs (see `withConnection(_:)`),
    /// turning postgres-nio's errors into ``PostgresStorageError/database(operation:sqlState:message:)``.
    func perform<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        switch state.withLock({ $0.phase }) {
        case .running: break
        case .idle, .starting: throw PostgresStorageError.notStarted
        case .closed: throw PostgresStorageError.closed
        }
        do {
            return try await withConnection(body)
        } catch {
            throw PostgresStorageError.wrap(error, operation: operation)
        }
    }

    // MARK: - Following log heads

    /// A stream of `app`'s log head: see ``PostgresStorage/logHeads(app:)``.
    func follow(app: String) -> AsyncStream<UInt64> {
        registeredStream(bufferingNewest: 1) { state, id, continuation in
            state.followers[id] = Follower(app: app, continuation: continuation)
        } unregister: { state, id in
            state.followers[id] = nil
        }
    }

    /// A stream registered in the state under a new id while the database is not closed (finished
    /// at once if it is), and unregistered when it terminates.
    func registeredStream<Element>(
        bufferingNewest limit: Int,
        register: (inout State, Int, AsyncStream<Element>.Continuation) -> Void,
        unregister: @escaping @Sendable (inout State, Int) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(limit))
        let id = state.withLock { state in
            state.nextFollowerID += 1
            return state.nextFollowerID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { unregister(&$0, id) }
        }
        let registered = state.withLock { state -> Bool in
            guard state.phase != .closed else { return false }
            register(&state, id, continuation)
            return true
        }
        if !registered { continuation.finish() }
        return stream
    }

    /// Hands each follower of an app in `heads` the app's head, unless it was handed that head
    /// or a later one already.
    func deliver(_ heads: [String: UInt64]) {
        guard !heads.isEmpty else { return }
        state.withLock { state in
            for id in Array(state.followers.keys) {
                guard let follower = state.followers[id], let head = heads[follower.app] else { continue }
                if let last = follower.lastDelivered, last >= head { continue }
                follower.continuation.yield(head)
                state.followers[id]?.lastDelivered = head
            }
        }
    }

    /// The heads of every followed app, read from the database.
    func readFollowedHeads() async throws -> [String: UInt64] {
        let apps = state.withLock { Set($0.followers.values.map(\.app)) }
        guard !apps.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(Array(apps))
        let logger = logger
        return try await withConnection { [binds] connection in
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT app, last_sequence FROM scenesync_model WHERE app = ANY($1)", binds: binds),
                logger: logger)
            var heads: [String: UInt64] = [:]
            for try await (app, last) in rows.decode((String, Int64).self) {
                heads[app] = UInt64(clamping: last)
            }
            return heads
        }
    }

    /// Handles one notification on ``channel``: `"<app> <last sequence>"`.
    func heard(_ payload: String) {
        guard let space = payload.lastIndex(of: " "),
              let head = UInt64(payload[payload.index(after: space)...])
        else {
            logger.debug("Ignored a malformed log notification", metadata: ["payload": "\(payload.prefix(200))"])
            return
        }
        deliver([String(payload[..<space]): head])
    }

    /// Listens for commits and transient events on one dedicated connection until cancelled,
    /// reconnecting with backoff; after each (re)connection, once listening, reads the followed
    /// apps' heads to catch up on what was missed. Finishes `ready` once listening or after the first failure.
    private func listen(ready: AsyncStream<Void>.Continuation) async {
        defer { ready.finish() }
        var delay = Self.firstRetryDelay
        var outage = false
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try url.connectionConfiguration(), id: attempt, logger: logger)
                let outcome: Result<Void, any Error>
                var hearingTransients: Task<Void, any Error>?
                do {
                    // Transient events are heard on the same connection, on a channel of their own.
                    hearingTransients = Task {
                        try await connection.listen(on: Self.transientChannel) { notifications in
                            for try await notification in notifications { heardTransient(notification.payload) }
                        }
                    }
                    try await connection.listen(on: Self.channel) { notifications in
                        if outage {
                            logger.info("Listening for other nodes' commits again")
                            outage = false
                        }
                        delay = Self.firstRetryDelay
                        ready.finish()
                        do {
                            deliver(try await readFollowedHeads())
                        } catch {
                            logger.debug("Could not read the log heads after connecting",
                                         metadata: ["error": "\(PostgresStorageError.describe(error).message)"])
                        }
                        for try await notification in notifications {
                            heard(notification.payload)
                        }
                    }
                    outcome = .success(())
                } catch {
                    outcome = .failure(error)
                }
                hearingTransients?.cancel()
                try? await connection.close()
                try outcome.get()
                if Task.isCancelled { break }
                throw PostgresStorageError.database(operation: "listen", sqlState: nil, message: "the connection closed")
            } catch {
                if Task.isCancelled { break }
                if !outage {
                    outage = true
                    logger.warning("Not listening for other nodes' commits; reconnecting (log heads are polled meanwhile)",
                                   metadata: ["error": "\(PostgresStorageError.describe(error).message)"])
                }
                ready.finish()
            }
            do {
                try await Task.sleep(for: delay * Double.random(in: 0.5...1.5))
            } catch {
                break
            }
            delay = min(delay * 2, Self.maximumRetryDelay)
        }
    }

    /// Says that this database's nodes live, and reads the followed apps' heads (in case a
    /// notification was lost), every ``Options/headPollInterval`` until cancelled.
    private func poll() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: options.headPollInterval)
            } catch {
                return
            }
            do {
                try await beat()
            } catch {
                if Task.isCancelled { return }
                logger.debug("Could not say that this node lives", metadata: ["error": "\(PostgresStorageError.describe(error).message)"])
            }
            do {
                deliver(try await readFollowedHeads())
            } catch {
                if Task.isCancelled { return }
                logger.debug("Could not poll the log heads", metadata: ["error": "\(PostgresStorageError.describe(error).message)"])
            }
        }
    }

    // MARK: - State

    struct State: Sendable {
        enum Phase: Sendable { case idle, starting, running, closed }

        var phase = Phase.idle
        var startUp: Task<Void, any Error>?
        var clientTask: Task<Void, Never>?
        var listenerTask: Task<Void, Never>?
        var pollTask: Task<Void, Never>?
        var followers: [Int: Follower] = [:]
        var nextFollowerID = 0
        /// The nodes this database's storages speak for.
        var nodes: Set<String> = []
        var transientFollowers: [Int: TransientFollower] = [:]
        var leaders: [Int: Leader] = [:]
        /// The task that holds leads on a connection of its own, once a lead is asked for.
        var leadTask: Task<Void, Never>?
        /// Wakes ``leadTask`` when a lead is asked for or let go.
        var leadNudges: AsyncStream<Void>.Continuation?
        /// Each app's commit lane, made at its first commit.
        var commitLanes: [String: PostgresCommitLane] = [:]
    }

    struct Follower: Sendable {
        let app: String
        let continuation: AsyncStream<UInt64>.Continuation
        var lastDelivered: UInt64?
    }
}

extension PostgresDatabase: Service {
    /// Starts the database, waits for the service group's graceful shutdown (or cancellation),
    /// then closes it. Put it before the services that use its storages, so that it stops after
    /// them.
    public func run() async throws {
        try await start()
        try? await gracefulShutdown()
        await close()
    }
}
