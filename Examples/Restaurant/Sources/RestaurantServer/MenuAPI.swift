import Foundation
public import Hummingbird
public import Restaurant
import SceneSyncServer

/// The course's menu API, exactly, so that its iOS client works against SceneSync unchanged:
///
/// | request | answer |
/// |---|---|
/// | `GET /categories` | `{"categories": ["appetizers", …]}` |
/// | `GET /menu?category=<name>` | `{"items": [MenuItem]}`; every dish without `category`, none for an unknown one |
/// | `POST /order` `{"menuIds": [Int]}` | `{"preparation_time": Int}` (minutes), status 200 |
/// | `GET /images/<id>.png` | the dish's picture, `image/png`, with `ETag` and `Cache-Control` |
///
/// A `MenuItem` is `{"id", "name", "description", "price", "category", "image_url"}`, whose
/// `image_url` is built from the `Host` the client used. Orders go through the same
/// ``RestaurantController`` as the windows', so they show in every window. Refusals are JSON,
/// `{"error": code, "reason": sentence}`, and store nothing.
///
/// `POST /order` is bounded by the restaurant's ``OrderLimits``, per client address where the
/// request context knows it (a `ClientAddressRequestContext`, which sees through a trusted proxy,
/// or a `RemoteAddressRequestContext`; otherwise every client counts as one):
///
/// | limit | default | refusal |
/// |---|---|---|
/// | orders sent by one address | 5 at once, then one every 2 s | `429` `rateLimited`, `Retry-After` |
/// | orders in preparation, in all | 100 | `429` `kitchenFull`, `Retry-After` |
/// | orders in preparation from one address | 10 | `429` `tooManyOrdersInPreparation`, `Retry-After` |
/// | dishes in one order | 50 | `422` `tooManyItems` |
/// | addresses whose rate is followed | 10,000; idle ones are forgotten | — |
/// | a body | ``maximumOrderBodySize`` bytes | `413` `bodyTooLarge` |
public struct MenuAPI: Sendable {
    /// The largest `POST /order` body accepted, in bytes: room for the most dishes an order may
    /// have, written out generously.
    public static let maximumOrderBodySize = 64 * 1024

    /// The client address of requests whose context does not tell it.
    static let unknownClient = "unknown"

    /// The restaurant it serves.
    public let restaurant: RestaurantController
    private let pictures: [Int: Picture]
    private let rateLimiter: OrderRateLimiter

    /// The API for `restaurant`, with the dishes' pictures from `images`; its orders are limited
    /// by the restaurant's ``RestaurantController/limits``.
    ///
    /// - Throws: if a picture cannot be read.
    public init(restaurant: RestaurantController, images: DishImages?) throws {
        self.restaurant = restaurant
        rateLimiter = OrderRateLimiter(restaurant.limits)
        var pictures: [Int: Picture] = [:]
        var byFile: [String: Picture] = [:]
        if let images {
            for item in restaurant.menu.items {
                let file = images.fileName(for: item.id)
                if byFile[file] == nil { byFile[file] = Picture(data: try images.data(for: item.id)) }
                pictures[item.id] = byFile[file]
            }
        }
        self.pictures = pictures
    }

    /// Adds the API's routes to `router`.
    public func addRoutes<Context: RequestContext>(to router: RouterGroup<Context>) {
        router.get("/categories") { _, _ in
            try Self.json(CategoriesResponse(categories: restaurant.menu.categories))
        }
        router.get("/menu") { request, _ in
            let menu = restaurant.menu
            let items = request.uri.queryParameters["category"].map { menu.items(in: String($0)) } ?? menu.items
            let host = request.head.authority ?? "localhost"
            return try Self.json(MenuResponse(items: items.map { APIMenuItem($0, host: host) }))
        }
        router.post("/order") { request, context in
            try await order(request, context: context)
        }
        router.get("/images/:file") { request, context in
            image(request, file: context.parameters.get("file") ?? "")
        }
        router.head("/images/:file") { request, context in
            // GET's head, its Content-Length included, without the body.
            image(request, file: context.parameters.get("file") ?? "").createHeadResponse()
        }
    }

    private func order(_ request: Request, context: some RequestContext) async throws -> Response {
        let client = Self.client(of: context)
        if let wait = rateLimiter.take(for: client) {
            return Self.refusal(.tooManyRequests, "rateLimited", "Too many orders from this address; try again in a moment.",
                                retryAfter: Self.seconds(wait))
        }
        guard Self.isJSON(request.headers[.contentType]) else {
            return Self.refusal(.unsupportedMediaType, "unsupportedMediaType", "Send the order as Content-Type: application/json.")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maximumOrderBodySize)
        } catch {
            return Self.refusal(.contentTooLarge, "bodyTooLarge", "An order's body can have at most \(Self.maximumOrderBodySize) bytes.")
        }
        let bytes = Data(body.readableBytesView)
        let ids: [Int]
        do {
            ids = try OrderRequest.menuIDs(in: bytes)
        } catch {
            return Self.refusal(.badRequest, "invalidBody", error.description)
        }
        let order: KitchenOrder
        do {
            order = try await restaurant.submitOrder(menuIDs: ids, client: client)
        } catch {
            switch error {
            case .notSaved:
                return Self.refusal(.serviceUnavailable, error.code, "The order could not be saved; try again.")
            case let .kitchenFull(_, nextReadyAt), let .tooManyOrdersInPreparation(_, nextReadyAt):
                let wait = nextReadyAt.map { $0.timeIntervalSince(restaurant.clock.now) } ?? 60
                return Self.refusal(.tooManyRequests, error.code, error.description, retryAfter: Self.seconds(.seconds(wait)))
            default:
                return Self.refusal(.unprocessableContent, error.code, error.description)
            }
        }
        return try Self.json(OrderResponse(preparationTime: order.preparationTime))
    }

    private func image(_ request: Request, file: String) -> Response {
        guard file.hasSuffix(".png"), let id = Int(file.dropLast(4)), id >= 0, String(id) + ".png" == file,
              let picture = pictures[id] else {
            return Self.refusal(.notFound, "notFound", "No dish has the picture \(file.debugDescription).")
        }
        var headers: HTTPFields = [.eTag: picture.etag, .cacheControl: "public, max-age=86400"]
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag == picture.etag || tag == "W/" + picture.etag || tag == "*"
        }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "image/png"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: picture.data)))
    }

    // MARK: - Responses

    static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = try encoder.encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A JSON error; `retryAfter`, in whole seconds, goes in `Retry-After`.
    static func refusal(_ status: HTTPResponse.Status, _ code: String, _ reason: String, retryAfter: Int? = nil) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(["error": code, "reason": reason])) ?? Data()
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A wait in whole seconds for `Retry-After`: rounded up, at least 1.
    static func seconds(_ wait: Duration) -> Int {
        let (seconds, attoseconds) = wait.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }

    /// The address a request came from, without its port, as the limits per client count it.
    static func client(of context: some RequestContext) -> String {
        (context as? any ClientAddressRequestContext)?.clientAddress
            ?? (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress ?? unknownClient
    }

    /// Whether a `Content-Type` is JSON, in any letter case, with or without parameters.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }
}

/// A dish's picture, ready to serve.
private struct Picture: Sendable {
    let data: Data
    let etag: String

    init(data: Data) {
        self.data = data
        // FNV-1a: stable across runs and machines, unlike `hashValue`.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        etag = "\"\(String(hash, radix: 16))-\(data.count)\""
    }
}
