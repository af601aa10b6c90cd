import Foundation
import Restaurant
import SceneSync

/// `GET /categories`.
struct CategoriesResponse: Encodable {
    let categories: [String]
}

/// `GET /menu`.
struct MenuResponse: Encodable {
    let items: [APIMenuItem]
}

/// A dish as the menu API gives it: the menu file's fields but `estimated_prep_time`, and the
/// picture's absolute URL.
struct APIMenuItem: Encodable {
    let id: Int
    let name: String
    let description: String
    let price: Double
    let category: String
    let imageURL: String

    init(_ item: MenuItem, host: String) {
        id = item.id
        name = item.name
        description = item.description
        price = item.price
        category = item.category
        imageURL = "http://\(host)/images/\(item.id).png"
    }

    enum CodingKeys: String, CodingKey {
        case id, name, description, price, category
        case imageURL = "image_url"
    }
}

/// `POST /order`'s answer.
struct OrderResponse: Encodable {
    let preparationTime: Int

    enum CodingKeys: String, CodingKey {
        case preparationTime = "preparation_time"
    }
}

/// `POST /order`'s body, read strictly: exactly `{"menuIds": [Int, …]}`.
enum OrderRequest {
    /// What was wrong with a body.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static func menuIDs(in body: Data) throws(Invalid) -> [Int] {
        let json: StrictJSON
        do {
            json = try StrictJSON.parse(body)
        } catch {
            throw Invalid(description: "The body is not JSON; send {\"menuIds\": [1, 2, …]}.")
        }
        guard case let .object(fields) = json else {
            throw Invalid(description: "The body must be an object, {\"menuIds\": [1, 2, …]}, not \(json.kind).")
        }
        if let unknown = fields.keys.filter({ $0 != "menuIds" }).sorted().first {
            throw Invalid(description: "The body has an unknown field \(unknown.debugDescription); it takes only \"menuIds\".")
        }
        guard let value = fields["menuIds"] else { throw Invalid(description: "The body has no \"menuIds\".") }
        guard case let .array(values) = value else {
            throw Invalid(description: "\"menuIds\" must be a list of dish ids, not \(value.kind).")
        }
        var ids: [Int] = []
        ids.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            guard case let .integer(id) = value else {
                throw Invalid(description: "\"menuIds\"[\(index)] must be a whole number, not \(value.kind).")
            }
            ids.append(id)
        }
        return ids
    }
}
