import Foundation
import Logging
import SceneSync
import Synchronization
import Testing

/// The checks of what nodes sharing a storage tell each other (``SceneSync/SceneSyncCluster``).
/// A storage whose ``SceneSync/SceneSyncStorage/cluster`` is `nil` belongs to one process, and
/// there is nothing more to hold it to.
extension StorageConformance {
    static func relaysTransientEventsToOtherNodes(_ nodeA: any SceneSyncStorage, _ nodeB: any SceneSyncStorage) async throws {
        guard nodeA.cluster != nil else { return }
        let logger = Logger(label: "conformance")
        let one = try await ModelController<Counter>(app: app, storage: nodeA, logger: logger)
        let two = try await ModelController<Counter>(app: app, storage: nodeB, logger: logger)
        let heardOnA = Mutex<[Counter.Transient]>([])
        let recordingA = Task { [stream = one.transients()] in
            for await envelope in stream { heardOnA.withLock { $0.append(envelope.event) } }
        }
        defer { recordingA.cancel() }
        let heardOnB = two.transients()
        let origin = SceneSession.ID()
        let announced = Mutex(0)
        // The first announcement may go before the other node listens: announce until heard.
        let first = await firstValue(of: heardOnB, within: .seconds(10)) {
            guard (try? await one.announce(origin: origin) { _ in [.waved(1)] }) != nil else { return }
            announced.withLock { $0 += 1 }
        }
        #expect(first?.event == .waved(1), "node B hears node A's transient event")
        #expect(first?.origin == origin, "with its origin")
        try await two.announce(origin: nil) { _ in [.waved(2)] }
        try await waitUntil("node A to hear node B's transient event", timeout: .seconds(10)) {
            heardOnA.withLock { $0.contains(.waved(2)) }
        }
        // Anything of A's own coming back would have come back by now.
        try await Task.sleep(for: .seconds(1))
        #expect(heardOnA.withLock { $0.filter { $0 == .waved(1) }.count } == announced.withLock { $0 },
                "node A hears its own once each, never again from the other nodes' channel")
        await one.close()
        await two.close()
    }

    /// The first element of `stream`, calling `poke` every 100 ms until one comes; `nil` after `timeout`.
    private static func firstValue<Element: Sendable>(
        of stream: AsyncStream<Element>, within timeout: Duration, poking poke: @escaping @Sendable () async -> Void
    ) async -> Element? {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                let deadline = ContinuousClock.now + timeout
                while !Task.isCancelled, ContinuousClock.now < deadline {
                    await poke()
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return nil
            }
            let result = await group.next() ?? nil
            group.cancelAll()
            return result
        }
    }

    static func givesALeadToOneNodeAtATime(_ nodeA: any SceneSyncStorage, _ nodeB: any SceneSyncStorage) async throws {
        guard let a = nodeA.cluster, let b = nodeB.cluster else { return }
        let role = "conformance-\(UUID().uuidString)"
        // What the nodes are told, in order; `nil` when a wait ran out.
        let (events, event) = AsyncStream.makeStream(of: (node: String, leads: Bool)?.self)
        let following = [("a", a), ("b", b)].map { name, cluster in
            Task {
                for await leads in cluster.leadership(of: role) { event.yield((name, leads)) }
            }
        }
        defer { following.forEach { $0.cancel() } }
        var iterator = events.makeAsyncIterator()
        func next(within timeout: Duration) async -> (node: String, leads: Bool)? {
            let timer = Task {
                try await Task.sleep(for: timeout)
                event.yield(nil)
            }
            defer { timer.cancel() }
            return await iterator.next() ?? nil
        }
        let first = await next(within: .seconds(10))
        #expect(first?.leads == true, "one node takes the lead")
        guard let leader = first?.node else { return }
        let follower = leader == "a" ? "b" : "a"
        // The other node is not told it leads while the first one holds the lead.
        let meanwhile = await next(within: .seconds(2))
        #expect(meanwhile == nil, "no second leader while the first holds the lead")
        following[leader == "a" ? 0 : 1].cancel()
        let then = await next(within: .seconds(15))
        #expect(then?.node == follower && then?.leads == true, "once the leader lets go, the other node takes the lead")
    }

    static func knowsWhichWindowsAreConnectedElsewhere(_ nodeA: any SceneSyncStorage, _ nodeB: any SceneSyncStorage) async throws {
        guard let a = nodeA.cluster, let b = nodeB.cluster else { return }
        let window = session()
        let other = session()
        try await nodeA.saveSession(window)
        try await nodeA.saveSession(other)
        #expect(try await b.sessionCount() == 2, "node B counts the sessions node A saved")
        try await a.setConnected(true, session: window.id)
        #expect(try await b.sessionsConnectedElsewhere() == [window.id], "B knows the window is connected to A")
        #expect(try await a.sessionsConnectedElsewhere().isEmpty, "A's own windows are not elsewhere for A")
        try await a.setConnected(false, session: window.id)
        #expect(try await b.sessionsConnectedElsewhere().isEmpty, "a disconnected window is not in use")

        try await a.setConnected(true, session: window.id)
        try await b.setConnected(true, session: window.id)
        try await a.setConnected(false, session: window.id)
        #expect(try await a.sessionsConnectedElsewhere() == [window.id],
                "A disconnecting late does not undo B's connection of the window since")
        try await b.setConnected(false, session: window.id)

        try await a.setConnected(true, session: other.id)
        _ = try await nodeA.setRunning(true)
        #expect(try await b.sessionsConnectedElsewhere().isEmpty, "a node that starts again has no windows connected")
    }

    static func keepsOpenRequestsForEveryNode(
        _ nodeA: any SceneSyncStorage, _ nodeB: any SceneSyncStorage, otherApp: any SceneSyncStorage
    ) async throws {
        guard let a = nodeA.cluster, let b = nodeB.cluster, let other = otherApp.cluster else { return }
        let activity = try SceneActivity(type: "com.example.item", title: "Rusty Spork", payload: ["key": "spork"])
        try await a.keepOpenRequest(activity, token: "t1", lifetime: .seconds(60))
        #expect(try await other.takeOpenRequest(token: "t1") == nil, "another app's window cannot take it")
        #expect(try await b.takeOpenRequest(token: "t1") == activity, "a window on node B takes what node A kept")
        #expect(try await a.takeOpenRequest(token: "t1") == nil, "once")
        try await a.keepOpenRequest(activity, token: "t2", lifetime: .milliseconds(1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await b.takeOpenRequest(token: "t2") == nil, "not after it expired")
        #expect(try await b.takeOpenRequest(token: "never kept") == nil)
    }
}
