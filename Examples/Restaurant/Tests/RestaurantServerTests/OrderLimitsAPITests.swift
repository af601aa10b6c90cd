import Foundation
import Restaurant
@testable import RestaurantServer
import SceneSync
import Testing

/// `POST /order`'s limits against a real server: each refusal is `429` with `Retry-After`, or
/// `422`, in the API's JSON, and stores nothing.
@Suite(.serialized)
struct OrderLimitsAPITests {
    static let json = ["Content-Type": "application/json"]

    func order(_ ids: [Int], on server: LiveRestaurant) async throws -> (status: Int, headers: [String: String], body: Data) {
        try await server.request("/order", method: "POST", headers: Self.json, body: Data(#"{"menuIds": \#(ids)}"#.utf8))
    }

    func error(_ body: Data) throws -> String? {
        try #require(try JSONSerialization.jsonObject(with: body) as? [String: String])["error"]
    }

    func storedOrders(_ server: LiveRestaurant) async throws -> [KitchenOrder] {
        try await MenuAPITests().storedOrders(server)
    }

    @Test func anAddressSendsABurstThenOneOrderPerInterval() async throws {
        try await LiveRestaurant.run(limits: OrderLimits(orderBurst: 2, orderInterval: .seconds(30))) { server in
            let dish = try #require(server.menu.items.first).id
            #expect(try await order([dish], on: server).status == 200)
            #expect(try await order([dish], on: server).status == 200)
            let refused = try await order([dish], on: server)
            #expect(refused.status == 429)
            #expect(refused.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(try error(refused.body) == "rateLimited")
            let retryAfter = try #require(Int(refused.headers["retry-after"] ?? ""))
            #expect((1...30).contains(retryAfter))
            #expect(try await storedOrders(server).count == 2)
        }
    }

    @Test func aFullKitchenAnswers429UntilAnOrderIsReady() async throws {
        // A minute of preparation lasts a second, and the kitchen timer runs.
        let limits = OrderLimits(maximumOrdersInPreparation: 2, orderBurst: 10)
        try await LiveRestaurant.run(clock: KitchenClock(minute: .seconds(1)), limits: limits) { server in
            let quick = try #require(server.menu.items.min { $0.estimatedPrepTime < $1.estimatedPrepTime })
            #expect(try await order([quick.id], on: server).status == 200)
            #expect(try await order([quick.id], on: server).status == 200)
            let refused = try await order([quick.id], on: server)
            #expect(refused.status == 429)
            #expect(try error(refused.body) == "kitchenFull")
            let retryAfter = try #require(Int(refused.headers["retry-after"] ?? ""))
            #expect((quick.estimatedPrepTime - 1...quick.estimatedPrepTime).contains(retryAfter), "when the first order is ready")
            #expect(try await storedOrders(server).count == 2)

            try await Task.sleep(for: .seconds(retryAfter))
            #expect(try await order([quick.id], on: server).status == 200, "room once the first order is ready")
        }
    }

    @Test func anAddressHasAtMostItsShareOfTheKitchen() async throws {
        try await LiveRestaurant.run(limits: OrderLimits(maximumOrdersInPreparationPerClient: 1)) { server in
            let dish = try #require(server.menu.items.first)
            #expect(try await order([dish.id], on: server).status == 200)
            let refused = try await order([dish.id], on: server)
            #expect(refused.status == 429)
            #expect(try error(refused.body) == "tooManyOrdersInPreparation")
            let retryAfter = try #require(Int(refused.headers["retry-after"] ?? ""))
            #expect(retryAfter > (dish.estimatedPrepTime - 1) * 60 && retryAfter <= dish.estimatedPrepTime * 60)
            #expect(try await storedOrders(server).count == 1)
        }
    }

    @Test func anOrderOfTooManyDishesIsRefused() async throws {
        try await LiveRestaurant.run { server in
            let dish = try #require(server.menu.items.first).id
            let refused = try await order(Array(repeating: dish, count: 51), on: server)
            #expect(refused.status == 422)
            #expect(try error(refused.body) == "tooManyItems")
            #expect(refused.headers["retry-after"] == nil, "waiting does not help")
            #expect(try await order(Array(repeating: dish, count: 50), on: server).status == 200)
            #expect(try await storedOrders(server).map(\.lines.count) == [50])
        }
    }

    #if os(Linux)
    @Test func eachAddressHasItsOwnRateAndShare() async throws {
        let dish = try #require(try Menu.standard().items.first).id
        try await AddressedMenuAPI.run(limits: OrderLimits(orderBurst: 1, orderInterval: .seconds(30))) { server in
            #expect(try server.order([dish], from: "127.0.0.1").status == 200)
            let refused = try server.order([dish], from: "127.0.0.1")
            #expect(refused.status == 429 && refused.headers["retry-after"] != nil)
            #expect(try error(refused.body) == "rateLimited")
            #expect(try server.order([dish], from: "127.0.0.2").status == 200, "another address has its own burst")
        }
        try await AddressedMenuAPI.run(limits: OrderLimits(maximumOrdersInPreparationPerClient: 1)) { server in
            #expect(try server.order([dish], from: "127.0.0.1").status == 200)
            let refused = try server.order([dish], from: "127.0.0.1")
            #expect(refused.status == 429 && refused.headers["retry-after"] != nil)
            #expect(try error(refused.body) == "tooManyOrdersInPreparation")
            #expect(try server.order([dish], from: "127.0.0.2").status == 200, "another address has its own share")
            let kitchen = await server.restaurant.snapshot().state.kitchen
            #expect(kitchen.map(\.client) == ["127.0.0.1", "127.0.0.2"])
        }
    }
    #endif

    @Test func theRateLimiterForgetsIdleAddressesAndFollowsAtMostItsLimit() {
        let start = ContinuousClock.now
        let limiter = OrderRateLimiter(OrderLimits(orderBurst: 2, orderInterval: .seconds(2), maximumTrackedClients: 3), now: start)
        #expect(limiter.take(for: "a", now: start) == nil)
        #expect(limiter.take(for: "a", now: start) == nil)
        #expect(limiter.take(for: "a", now: start) == .seconds(2))
        #expect(limiter.take(for: "a", now: start + .seconds(1)) == .seconds(1), "half a token back after a second")
        #expect(limiter.take(for: "a", now: start + .seconds(2)) == nil)

        for client in ["b", "c", "d", "e"] { _ = limiter.take(for: client, now: start + .seconds(2)) }
        #expect(limiter.trackedClients == 3, "at most 3 addresses")
        // Four seconds without an order: every bucket is full again, and all but the one used are forgotten.
        #expect(limiter.take(for: "e", now: start + .seconds(6)) == nil)
        #expect(limiter.trackedClients == 1)
    }
}
