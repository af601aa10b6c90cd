import Foundation
@testable import SceneSyncServer
@testable import SceneSyncUI
import Testing

/// The Swift side of the window protocol against `Tests/Fixtures/Protocol/messages.json`, which the
/// renderer's `protocol.js` is held to as well (`Tests/Browser/test_protocol_contract.py`): a
/// message type, field, node kind, op, transition or action name on one side only fails. Node
/// properties are checked in `WindowPropertiesContractTests`, where a real window is at hand.
@Suite struct ProtocolContractTests {
    struct Contract: Decodable {
        struct Fields: Decodable {
            let direction: String?
            let required: [String]
            let optional: [String]
            var all: Set<String> { Set(required + optional) }
        }

        let version: Int
        let maxMessageSize: Int
        let envelope: [String]
        let messages: [String: Fields]
        let node: [String]
        let kinds: [String]
        let opField: String
        let ops: [String: Fields]
        let transitions: [String]
        let props: [String]
        let itemFields: [String]
        let actions: [String]
        let windowNodes: [String]
    }

    static let contract: Contract = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Protocol/messages.json")
        return try! JSONDecoder().decode(Contract.self, from: Data(contentsOf: url))
    }()

    static func keys(of data: Data) throws -> Set<String> {
        Set(try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]).keys)
    }

    @Test func versionAndSizeLimit() {
        #expect(Self.contract.version == WindowProtocol.version)
        #expect(Self.contract.maxMessageSize == WindowProtocol.maximumMessageSize)
    }

    @Test func theMessageTypesAndTheirDirections() {
        let client = Set(Self.contract.messages.filter { $0.value.direction == "client" }.keys)
        let server = Set(Self.contract.messages.filter { $0.value.direction == "server" }.keys)
        #expect(client == Set(ClientMessage.types.map(\.rawValue)))
        #expect(client.union(server) == Set(WindowProtocol.MessageType.allCases.map(\.rawValue)))
        #expect(client.isDisjoint(with: server))
    }

    @Test func theFieldsAWindowMaySend() {
        for type in ClientMessage.types {
            #expect(ClientMessage.fields[type] == Self.contract.messages[type.rawValue]?.all, "\(type)")
        }
    }

    /// Every server message, with its optional fields and without.
    static let serverMessages: [ServerMessage] = [
        .welcome(session: "s", app: "a", title: "t", time: Date(timeIntervalSince1970: 1_795_000_000)),
        .render(root: ViewNode(id: "window", kind: .window), seq: ["a": 1], route: "main:items"),
        .patch(ops: [], seq: ["a": 1]),
        .resumed(seq: ["a": 1]),
        .ack(ref: 1),
        .error(ref: 1, code: "refused", message: "No."),
        .error(ref: nil, code: "malformed", message: "No."),
        .open(url: "/a?open=t"),
        .shutdown(retryAfter: 500),
        .pong,
    ]

    @Test(arguments: serverMessages)
    func theFieldsTheServerSends(_ message: ServerMessage) throws {
        let fields = try #require(Self.contract.messages[message.type.rawValue])
        #expect(fields.direction == "server")
        let keys = try Self.keys(of: WindowProtocol.encode(message)).subtracting(Self.contract.envelope)
        #expect(keys.isSuperset(of: fields.required))
        #expect(keys.isSubset(of: fields.all))
        #expect(try Self.keys(of: WindowProtocol.encode(message)).isSuperset(of: Self.contract.envelope))
    }

    @Test func everyOptionalServerFieldIsSentSometime() throws {
        var seen: [String: Set<String>] = [:]
        for message in Self.serverMessages {
            seen[message.type.rawValue, default: []].formUnion(try Self.keys(of: WindowProtocol.encode(message)))
        }
        for (type, fields) in Self.contract.messages where fields.direction == "server" {
            #expect(seen[type]?.subtracting(Self.contract.envelope) == fields.all, "\(type)")
        }
    }

    @Test func nodesKindsOpsAndTransitions() throws {
        #expect(try Self.keys(of: JSONEncoder().encode(ViewNode(id: "a", kind: .row))) == Set(Self.contract.node))
        #expect(Set(ViewNode.Kind.allCases.map(\.rawValue)) == Set(Self.contract.kinds))
        #expect(Set(ViewNode.Transition.allCases.map(\.rawValue)) == Set(Self.contract.transitions))
        let node = ViewNode(id: "n", kind: .row)
        let ops: [Patch] = [
            .insert(parent: "p", index: 0, node: node), .remove(id: "n"), .move(id: "n", index: 0),
            .replace(id: "n", node: node, transition: .push), .set(id: "n", props: [:]),
        ]
        var seen: [String: Set<String>] = [:]
        for op in ops {
            let written = try WindowProtocol.encode(.patch(ops: [op], seq: [:])).patchOp()
            var keys = try Self.keys(of: written)
            #expect(keys.remove(Self.contract.opField) != nil)
            let name = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(op)) as? [String: Any])[Self.contract.opField] as? String
            let writtenName = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])[Self.contract.opField] as? String
            #expect(name == op.op.rawValue && writtenName == op.op.rawValue)
            seen[name ?? "", default: []].formUnion(keys)
        }
        #expect(Set(seen.keys) == Set(Self.contract.ops.keys))
        #expect(Set(Patch.Op.allCases.map(\.rawValue)) == Set(Self.contract.ops.keys))
        for (name, fields) in Self.contract.ops { #expect(seen[name] == fields.all, "\(name)") }
    }

    @Test func theActionNamesAndTheWindowsOwnNodes() {
        #expect(Set(ActionName.standard.map(\.rawValue)) == Set(Self.contract.actions))
        typealias ID = SceneWindow.NodeID
        #expect(Set([ID.window, ID.navigationBar, ID.screen, ID.tabBar, ID.overlay]) == Set(Self.contract.windowNodes))
    }
}

extension Data {
    /// The first op of a `patch` message, as JSON.
    fileprivate func patchOp() throws -> Data {
        let message = try #require(try JSONSerialization.jsonObject(with: self) as? [String: Any])
        let ops = try #require(message["ops"] as? [Any])
        return try JSONSerialization.data(withJSONObject: ops[0])
    }
}
