import Foundation
public import Logging
import SceneSync

/// The kitchen's timer: it says each order is ready when its time is up.
///
/// It sleeps until the next order is due, or until something changes in the restaurant (a new
/// order may be due sooner), then marks every due order ready. Readiness is an event like any
/// other: durable, and marked once. After a restart the timer first marks ready whatever fell due
/// while the server was down. Run it for as long as the restaurant is open; it returns when its
/// task is cancelled.
///
/// ```swift
/// let timer = KitchenTimer(restaurant: restaurant, logger: logger)
/// let running = Task { try await timer.run() }
/// ```
public struct KitchenTimer: Sendable {
    /// The restaurant whose orders it ends.
    public let restaurant: RestaurantController
    private let logger: Logger

    /// Creates the timer.
    public init(restaurant: RestaurantController, logger: Logger) {
        self.restaurant = restaurant
        self.logger = logger
    }

    /// Marks orders ready as they fall due, until the task is cancelled.
    public func run() async throws {
        let clock = restaurant.clock
        while !Task.isCancelled {
            let snapshot = await restaurant.snapshot()
            let now = clock.now
            let preparing = snapshot.state.ordersInPreparation
            let due = preparing.filter { $0.readyAt <= now }
            if !due.isEmpty {
                await markReady(due)
                continue
            }
            await waitUntil(preparing.map(\.readyAt).min(), orAnEventAfter: snapshot.sequence)
        }
    }

    private func markReady(_ orders: [KitchenOrder]) async {
        for order in orders {
            do {
                try await restaurant.markReady(order.number)
                logger.debug("Order is ready", metadata: ["order": "\(order.number)"])
            } catch {
                logger.error("Could not mark an order ready; trying again shortly",
                             metadata: ["order": "\(order.number)", "error": "\(error)"])
                try? await restaurant.clock.sleep(until: restaurant.clock.now.addingTimeInterval(1))
                return
            }
        }
    }

    /// Returns at `date`, at the next event after `sequence`, or when the task is cancelled.
    private func waitUntil(_ date: Date?, orAnEventAfter sequence: UInt64) async {
        let restaurant = restaurant
        await withTaskGroup(of: Void.self) { group in
            if let date {
                group.addTask { try? await restaurant.clock.sleep(until: date) }
            }
            group.addTask {
                var events = restaurant.events(after: sequence).makeAsyncIterator()
                _ = try? await events.next()
            }
            await group.next()
            group.cancelAll()
        }
    }
}
