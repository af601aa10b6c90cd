import Foundation
public import Logging
import SceneSync

/// The kitchen's timer: it says each order is ready when its time is up, and takes a ready order
/// nobody picked up off the kitchen list at its ``RestaurantController/pickupDeadline(for:)``.
///
/// It sleeps until the next order is due (to be ready, or to leave), or until something changes in
/// the restaurant (a new order may be due sooner), then marks every due order ready and clears
/// every uncollected one. Both are events like any other: durable, and done once. After a restart
/// the timer first catches up with whatever fell due while the server was down. Run it for as long
/// as the restaurant is open, on one node at a time (an app service); it returns when its task is
/// cancelled.
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

    /// Marks orders ready as they fall due, and clears ready orders not picked up in time, until
    /// the task is cancelled.
    public func run() async throws {
        let clock = restaurant.clock
        let restaurant = restaurant
        while !Task.isCancelled {
            let snapshot = await restaurant.snapshot()
            let now = clock.now
            let preparing = snapshot.state.ordersInPreparation
            let due = preparing.filter { $0.readyAt <= now }
            if !due.isEmpty {
                await each(due, "mark an order ready", done: "Order is ready") { try await restaurant.markReady($0) }
                continue
            }
            let ready = snapshot.state.kitchen.filter(\.isReady)
            let uncollected = ready.filter { restaurant.pickupDeadline(for: $0) <= now }
            if !uncollected.isEmpty {
                await each(uncollected, "clear an uncollected order", done: "Order was not picked up; it left the kitchen list") {
                    try await restaurant.clearUncollected($0)
                }
                continue
            }
            let next = (preparing.map(\.readyAt) + ready.map(restaurant.pickupDeadline(for:))).min()
            await waitUntil(next, orAnEventAfter: snapshot.sequence)
        }
    }

    /// Runs `intent` for each of `orders`; after a failure, waits a second and lets the loop look again.
    private func each(
        _ orders: [KitchenOrder], _ what: String, done: Logger.Message,
        _ intent: (Int) async throws -> Bool
    ) async {
        for order in orders {
            do {
                _ = try await intent(order.number)
                logger.debug(done, metadata: ["order": "\(order.number)"])
            } catch {
                logger.error("Could not \(what); trying again shortly",
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
