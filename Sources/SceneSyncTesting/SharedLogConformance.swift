import Foundation
import Logging
public import SceneSync
public import Testing

/// Races between model controllers that share one app's log, as nodes on one database do: every
/// storage that several nodes can share must pass them, with two nodes and with three.
///
/// ```swift
/// @Test(arguments: SharedLogConformance.Race.allCases, [2, 3])
/// func nodesShareTheLog(_ race: SharedLogConformance.Race, nodes: Int) async throws {
///     let database = try await MyDatabase.fresh()
///     try await SharedLogConformance.run(race, nodes: nodes) { node in database.storage(node: node) }
/// }
/// ```
///
/// A storage that cannot hear other writers (`SceneSyncStorage.logHeads(app:)` is
/// `nil`) is held to the same order; its controllers learn of other nodes' commits when their own
/// is refused, or when asked to `ModelController.catchUp()`.
public enum SharedLogConformance {
    /// A race between nodes.
    public enum Race: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Every node adds items at once: every item is added once, and every node's subscribers
        /// see the same events in the same gap-free order.
        case concurrentAddsKeepOneOrder
        /// Every node removes the same item at once: one succeeds, every other is refused with the
        /// app's own error for an unknown item, and nothing else changes.
        case theSameItemRemovedByEveryNode
        /// Every node changes the same field of one item from the value it showed: one keeps its
        /// edit, every other is told that the field changed elsewhere.
        case editsOfOneFieldFromEveryNode
        /// A node whose controller was closed while others went on opens again and catches up, and a
        /// subscriber after its old sequence number gets every event it missed, in order.
        case aNodeCatchesUpAfterBeingAway
        /// A node that did not hear the others' commits has its next intent checked against them:
        /// one refused commit, then the intent commits; the node takes later intents as before.
        case aConflictDoesNotWedgeANode

        public var testDescription: String { rawValue }
    }

    /// Runs `race` between `nodes` model controllers, each on a storage that `open` makes for a
    /// node of one fresh database.
    public static func run(
        _ race: Race, nodes: Int, open: @escaping @Sendable (_ node: Int) async throws -> any SceneSyncStorage
    ) async throws {
        let cluster = try await Cluster(nodes: nodes, open: open)
        switch race {
        case .concurrentAddsKeepOneOrder: try await concurrentAddsKeepOneOrder(cluster)
        case .theSameItemRemovedByEveryNode: try await theSameItemRemovedByEveryNode(cluster)
        case .editsOfOneFieldFromEveryNode: try await editsOfOneFieldFromEveryNode(cluster)
        case .aNodeCatchesUpAfterBeingAway: try await aNodeCatchesUpAfterBeingAway(cluster, open: open)
        case .aConflictDoesNotWedgeANode: try await aConflictDoesNotWedgeANode(cluster)
        }
        await cluster.close()
    }

    static let app = "shared"

    /// Model controllers on the storages of several nodes.
    struct Cluster {
        let storages: [any SceneSyncStorage]
        let controllers: [ModelController<Shelf>]
        let recorders: [EventRecorder<Shelf.Event>]

        init(nodes: Int, open: @Sendable (Int) async throws -> any SceneSyncStorage) async throws {
            var storages: [any SceneSyncStorage] = []
            var controllers: [ModelController<Shelf>] = []
            for node in 0..<nodes {
                let storage = try await open(node)
                storages.append(storage)
                controllers.append(try await ModelController<Shelf>(app: app, storage: storage, logger: Logger(label: "node-\(node)")))
            }
            self.storages = storages
            self.controllers = controllers
            recorders = controllers.map { EventRecorder($0.events(after: 0)) }
        }

        var hearsOtherWriters: Bool { storages.allSatisfy { $0.logHeads(app: app) != nil } }

        /// Waits until every node has followed the log to its end: by itself if its storage hears
        /// other writers, or when asked to catch up if not.
        func settle() async throws {
            var head: UInt64 = 0
            for controller in controllers { head = max(head, await controller.lastSequence) }
            for controller in controllers {
                try await Self.follow(controller, to: head, hearing: hearsOtherWriters)
            }
        }

        /// Waits until `controller` has followed the log to `head`: by itself if it hears other
        /// writers, when asked to catch up if not.
        static func follow(_ controller: ModelController<Shelf>, to head: UInt64, hearing: Bool) async throws {
            if !hearing { try await controller.catchUp() }
            let deadline = ContinuousClock.now.advanced(by: .seconds(15))
            while await controller.lastSequence < head, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(await controller.lastSequence == head, "every node reached the head")
        }

        func close() async {
            for controller in controllers { await controller.close() }
        }
    }

    static func concurrentAddsKeepOneOrder(_ cluster: Cluster) async throws {
        let perNode = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (node, controller) in cluster.controllers.enumerated() {
                for index in 0..<perNode {
                    group.addTask { try await controller.add("n\(node)-\(index)") }
                }
            }
            try await group.waitForAll()
        }
        try await cluster.settle()
        let total = perNode * cluster.controllers.count
        let orders = try await cluster.recorders.asyncMap { try await $0.waitForEvents(count: total, timeout: .seconds(15)) }
        #expect(orders[0].map(\.sequence) == Array(1...UInt64(total)), "one gap-free order")
        for order in orders.dropFirst() {
            #expect(order.map(\.sequence) == orders[0].map(\.sequence))
            #expect(order.map(\.event) == orders[0].map(\.event), "every node's subscribers see the same order")
        }
        let states = await cluster.controllers.asyncMap { await $0.state }
        #expect(states[0].items.count == total, "every item added once")
        #expect(states.allSatisfy { $0 == states[0] })
    }

    static func theSameItemRemovedByEveryNode(_ cluster: Cluster) async throws {
        for round in 0..<10 {
            let name = "item-\(round)"
            try await cluster.controllers[round % cluster.controllers.count].add(name)
            try await cluster.settle()
            let outcomes = await withTaskGroup(of: (any Error)?.self) { group in
                for controller in cluster.controllers {
                    group.addTask {
                        do {
                            try await controller.remove(name)
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                var outcomes: [(any Error)?] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0 == nil }.count == 1, "round \(round): one removal succeeds: \(outcomes)")
            let refusals = outcomes.compactMap { $0 as? ShelfError }
            #expect(refusals == Array(repeating: .unknownItem(name), count: cluster.controllers.count - 1),
                    "round \(round): the others are told the item is gone: \(outcomes)")
        }
        try await cluster.settle()
        let states = await cluster.controllers.asyncMap { await $0.state }
        #expect(states.allSatisfy { $0.items.isEmpty })
        #expect(await cluster.controllers[0].lastSequence == 20, "ten adds and ten removals")
    }

    static func editsOfOneFieldFromEveryNode(_ cluster: Cluster) async throws {
        try await cluster.controllers[0].add("lamp")
        try await cluster.settle()
        var shown = "0"
        for round in 1...5 {
            let base = shown
            let outcomes = await withTaskGroup(of: (node: Int, error: (any Error)?).self) { group in
                for (node, controller) in cluster.controllers.enumerated() {
                    group.addTask {
                        do {
                            try await controller.setValue(of: "lamp", from: base, to: "\(round)-\(node)")
                            return (node, nil)
                        } catch {
                            return (node, error)
                        }
                    }
                }
                var outcomes: [(node: Int, error: (any Error)?)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            let winners = outcomes.filter { $0.error == nil }
            #expect(winners.count == 1, "round \(round): one edit is kept")
            guard let winner = winners.first else { return }
            shown = "\(round)-\(winner.node)"
            let losers = outcomes.compactMap { $0.error as? ShelfError }
            #expect(losers == Array(repeating: .changedElsewhere(current: shown), count: cluster.controllers.count - 1),
                    "round \(round): the others are told it changed elsewhere")
            try await cluster.settle()
            for controller in cluster.controllers {
                #expect(await controller.state.items["lamp"] == shown)
            }
        }
    }

    static func aNodeCatchesUpAfterBeingAway(
        _ cluster: Cluster, open: @escaping @Sendable (Int) async throws -> any SceneSyncStorage
    ) async throws {
        let away = cluster.controllers.count - 1
        try await cluster.controllers[away].add("before")
        try await cluster.settle()
        let left = await cluster.controllers[away].lastSequence
        await cluster.controllers[away].close()
        for index in 0..<60 { try await cluster.controllers[index % away].add("while away \(index)") }

        let back = try await ModelController<Shelf>(app: app, storage: try await open(away), logger: Logger(label: "back"))
        #expect(await back.lastSequence == left + 60)
        try await Cluster.follow(cluster.controllers[0], to: left + 60, hearing: cluster.hearsOtherWriters)
        #expect(await back.state == cluster.controllers[0].state)
        let recorder = EventRecorder(back.events(after: left))
        let missed = try await recorder.waitForEvents(count: 60, timeout: .seconds(15))
        #expect(missed.map(\.sequence) == Array((left + 1)...(left + 60)), "everything it missed, in order")
        #expect(try await back.add("after").map(\.sequence) == [left + 61])
        await back.close()
    }

    static func aConflictDoesNotWedgeANode(_ cluster: Cluster) async throws {
        let late = cluster.controllers[cluster.controllers.count - 1]
        // Another node commits; the late node may or may not have heard yet: either way its next
        // intent must commit after it, and so must every intent after that.
        for index in 0..<5 { try await cluster.controllers[0].add("first \(index)") }
        for index in 0..<5 {
            let envelopes = try await late.add("late \(index)")
            #expect(envelopes.map(\.sequence) == [UInt64(6 + index)])
        }
        try await cluster.settle()
        #expect(await late.state.items.count == 10)
        #expect(await cluster.controllers[0].state == late.state)
    }
}

/// The model the races run on: named items with a value.
struct Shelf: ModelState, Equatable {
    enum Event: UpdateEvent {
        case added(name: String)
        case removed(name: String)
        case valueChanged(name: String, value: String)
    }

    /// Items by name, with their value.
    var items: [String: String] = [:]

    init() {}

    init(records: RecordSet) throws {
        items = try records.decode("items", as: String.self)
    }

    mutating func apply(_ event: Event) -> [RecordChange] {
        switch event {
        case let .added(name):
            items[name] = "0"
            return [.save(collection: "items", key: name, value: "0")]
        case let .removed(name):
            items[name] = nil
            return [.delete(collection: "items", key: name)]
        case let .valueChanged(name, value):
            items[name] = value
            return [.save(collection: "items", key: name, value: value)]
        }
    }
}

/// Why the shelf refused an intent.
enum ShelfError: Error, Equatable {
    case duplicateItem(String)
    case unknownItem(String)
    case changedElsewhere(current: String)
}

extension ModelController where State == Shelf {
    @discardableResult
    func add(_ name: String) async throws -> [EventEnvelope<Shelf.Event>] {
        try await perform(origin: nil) { state in
            guard state.items[name] == nil else { throw ShelfError.duplicateItem(name) }
            return [.added(name: name)]
        }
    }

    func remove(_ name: String) async throws {
        try await perform(origin: nil) { state in
            guard state.items[name] != nil else { throw ShelfError.unknownItem(name) }
            return [.removed(name: name)]
        }
    }

    /// Changes an item's value from the one the window showed, as a form does.
    func setValue(of name: String, from shown: String, to value: String) async throws {
        try await perform(origin: nil) { state in
            guard let current = state.items[name] else { throw ShelfError.unknownItem(name) }
            guard current == shown else { throw ShelfError.changedElsewhere(current: current) }
            return [.valueChanged(name: name, value: value)]
        }
    }
}

extension Array where Element: Sendable {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
