import Foundation
import SceneSync

/// Reads the dishes of a menu file field by field, so that a mistake is reported with the entry
/// and the field it is in, rather than as a decoding error's coding path.
enum MenuFileReader {
    static func items(in data: Data) throws(MenuFileError) -> [MenuItem] {
        let json: StrictJSON
        do {
            json = try StrictJSON.parse(data)
        } catch {
            throw .notJSON(reason: "\(error.reason) at byte \(error.offset)")
        }
        let entries: [StrictJSON]
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

    private static func item(_ entry: StrictJSON, number: Int) throws(MenuFileError) -> MenuItem {
        guard case let .object(fields) = entry else {
            throw .invalidField(entry: number, id: nil, field: "", problem: "the entry must be an object, not \(entry.kind).")
        }
        var id: Int?
        func fail(_ field: MenuItem.CodingKeys, _ problem: String) -> MenuFileError {
            .invalidField(entry: number, id: id, field: field.rawValue, problem: problem)
        }
        func value(_ field: MenuItem.CodingKeys) throws(MenuFileError) -> StrictJSON {
            guard let value = fields[field.rawValue], value != .null else { throw fail(field, "is missing.") }
            return value
        }
        func integer(_ field: MenuItem.CodingKeys) throws(MenuFileError) -> Int {
            let found = try value(field)
            guard case let .integer(number) = found else { throw fail(field, "must be a whole number, not \(found.kind).") }
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
        case let .integer(number): price = Double(number)
        case let .number(number): price = number
        case let other: throw fail(.price, "must be a number, not \(other.kind).")
        }
        return MenuItem(id: id!, name: try string(.name), description: try string(.description), price: price,
                        category: try string(.category), estimatedPrepTime: try integer(.estimatedPrepTime))
    }
}
