import Foundation
import SceneSync
import Testing

/// `StrictJSON` as an app reads its own request bodies and files with it: what it accepts, what it
/// refuses and where, and how deep it goes.
struct StrictJSONTests {
    func parse(_ text: String) throws(StrictJSON.Invalid) -> StrictJSON {
        try StrictJSON.parse(Data(text.utf8))
    }

    func refusal(_ bytes: [UInt8]) -> StrictJSON.Invalid? {
        do {
            _ = try StrictJSON.parse(Data(bytes))
            return nil
        } catch {
            return error
        }
    }

    func refusal(_ text: String) -> StrictJSON.Invalid? { refusal(Array(text.utf8)) }

    @Test func aValueIsReadWithItsKindAndIntegersStayIntegers() throws {
        let json = try parse(#" {"id": 2, "price": 2.0, "big": 2e0, "zero": -0, "minusZero": -0.0, "ok": true, "none": null,"#
            + #" "name": "Caf\u00e9 \ud83c\udf70", "tags": ["a", 1]} "#)
        #expect(json == .object([
            "id": .integer(2), "price": .number(2), "big": .number(2), "zero": .integer(0), "minusZero": .number(-0.0),
            "ok": .bool(true), "none": .null, "name": .string("Café 🍰"), "tags": .array([.string("a"), .integer(1)]),
        ]))
        #expect(json.kind == "an object")
        #expect(try parse("1").kind == "an integer")
        #expect(try parse("1.5").kind == "a number with a fraction or an exponent")
        #expect(try parse("true").kind == "a Boolean")
        // Beyond `Int`, a number written as an integer is still a number.
        #expect(try parse("18446744073709551616") == .number(18_446_744_073_709_551_616))
    }

    @Test(arguments: [
        ("", "no value", 0),
        ("1 2", "text after the value", 2),
        (#"{"a": 1, "a": 2}"#, #"the key "a" twice"#, 9),
        ("[1,]", "an unexpected character", 3),
        ("01", "a number with a leading zero", 1),
        ("1e999", "a number out of range", 5),
        ("NaN", "an unexpected character", 0),
        ("[1] // a comment", "text after the value", 4),
        ("'a'", "an unexpected character", 0),
        ("\"a\tb\"", "a control character in a string", 2),
        (#""\x""#, "an unknown escape", 3),
        (#""\ud83c""#, "a lone surrogate", 7),
        ("tru", "an unknown literal", 0),
    ])
    func whatRFC8259RefusesIsRefusedWithItsPlace(text: String, reason: String, offset: Int) {
        let invalid = refusal(text)
        #expect(invalid?.reason == reason)
        #expect(invalid?.offset == offset)
    }

    @Test func textThatIsNotUTF8IsRefused() {
        #expect(refusal([0x22, 0x61, 0xFF, 0x22])?.reason == "text that is not UTF-8")
        #expect(refusal([0xEF, 0xBB, 0xBF, 0x31])?.reason == "an unexpected character", "a byte order mark is not JSON")
    }

    @Test func nestingIsReadToTheMaximumDepthAndRefusedBeyond() throws {
        let depth = StrictJSON.maximumDepth
        let deepest = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        var expected = StrictJSON.integer(1)
        for _ in 0..<depth { expected = .array([expected]) }
        #expect(try parse(deepest) == expected)

        let tooDeep = String(repeating: #"{"a":"#, count: depth + 1) + "1" + String(repeating: "}", count: depth + 1)
        let invalid = refusal(tooDeep)
        #expect(invalid?.reason == "nested too deeply")
        #expect(invalid?.offset == 5 * depth, "at the object one too deep")
    }
}
