import Foundation

/// Reads the dishes of a menu file field by field, so that a mistake is reported with the entry
/// and the field it is in, rather than as a decoding error's coding path.
enum MenuFileReader {
    static func items(in data: Data) throws(MenuFileError) -> [MenuItem] {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .notJSON(reason: Self.reason(error))
        }
        let entries: [JSONValue]
        switch json {
        case let .array(array): entries = array
        case let .object(object):
            guard let items = object["items"] else { throw .notAMenu(reason: "it has no \"items\".") }
            guard case let .array(array) = items else { throw .notAMenu(reason: "\"items\" is not a list.") }
            entries = array
        default:
            throw .notAMenu(reason: "it holds \(json.kind).")
        }
        var items: [MenuItem] = []
        for (index, entry) in entries.enumerated() {
            items.append(try item(entry, number: index + 1))
        }
        return items
    }

    private static func item(_ entry: JSONValue, number: Int) throws(MenuFileError) -> MenuItem {
        guard case let .object(fields) = entry else {
            throw .invalidField(entry: number, id: nil, field: "", problem: "the entry must be an object, not \(entry.kind).")
        }
        var id: Int?
        func fail(_ field: MenuItem.CodingKeys, _ problem: String) -> MenuFileError {
            .invalidField(entry: number, id: id, field: field.rawValue, problem: problem)
        }
        func value(_ field: MenuItem.CodingKeys) throws(MenuFileError) -> JSONValue {
            guard let value = fields[field.rawValue], value != .null else { throw fail(field, "is missing.") }
            return value
        }
        func integer(_ field: MenuItem.CodingKeys) throws(MenuFileError) -> Int {
            let found = try value(field)
            guard case let .int(number) = found else { throw fail(field, "must be a whole number, not \(found.kind).") }
            return number
        }
        func string(_ field: MenuItem.CodingKeys) throws(MenuFileError) -> String {
            let found = try value(field)
            guard case let .string(text) = found else { throw fail(field, "must be a string, not \(found.kind).") }
            return text
        }
        id = try integer(.id)
        let price: Double
        switch try value(.price) {
        case let .int(number): price = Double(number)
        case let .double(number): price = number
        case let other: throw fail(.price, "must be a number, not \(other.kind).")
        }
        return MenuItem(id: id!, name: try string(.name), description: try string(.description), price: price,
                        category: try string(.category), estimatedPrepTime: try integer(.estimatedPrepTime))
    }

    private static func reason(_ error: any Error) -> String {
        if case let DecodingError.dataCorrupted(context) = error {
            return context.underlyingError.map { "\($0.localizedDescription)" } ?? context.debugDescription
        }
        return "\(error)"
    }
}

/// Any JSON value, told apart by kind: `true` is not 1, and 1.5 is not a whole number.
package enum JSONValue: Decodable, Equatable, Sendable {
    case null, bool(Bool), int(Int), double(Double), string(String), array([JSONValue]), object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    /// What the value is, for a message: "a string", "null" …
    package var kind: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}
