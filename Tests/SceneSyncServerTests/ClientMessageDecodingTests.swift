import Foundation
@testable import SceneSyncServer
import SceneSyncUI
import Testing

/// A window's messages, read strictly in one pass.
@Suite struct ClientMessageDecodingTests {
    static func decode(_ text: String) throws(WindowProtocolError) -> ClientMessage {
        try WindowProtocol.decodeClientMessage(Data(text.utf8))
    }

    @Test func everyMessageAWindowSends() throws {
        #expect(try Self.decode(#"{"type":"hello","v":1,"visible":true,"focused":false,"session":null,"seq":{"lootlogger":4}}"#)
            == .hello(.init(seq: ["lootlogger": 4], visible: true, focused: false)))
        #expect(try Self.decode(#"{"type":"action","v":1,"ref":3,"node":"item-1","name":"move","value":2}"#)
            == .action(UserAction(ref: 3, node: "item-1", name: .move, value: .int(2))))
        #expect(try Self.decode(#"{"v":1,"name":"commit","node":"name","ref":4,"type":"action","value":"Rusty"}"#)
            == .action(UserAction(ref: 4, node: "name", name: .commit, value: .string("Rusty"))))
        #expect(try Self.decode(#"{"type":"visibility","v":1,"visible":false,"focused":false}"#) == .visibility(visible: false, focused: false))
        #expect(try Self.decode(#"{"type":"closing","v":1}"#) == .closing)
        #expect(try Self.decode(#"{"type":"ping","v":1}"#) == .ping)
    }

    @Test(arguments: [
        (#"{not json"#, WindowProtocolError.malformed("not JSON: a key that is not a string at byte 1")),
        (#"[1,2]"#, .malformed("a message is a JSON object")),
        (#"{"v":1}"#, .malformed("missing \"type\"")),
        (#"{"type":"render","v":1}"#, .unknownType("render")),
        (#"{"type":"ping"}"#, .malformed("missing \"v\"")),
        (#"{"type":"ping","v":2}"#, .unsupportedVersion(2)),
        (#"{"type":"ping","v":1,"extra":true}"#, .malformed("unknown field \"extra\" in ping")),
        (#"{"type":"action","v":1,"ref":1,"name":"tap"}"#, .malformed("missing \"node\" in action")),
        (#"{"type":"action","v":1,"ref":"1","node":"add","name":"tap"}"#, .malformed("wrong type for \"ref\" in action")),
        (#"{"type":"visibility","v":1,"visible":1,"focused":true}"#, .malformed("wrong type for \"visible\" in visibility")),
        (#"{"type":"hello","v":1,"visible":true,"focused":true,"seq":{"a":-1}}"#, .malformed("wrong type for \"seq\" in hello")),
        (#"{"type":"hello","v":1,"visible":true,"focused":true,"seq":{"a":1.0}}"#, .malformed("wrong type for \"seq\" in hello")),
        (#"{"type":"ping","v":true}"#, .malformed("\"v\" is the integer 1, not a Boolean")),
        (#"{"type":"ping","v":1.0}"#, .malformed("\"v\" is the integer 1, not a number with a fraction or an exponent")),
        (#"{"type":"ping","v":1e0}"#, .malformed("\"v\" is the integer 1, not a number with a fraction or an exponent")),
        (#"{"type":"ping","v":"1"}"#, .malformed("\"v\" is the integer 1, not a string")),
        (#"{"type":"ping","v":1,"v":1}"#, .malformed("not JSON: the key \"v\" twice at byte 21")),
        (#"{"type":"action","v":1,"ref":1.0,"node":"add","name":"tap"}"#, .malformed("wrong type for \"ref\" in action")),
        (#"{"type":"ping","v":01}"#, .malformed("not JSON: a number with a leading zero at byte 20")),
        (#"{"type":"ping","v":1} x"#, .malformed("not JSON: text after the value at byte 22")),
        (#"{"type":"action","v":1,"ref":1,"node":"\ud800","name":"tap"}"#, .malformed("not JSON: a lone surrogate at byte 45")),
        ("{\"type\":\"action\",\"v\":1,\"ref\":1,\"node\":\"a\u{1}\",\"name\":\"tap\"}", .malformed("not JSON: a control character in a string at byte 40")),
    ])
    func whatIsRefusedAndWhy(text: String, error: WindowProtocolError) {
        #expect(throws: error) { try Self.decode(text) }
    }

    /// A row's index is an integer written as one: `-0.0`, `1.0`, `1e0` and `1e-400` arrive as
    /// numbers that are not integers, which no move accepts.
    @Test(arguments: ["-0.0", "1.0", "1e0", "1e-400", "2.5", "1E2"])
    func anIndexWrittenOtherwiseIsNotAnInteger(number: String) throws {
        let message = try Self.decode(#"{"type":"action","v":1,"ref":1,"node":"item-1","name":"move","value":\#(number)}"#)
        guard case let .action(action, _) = message else { Issue.record("not an action"); return }
        #expect(action.value?.int == nil)
    }

    @Test func integersStringsAndEscapesReadAsWritten() throws {
        let message = try Self.decode(#"{"type":"action","v":1,"ref":-0,"node":"caf\u00e9 \ud83c\udf55\n","name":"move","value":9007199254740993}"#)
        #expect(message == .action(UserAction(ref: 0, node: "café 🍕\n", name: .move, value: .int(9_007_199_254_740_993))))
        let invalidUTF8 = Data([0x7B, 0x22, 0x74, 0x79, 0x70, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])
        #expect(throws: WindowProtocolError.malformed("not JSON: text that is not UTF-8 at byte 10")) {
            try WindowProtocol.decodeClientMessage(invalidUTF8)
        }
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(throws: WindowProtocolError.malformed("not JSON: nested too deeply at byte 76")) {
            try Self.decode(#"{"type":"action","v":1,"ref":1,"node":"a","name":"x","value":\#(deep)}"#)
        }
    }
}
