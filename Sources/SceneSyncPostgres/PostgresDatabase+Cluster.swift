import Foundation
import Logging
import PostgresNIO
import Synchronization

/// What the nodes on one database tell each other beyond the log: transient events (through
/// LISTEN/NOTIFY), leads (session-level advisory locks on a connection of their own), and that
/// they live (a row each in `scenesync_node`).
extension PostgresDatabase {
    /// The notification channel transient events go by, as
    /// `"<instance> <app's UTF-8 byte count> <app><encoded events>"`.
    static let transientChannel = "scenesync_transient"
    /// The most UTF-8 bytes of a notification's payload: PostgreSQL refuses 8000 and more.
    static let maximumNotificationBytes = 7_999
    /// How long one round of taking and checking leads may take before the connection that holds
    /// them is taken for lost.
    static let leadRoundTimeout = Duration.seconds(5)

    // MARK: - Transient events

    /// Sends `payload`, one of `app`'s transient events encoded, to the other nodes.
    ///
    /// - Throws: ``PostgresStorageError/transientTooLarge(bytes:limit:)`` for one that does not fit
    ///   a notification; ``PostgresStorageError/database(operation:sqlState:message:)``.
    func sendTransient(_ payload: Data, app: String) async throws {
        var message = "\(instance) \(app.utf8.count) \(app)"
        message += String(decoding: payload, as: UTF8.self)
        guard message.utf8.count <= Self.maximumNotificationBytes else {
            throw PostgresStorageError.transientTooLarge(bytes: message.utf8.count, limit: Self.maximumNotificationBytes)
        }
        var binds = PostgresBindings()
        binds.append(Self.transientChannel)
        binds.append(message)
        let logger = logger
        try await perform("send a transient event") { [binds] connection in
            for try await _ in try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_notify($1, $2)", binds: binds), logger: logger) {}
        }
    }

    /// The transient events of `app` that other database objects (other nodes) send from now on.
    func followTransients(app: String) -> AsyncStream<Data> {
        registeredStream(bufferingNewest: 256) { state, id, continuation in
            state.transientFollowers[id] = TransientFollower(app: app, continuation: continuation)
        } unregister: { state, id in
            state.transientFollowers[id] = nil
        }
    }

    /// Handles one notification on ``transientChannel``.
    func heardTransient(_ payload: String) {
        let bytes = Array(payload.utf8)
        guard let firstSpace = bytes.firstIndex(of: 0x20),
              let secondSpace = bytes[(firstSpace + 1)...].firstIndex(of: 0x20),
              let count = Int(String(decoding: bytes[(firstSpace + 1)..<secondSpace], as: UTF8.self)),
              count >= 0, secondSpace + 1 + count <= bytes.count
        else {
            logger.debug("Ignored a malformed transient notification", metadata: ["payload": "\(payload.prefix(200))"])
            return
        }
        guard String(decoding: bytes[..<firstSpace], as: UTF8.self) != instance else { return }
        let appEnd = secondSpace + 1 + count
        let app = String(decoding: bytes[(secondSpace + 1)..<appEnd], as: UTF8.self)
        let events = Data(bytes[appEnd...])
        state.withLock { state in
            for follower in state.transientFollowers.values where follower.app == app {
                follower.continuation.yield(events)
            }
        }
    }

    struct TransientFollower: Sendable {
        let app: String
        let continuation: AsyncStream<Data>.Continuation
    }

    // MARK: - Nodes alive

    /// Says, by the database's clock, that the nodes this database's storages speak for live.
    func beat() async throws {
        let nodes = state.withLock { Array($0.nodes) }
        guard !nodes.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(nodes)
        let logger = logger
        try await withConnection { [binds] connection in
            for try await _ in try await connection.query(PostgresQuery(unsafeSQL: """
                INSERT INTO scenesync_node (node, seen_at) SELECT unnest($1::text[]), now()
                ON CONFLICT (node) DO UPDATE SET seen_at = excluded.seen_at
                """, binds: binds), logger: logger) {}
        }
    }

    // MARK: - Leads

    /// Whether this database object holds the lead of `role`: see ``PostgresStorage/leadership(of:)``.
    ///
    /// Leads are PostgreSQL session-level advisory locks, held on one connection of their own:
    /// when the node dies, its connection closes and PostgreSQL lets its locks go. Within this
    /// process, of several streams asking for one role only one holds it at a time.
    func leadership(of role: String) -> AsyncStream<Bool> {
        registeredStream(bufferingNewest: 1) { state, id, continuation in
            state.leaders[id] = Leader(role: role, key: Self.leadKey(role), continuation: continuation)
            if state.leadTask == nil {
                let (nudges, nudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                state.leadNudges = nudge
                state.leadTask = Task.detached { await self.holdLeads(nudges: nudges) }
            }
            state.leadNudges?.yield()
        } unregister: { state, id in
            state.leaders[id] = nil
            state.leadNudges?.yield()
        }
    }

    /// The advisory lock key of a role: FNV-1a of its name, apart from the migration lock's.
    static func leadKey(_ role: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "scenesync lead \(role)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Takes and lets go of leads as they are asked for, on a connection of its own, until
    /// cancelled; a lost connection loses every lead, and the next one tries to take them again.
    private func holdLeads(nudges: AsyncStream<Void>) async {
        var nudge = nudges.makeAsyncIterator()
        var delay = Self.firstRetryDelay
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            var held: Set<Int64> = []
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try url.connectionConfiguration(), id: attempt, logger: logger)
                do {
                    while !Task.isCancelled {
                        // postgres-nio's queries do not end when cancelled: a round that takes too long closes
                        // the connection, which fails them, or shows them lost if they were written after it closed.
                        held = try await withTimeout(Self.leadRoundTimeout, operation: "hold leads", onTimeout: {
                            try? await connection.close()
                        }) { [held] in
                            try await Self.unlessAnswerLost(on: connection) {
                                try await self.settleLeads(on: connection, held: held)
                            }
                        }
                        delay = Self.firstRetryDelay
                        await wait(for: options.headPollInterval, orNext: &nudge)
                    }
                } catch {
                    if !Task.isCancelled {
                        logger.warning("Lost the connection that holds this node's leads; trying again",
                                       metadata: ["error": "\(PostgresStorageError.describe(error).message)"])
                    }
                }
                try? await connection.close()
            } catch {
                if !Task.isCancelled {
                    logger.debug("Could not connect to hold leads", metadata: ["error": "\(PostgresStorageError.describe(error).message)"])
                }
            }
            state.withLock { state in
                for id in Array(state.leaders.keys) where state.leaders[id]?.holds == true {
                    state.leaders[id]?.holds = false
                    state.leaders[id]?.continuation.yield(false)
                }
            }
            do {
                try await Task.sleep(for: delay * Double.random(in: 0.5...1.5))
            } catch {
                return
            }
            delay = min(delay * 2, Self.maximumRetryDelay)
        }
    }

    /// One round: lets go of the locks no one asks for any more, tries to take those asked for and
    /// not held, and hands each held one to one of the streams that ask for it. Returns the keys
    /// held now.
    private func settleLeads(on connection: PostgresConnection, held: Set<Int64>) async throws -> Set<Int64> {
        var held = held
        let wanted = state.withLock { Set($0.leaders.values.map(\.key)) }
        for key in held.subtracting(wanted) {
            var binds = PostgresBindings()
            binds.append(key)
            for try await _ in try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock($1)", binds: binds),
                                                          logger: logger) {}
            held.remove(key)
        }
        for key in wanted.subtracting(held) {
            var binds = PostgresBindings()
            binds.append(key)
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_try_advisory_lock($1)", binds: binds),
                                                  logger: logger)
            for try await taken in rows.decode(Bool.self) where taken { held.insert(key) }
        }
        if wanted.isSubset(of: held) {
            // Nothing was asked of the server this round if every lead is held: ask it something,
            // so that a lost connection is found.
            for try await _ in try await connection.query("SELECT 1", logger: logger) {}
        }
        state.withLock { state in
            for key in held {
                let askers = state.leaders.filter { $0.value.key == key }
                guard !askers.contains(where: \.value.holds), let first = askers.keys.min() else { continue }
                state.leaders[first]?.holds = true
                state.leaders[first]?.continuation.yield(true)
            }
        }
        return held
    }

    /// Returns after `duration`, or at the next nudge, or when the task is cancelled.
    private func wait(for duration: Duration, orNext nudge: inout AsyncStream<Void>.Iterator) async {
        let stream = state.withLock { $0.leadNudges }
        // Nudges only once the time is up, so that a wait ended by a nudge leaves none behind.
        let timer = Task {
            guard (try? await Task.sleep(for: duration)) != nil else { return }
            stream?.yield()
        }
        _ = await nudge.next()
        timer.cancel()
    }

    struct Leader: Sendable {
        let role: String
        let key: Int64
        let continuation: AsyncStream<Bool>.Continuation
        var holds = false
    }
}

/// Runs `body`, or throws ``PostgresStorageError/database(operation:sqlState:message:)`` naming
/// `operation` once `timeout` has passed without it returning. Then `body` is cancelled and
/// `onTimeout` runs: it must make `body` end (such as by closing its connection), for this waits
/// for `body` to end before it throws. Whichever comes first decides: what `body` returns or
/// throws once the time is up (such as the error of a connection `onTimeout` closed) is not
/// reported, the timeout is; and `onTimeout` does not run for a `body` that ended in time.
func withTimeout<Value: Sendable>(
    _ timeout: Duration, operation: String, onTimeout: @escaping @Sendable () async -> Void,
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let race = TimeoutRace()
    let timeoutError = PostgresStorageError.database(operation: operation, sqlState: nil, message: "no answer within \(timeout)")
    return try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask {
            do {
                let value = try await body()
                if race.answer() { return value }
            } catch {
                if race.answer() { throw error }
            }
            throw timeoutError
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            if race.expire() { await onTimeout() }
            return nil
        }
        defer { group.cancelAll() }
        // The timer's nil says nothing: `body`'s task always ends with its value or an error.
        while let result = try await group.next() {
            if let value = result { return value }
        }
        throw timeoutError
    }
}

/// Who of a ``withTimeout(_:operation:onTimeout:_:)``'s two tasks finished first: `body`, or the
/// time.
private final class TimeoutRace: Sendable {
    /// 0 while both run, 1 once `body` answered, 2 once the time was up.
    private let state = Atomic(0)

    /// `body` ended; false if the time was up first.
    func answer() -> Bool {
        state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
    }

    /// The time is up; false if `body` ended first.
    func expire() -> Bool {
        state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged
    }
}
