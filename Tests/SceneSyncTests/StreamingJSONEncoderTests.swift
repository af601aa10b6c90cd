import Foundation
@testable import SceneSync
import Testing

/// Events and records are written with `StreamingJSONEncoder`: what it writes must read back as
/// `JSONEncoder`'s output does, so that logs and records written before and after read alike.
struct StreamingJSONEncoderTests {
    enum Kind: Codable, Equatable {
        case plain
        case tagged(String, count: Int)
        case nested(Inner?)
    }

    struct Inner: Codable, Equatable {
        var flag: Bool
        var ratio: Float
        var small: Int8
    }

    struct Empty: Codable, Equatable {}

    struct Everything: Codable, Equatable {
        var key = UUID()
        var text = "quote \" backslash \\ slash / tab \t newline \n bell \u{7} nul \u{0} é 🎉"
        var missing: String?
        var present: String? = "here"
        var whole = 2.0
        var fraction = -0.1
        var huge = 1e300
        var tiny = Double.leastNonzeroMagnitude
        var minimum = Int.min
        var maximum = UInt64.max
        var zero = 0
        var date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        var bytes = Data([0, 1, 2, 250, 255])
        var link = URL(string: "https://example.com/a?b=c")!
        var amount = Decimal(string: "12.345")!
        var kinds: [Kind] = [.plain, .tagged("a", count: 3), .nested(Inner(flag: true, ratio: 0.5, small: -8)), .nested(nil)]
        var names: [String: Int] = ["one": 1, "two": 2]
        var numbered: [Int: String] = [1: "one", 20: "twenty"]
        var grid: [[Int]] = [[], [1], [2, 3]]
        var fields: Set<String> = ["a", "b"]
        var empty = Empty()
        var nothing: [Int] = []
    }

    /// A value that writes to a container again after a later one: a single pass cannot follow it.
    struct Interleaved: Encodable {
        enum Keys: String, CodingKey { case outer, inner, after }
        enum InnerKeys: String, CodingKey { case first, second }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var inner = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
            try inner.encode(1, forKey: .first)
            try container.encode("x", forKey: .outer)
            try inner.encode(2, forKey: .second)
            try container.encode(true, forKey: .after)
        }
    }

    final class Base: Encodable {
        var base = 1
    }

    final class Derived: Encodable {
        enum Keys: String, CodingKey { case own }
        let parent = Base()

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(2, forKey: .own)
            try parent.encode(to: container.superEncoder())
        }
    }

    struct Unrepresentable: Encodable {
        var value = Double.infinity
    }

    func streamed(_ value: some Encodable) throws -> Data {
        try StreamingJSONEncoder(fallback: JSONEncoder()).encode(value)
    }

    @Test func readsBackAsWritten() throws {
        let value = Everything()
        let data = try streamed(value)
        #expect(try JSONDecoder().decode(Everything.self, from: data) == value)
    }

    @Test func writesWhatJSONEncoderWrites() throws {
        // Key order and escapes may differ; the values, integers kept as integers, may not.
        for value in [Everything(), Everything(missing: "set", whole: 7, kinds: [])] {
            #expect(try StrictJSON.parse(streamed(value)) == StrictJSON.parse(JSONEncoder().encode(value)))
        }
        #expect(try StrictJSON.parse(streamed(Kind.tagged("t", count: 1))) == StrictJSON.parse(JSONEncoder().encode(Kind.tagged("t", count: 1))))
        #expect(try String(decoding: streamed(Empty()), as: UTF8.self) == "{}")
        #expect(try String(decoding: streamed([1.5, 3]), as: UTF8.self) == "[1.5,3]")
    }

    @Test func writesAUUIDAsItsUpperCaseString() throws {
        let uuids = [UUID(), UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                     UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
                     UUID(uuidString: "0A1B2C3D-4E5F-6789-ABCD-EF0123456789")!]
        for uuid in uuids {
            #expect(try String(decoding: streamed(uuid), as: UTF8.self) == "\"\(uuid.uuidString)\"")
            #expect(try streamed(["key": uuid]) == JSONEncoder().encode(["key": uuid]))
        }
    }

    @Test func leavesWhatOnePassCannotFollowToTheFallback() throws {
        for value in [Interleaved() as any Encodable, Derived()] {
            #expect(try StrictJSON.parse(streamed(value)) == StrictJSON.parse(JSONEncoder().encode(value)))
        }
        #expect(throws: EncodingError.self) { try streamed(Unrepresentable()) }
    }

    @Test func reusesItsBufferFromValueToValue() throws {
        let encoder = StreamingJSONEncoder(fallback: JSONEncoder())
        #expect(try encoder.encode(Interleaved()).isEmpty == false)
        #expect(try String(decoding: encoder.encode(Kind.plain), as: UTF8.self) == #"{"plain":{}}"#)
        #expect(try String(decoding: encoder.encode(["a"]), as: UTF8.self) == #"["a"]"#)
    }
}
