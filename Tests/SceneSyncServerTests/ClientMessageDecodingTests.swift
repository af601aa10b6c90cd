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
        (#"{not json"#, WindowProtocolError.malformed("not JSON")),
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
    ])
    func whatIsRefusedAndWhy(text: String, error: WindowProtocolError) {
        #expect(throws: error) { try Self.decode(text) }
    }
}
