import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Restaurant
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncUI
import Testing

/// The course's menu API against the real server on a free port: every key and type, exact
/// statuses, the pictures, and every bad body and origin.
@Suite(.serialized)
struct MenuAPITests {
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }


    /// The orders the kitchen has, read from the server's own database file.
    func storedOrders(_ server: LiveRestaurant) async throws -> [KitchenOrder] {
        let restaurant = try await RestaurantController(
            menu: server.menu, storage: try SQLiteStorage(path: server.directory.path("restaurant.sqlite")), logger: .init(label: "read"))
        return await restaurant.snapshot().state.kitchen
    }

    @Test func categoriesAndMenuHaveExactlyTheCoursesKeysAndTypes() async throws {
        try await LiveRestaurant.run { server in

            let categories = try await server.request("/categories")
            #expect(categories.status == 200)
            #expect(categories.headers["content-type"]?.hasPrefix("application/json") == true)
            let categoriesObject = try object(categories.body)
            #expect(Array(categoriesObject.keys) == ["categories"])
            #expect(categoriesObject["categories"] as? [String] == ["appetizers", "salads", "soups", "entrees", "desserts", "sandwiches"])

            let all = try await server.request("/menu")
            #expect(all.status == 200)
            let allObject = try object(all.body)
            #expect(Array(allObject.keys) == ["items"])
            let items = try #require(allObject["items"] as? [[String: Any]])
            #expect(items.count == server.menu.items.count)
            for (item, expected) in zip(items, server.menu.items) {
                #expect(Set(item.keys) == ["id", "name", "description", "price", "category", "image_url"])
                #expect(item["id"] as? Int == expected.id)
                #expect(item["name"] as? String == expected.name)
                #expect(item["description"] as? String == expected.description)
                #expect((item["price"] as? NSNumber)?.doubleValue == expected.price)
                #expect(item["category"] as? String == expected.category)
                #expect(item["image_url"] as? String == "http://127.0.0.1:\(server.port)/images/\(expected.id).png")
            }
            let rawJSON = String(decoding: all.body, as: UTF8.self)
            #expect(!rawJSON.contains("true") && !rawJSON.contains("false") && !rawJSON.contains("null"))

            let soups = try object(try await server.request("/menu?category=soups").body)["items"] as? [[String: Any]]
            #expect(soups?.map { $0["id"] as? Int } == server.menu.items(in: "soups").map(\.id))
            #expect(soups?.allSatisfy { $0["category"] as? String == "soups" } == true)
            let unknown = try await server.request("/menu?category=breakfast")
            #expect(unknown.status == 200)
            #expect(try object(unknown.body)["items"] as? [Any] != nil)
            #expect((try object(unknown.body)["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func imageURLsUseTheHostTheClientUsed() async throws {
        try await LiveRestaurant.run { server in
            let menu = try await server.request("/menu?category=desserts", host: "localhost")
            let items = try #require(try object(menu.body)["items"] as? [[String: Any]])
            #expect(!items.isEmpty)
            for item in items {
                let id = try #require(item["id"] as? Int)
                #expect(item["image_url"] as? String == "http://localhost:\(server.port)/images/\(id).png")
            }
        }
    }

    @Test func anOrderAnswersExactly200WithThePreparationTimeAndIsStored() async throws {
        try await LiveRestaurant.run { server in
            let dishes = server.menu.items(in: "entrees").prefix(2).map(\.id)
            for contentType in ["application/json", "Application/JSON; charset=utf-8"] {
                let answer = try await server.request("/order", method: "POST", headers: ["Content-Type": contentType],
                                                      body: Data(#"{"menuIds": [\#(dishes[0]), \#(dishes[1]), \#(dishes[0])]}"#.utf8))
                #expect(answer.status == 200, "\(contentType)")
                let body = try object(answer.body)
                #expect(Array(body.keys) == ["preparation_time"])
                #expect(body["preparation_time"] is Int)
            }
            let orders = try await storedOrders(server)
            #expect(orders.map(\.lines.count) == [3, 3])
            #expect(orders.allSatisfy { $0.source == .menuAPI })
            let expected = PreparationTime.minutes(for: [dishes[0], dishes[1], dishes[0]].compactMap(server.menu.item), ordersAhead: 0)
            #expect(orders.first?.preparationTime == expected)
            #expect(orders.last?.preparationTime == expected + PreparationTime.minutesPerOrderAhead)
        }
    }

    static let badOrders: [(contentType: String, body: String, status: Int, code: String, mentions: String)] = [
        ("application/json", #"{"menuIds": []}"#, 422, "emptyOrder", "at least one dish"),
        ("application/json", #"{"menuIds": [1, 9999]}"#, 422, "unknownMenuItem", "9999"),
        ("application/json", "{\"menuIds\": [" + Array(repeating: "1", count: 51).joined(separator: ",") + "]}", 422, "tooManyItems", "at most 50"),
        ("application/json", "menuIds=1,2", 400, "invalidBody", "not JSON"),
        ("application/json", "", 400, "invalidBody", "not JSON"),
        ("application/json", #"[1, 2]"#, 400, "invalidBody", "must be an object"),
        ("application/json", #"{"menuIDs": [1]}"#, 400, "invalidBody", "menuIDs"),
        ("application/json", #"{"menuIds": [1], "tip": 5}"#, 400, "invalidBody", "tip"),
        ("application/json", #"{"menuIds": "1,2"}"#, 400, "invalidBody", "must be a list"),
        ("application/json", #"{"menuIds": [1, "2"]}"#, 400, "invalidBody", "[1]"),
        ("application/json", #"{"menuIds": [1.5]}"#, 400, "invalidBody", "whole number"),
        ("application/json", #"{"menuIds": [1.0]}"#, 400, "invalidBody", "whole number"),
        ("application/json", #"{"menuIds": [1e0]}"#, 400, "invalidBody", "whole number"),
        ("application/json", #"{"menuIds": [1], "menuIds": [2]}"#, 400, "invalidBody", "not JSON"),
        ("application/json", #"{"menuIds": [true]}"#, 400, "invalidBody", "whole number"),
        ("application/json", #"{"menuIds": null}"#, 400, "invalidBody", "must be a list"),
        ("application/json", "{\"menuIds\": [" + String(repeating: "1, ", count: 30_000) + "1]}", 413, "bodyTooLarge", "65536"),
        ("text/plain", #"{"menuIds": [1]}"#, 415, "unsupportedMediaType", "application/json"),
    ]

    @Test func aBadOrderIsRefusedWithAJSONErrorAndNothingIsStored() async throws {
        try await LiveRestaurant.run(limits: OrderLimits(orderBurst: Self.badOrders.count)) { server in
            for bad in Self.badOrders {
                let answer = try await server.request("/order", method: "POST", headers: ["Content-Type": bad.contentType], body: Data(bad.body.utf8))
                #expect(answer.status == bad.status, "\(bad.body.prefix(40))")
                #expect(answer.headers["content-type"]?.hasPrefix("application/json") == true)
                let error = try object(answer.body)
                #expect(error["error"] as? String == bad.code, "\(bad.body.prefix(40))")
                #expect((error["reason"] as? String)?.contains(bad.mentions) == true, "\(error["reason"] ?? "") names \(bad.mentions)")
            }
            #expect(try await storedOrders(server).isEmpty)
        }
    }

    @Test func aForeignOriginIsRefusedAndANativeClientIsNot() async throws {
        try await LiveRestaurant.run { server in
            let body = Data(#"{"menuIds": [1]}"#.utf8)
            let foreign = try await server.request("/order", method: "POST",
                                                   headers: ["Content-Type": "application/json", "Origin": "http://evil.example"], body: body)
            #expect(foreign.status == 403)
            #expect(try object(foreign.body)["error"] as? String != nil)
            #expect(try await storedOrders(server).isEmpty)

            let page = try await server.request("/order", method: "POST",
                                                headers: ["Content-Type": "application/json", "Origin": "http://127.0.0.1:\(server.port)"], body: body)
            #expect(page.status == 200)
            let native = try await server.request("/order", method: "POST", headers: ["Content-Type": "application/json"], body: body)
            #expect(native.status == 200)
            #expect(try await storedOrders(server).count == 2)
        }
    }

    @Test func everyDishHasACacheablePNG() async throws {
        try await LiveRestaurant.run { server in
            var tags: Set<String> = []
            for item in server.menu.items {
                let image = try await server.request("/images/\(item.id).png")
                #expect(image.status == 200)
                #expect(image.headers["content-type"] == "image/png")
                #expect(Array(image.body.prefix(8)) == Self.pngSignature, "\(item.name)")
                #expect(image.body.count > 1_000)
                let etag = try #require(image.headers["etag"])
                #expect(image.headers["cache-control"]?.contains("max-age") == true)
                tags.insert(etag)
                let again = try await server.request("/images/\(item.id).png", headers: ["If-None-Match": etag])
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
            }
            #expect(tags.count == server.menu.items.count, "every dish has its own picture")
            for path in ["/images/9999.png", "/images/abc.png", "/images/01.png", "/images/1.jpg", "/images/-1.png"] {
                let missing = try await server.request(path)
                #expect(missing.status == 404, "\(path)")
            }
        }
    }

    @Test func theCoursesClientWorksUnchanged() async throws {
        try await LiveRestaurant.run { server in
            let client = CourseClient(baseURL: server.baseURL)
            let categories = try await client.fetchCategories()
            #expect(categories == server.menu.categories)
            var ordered: [Int] = []
            for category in categories {
                let items = try await client.fetchMenuItems(forCategory: category)
                #expect(items.map(\.id) == server.menu.items(in: category).map(\.id))
                let image = try await client.fetchImage(from: try #require(items.first).imageURL)
                #expect(Array(image.prefix(8)) == Self.pngSignature)
                ordered.append(items[0].id)
            }
            let minutes = try await client.submitOrder(forMenuIDs: ordered)
            #expect(minutes == PreparationTime.minutes(for: ordered.compactMap(server.menu.item), ordersAhead: 0))
            #expect(try await storedOrders(server).first?.lines.map(\.menuItemID) == ordered)
        }
    }
}
