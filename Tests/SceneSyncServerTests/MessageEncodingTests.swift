import Foundation
import SceneSync
@testable import SceneSyncUI
@testable import SceneSyncServer
import Testing
import SceneSyncTestSupport

/// `WindowProtocol.encode` writes JSON by hand; `JSONEncoder` with sorted keys, through the
/// messages' `Encodable` conformances, is the reference it must match.
@Suite struct MessageEncodingTests {
    private static let reference: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    @Test func matchesJSONEncoderOnRandomMessages() throws {
        var random = SplitMix64(seed: 0x5CE7E5)
        for _ in 0..<3_000 {
            let message = random.message()
            let written = WindowProtocol.encode(message)
            let expected = try Self.reference.encode(message)
            // Parsed, the two are the same JSON value: what the renderer's JSON.parse sees.
            #expect(try JSONShape(parsing: written) == JSONShape(parsing: expected), "\(message)")
            // And as text they are the same bytes: keys in the same order, escaped the same way.
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        }
    }

    @Test func matchesJSONEncoderOnEveryMessageType() throws {
        let node = ViewNode(id: "row-1", kind: .row, props: ["title": "Spork", "detail": "$7", "deletable": true])
        let messages: [ServerMessage] = [
            .welcome(session: "S", app: "lootlogger", title: "Loot", time: Date(timeIntervalSince1970: 1_795_000_000.123)),
            .render(root: ViewNode(id: "window", kind: .window, children: [node]), seq: ["lootlogger": 3], route: "/items"),
            .patch(ops: [.insert(parent: "items", index: 0, node: node), .remove(id: "a"), .move(id: "b", index: 2),
                         .replace(id: "c", node: node, transition: .push), .replace(id: "c", node: node, transition: nil),
                         .set(id: "items", props: ["footer": "1 item", "badge": .null])],
                   seq: ["lootlogger": 102, "other": 0]),
            .resumed(seq: [:]),
            .ack(ref: 1),
            .error(ref: nil, code: "malformed", message: "Malformed message: not JSON."),
            .error(ref: -4, code: "unknownAction", message: "Nothing here answers \"x\"."),
            .open(url: "http://127.0.0.1:8080/?open=abc/def"),
            .shutdown(retryAfter: 1_500),
            .pong,
        ]
        for message in messages {
            #expect(WindowProtocol.encode(message) == (try Self.reference.encode(message)), "\(message)")
        }
        #expect(WindowProtocol.encodeText(.ack(ref: 7)) == #"{"ref":7,"type":"ack","v":1}"#)
    }

    @Test func aNumberJSONCannotCarryGivesAnInternalError() throws {
        for number in [Double.nan, .infinity, -.infinity] {
            let message = ServerMessage.patch(ops: [.set(id: "x", props: ["value": .double(number)])], seq: [:])
            #expect(throws: (any Error).self) { try Self.reference.encode(message) }
            let parsed = try JSONSerialization.jsonObject(with: WindowProtocol.encode(message)) as? [String: Any]
            #expect(parsed?["type"] as? String == "error")
            #expect(parsed?["code"] as? String == "internal")
        }
    }
}

/// A JSON value as `JSONSerialization` parses it, comparable: numbers keep whether they were read
/// as integers or as doubles, and Booleans are not numbers.
private indirect enum JSONShape: Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case array([JSONShape])
    case object([String: JSONShape])

    init(parsing data: Data) throws {
        self.init(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    init(_ value: Any) {
        switch value {
        case is NSNull: self = .null
        case let text as String: self = .string(text)
        case let array as [Any]: self = .array(array.map(JSONShape.init))
        case let object as [String: Any]: self = .object(object.mapValues(JSONShape.init))
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c": self = .bool(number.boolValue)
            case "d", "f": self = .double(number.doubleValue)
            case "Q": self = .unsigned(number.uint64Value)
            default: self = .integer(number.int64Value)
            }
        default:
            Issue.record("JSONSerialization gave a \(type(of: value))")
            self = .null
        }
    }
}

/// Random message parts, the same on every run.
private extension SplitMix64 {
    /// Pieces of text that need escaping, or are not ASCII, or are neither.
    private static let fragments = [
        "a", "Z", "item-", "9", "_", " ", "$", "—", "é", "e\u{301}", "😀", "🇫🇷", "\u{2028}", "\u{7F}", "\u{0}", "\u{1}",
        "\u{1F}", "\u{8}", "\u{C}", "\n", "\r\n", "\t", "\"", "\\", "/", "</script>", "\\u0041", "{", "}", ",", ":",
    ]

    mutating func text(maxPieces: Int = 6) -> String {
        (0..<Int.random(in: 0...maxPieces, using: &self)).map { _ in Self.fragments.randomElement(using: &self)! }.joined()
    }

    mutating func integer() -> Int {
        switch Int.random(in: 0..<6, using: &self) {
        case 0: [Int.min, Int.max, 0, -1, 10, 9_999_999_999].randomElement(using: &self)!
        case 1: Int.random(in: Int.min...Int.max, using: &self)
        default: Int.random(in: -1_000...100_000, using: &self)
        }
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<4, using: &self) {
        case 0: [0.0, -0.0, 1.0, 0.1, 100.0, 1e16, 1e21, 1.5e-7, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 123_456_789.125, -2.5]
            .randomElement(using: &self)!
        case 1: Double(Int.random(in: -1_000_000...1_000_000, using: &self))
        case 2: Double.random(in: -1e6...1e6, using: &self)
        default: Double(bitPattern: next() & ~(0x7FF << 52) | (UInt64.random(in: 1...0x7FE, using: &self) << 52))
        }
    }

    mutating func value(depth: Int = 0) -> ViewValue {
        switch Int.random(in: 0..<(depth < 2 ? 8 : 6), using: &self) {
        case 0, 1: .string(text())
        case 2: .int(integer())
        case 3: .double(double())
        case 4: .bool(Bool.random(using: &self))
        case 5: .null
        case 6: .array((0..<Int.random(in: 0...4, using: &self)).map { _ in value(depth: depth + 1) })
        default: .object(props(depth: depth + 1))
        }
    }

    mutating func props(depth: Int = 0) -> [String: ViewValue] {
        var props: [String: ViewValue] = [:]
        for _ in 0..<Int.random(in: 0...6, using: &self) {
            let key = Bool.random(using: &self)
                ? ["title", "detail", "Title", "a10", "a9", "_x", "badge", "é", "e\u{301}"].randomElement(using: &self)! : text(maxPieces: 3)
            props[key] = value(depth: depth)
        }
        return props
    }

    mutating func node(depth: Int = 0) -> ViewNode {
        let children = depth < 3 ? (0..<Int.random(in: 0...(3 - depth), using: &self)).map { _ in node(depth: depth + 1) } : []
        return ViewNode(id: text(maxPieces: 4), kind: ViewNode.Kind.allCases.randomElement(using: &self)!, props: props(), children: children)
    }

    mutating func patch() -> Patch {
        switch Int.random(in: 0..<5, using: &self) {
        case 0: .insert(parent: text(), index: integer(), node: node(depth: 1))
        case 1: .remove(id: text())
        case 2: .move(id: text(), index: integer())
        case 3: .replace(id: text(), node: node(depth: 1), transition: Bool.random(using: &self) ? ViewNode.Transition.allCases.randomElement(using: &self) : nil)
        default: .set(id: text(), props: props())
        }
    }

    mutating func sequences() -> [String: UInt64] {
        var seq: [String: UInt64] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &self) {
            seq[text(maxPieces: 2)] = Bool.random(using: &self) ? UInt64.random(in: 0...UInt64.max, using: &self) : UInt64.random(in: 0...1_000, using: &self)
        }
        return seq
    }

    mutating func message() -> ServerMessage {
        switch Int.random(in: 0..<10, using: &self) {
        case 0: .welcome(session: text(), app: text(), title: text(), time: Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000_000, using: &self)) / 1000))
        case 1: .render(root: node(), seq: sequences(), route: text())
        case 2, 3, 4: .patch(ops: (0..<Int.random(in: 0...4, using: &self)).map { _ in patch() }, seq: sequences())
        case 5: .resumed(seq: sequences())
        case 6: .ack(ref: integer())
        case 7: .error(ref: Bool.random(using: &self) ? integer() : nil, code: text(), message: text())
        case 8: .open(url: text())
        default: Bool.random(using: &self) ? .shutdown(retryAfter: integer()) : .pong
        }
    }
}
