import Foundation
@testable import SceneSyncServer
@testable import SceneSyncUI
import Testing

/// The Swift side of the window protocol against `Tests/Fixtures/Protocol/messages.json`, which the
/// renderer's `protocol.js` is held to as well (`Tests/Browser/test_protocol_contract.py`): a
/// message type, field, node kind, op, transition, property or action name on one side only fails.
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
        .welcome(session: "s", app: "a", title: "t"),
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
            var keys = try Self.keys(of: WindowProtocol.encode(.patch(ops: [op], seq: [:])).patchOp())
            #expect(keys.remove(Self.contract.opField) != nil)
            let name = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(op)) as? [String: Any])[Self.contract.opField] as? String
            seen[name ?? "", default: []].formUnion(keys)
        }
        #expect(Set(seen.keys) == Set(Self.contract.ops.keys))
        for (name, fields) in Self.contract.ops { #expect(seen[name] == fields.all, "\(name)") }
    }

    @Test func theActionNamesAndTheWindowsOwnNodes() {
        #expect(Set(ActionName.standard.map(\.rawValue)) == Set(Self.contract.actions))
        typealias ID = SceneWindow.NodeID
        #expect(Set([ID.window, ID.navigationBar, ID.screen, ID.tabBar, ID.overlay]) == Set(Self.contract.windowNodes))
    }

    /// Every property any builder, the window or a patch helper writes, against the list.
    @MainActor @Test func theProperties() throws {
        var props: Set<String> = []
        var items: Set<String> = []
        func collect(_ node: ViewNode) {
            props.formUnion(node.props.keys)
            for key in ["actions", "buttons"] {
                if case let .array(entries)? = node.props[key] {
                    for case let .object(entry) in entries { items.formUnion(entry.keys) }
                }
            }
            node.children.forEach(collect)
        }
        let nodes: [ViewNode] = [
            .barButton(id: "b", label: "B", side: .leading, role: .primary),
            .table(id: "t", label: "T", editing: true, sections: [
                .section(id: "s", header: "H", footer: "F", children: [
                    .row(id: "r", title: "T", subtitle: "S", detail: "D", image: "/i.png", disclosure: true,
                         onDelete: {}, onMove: { _ in }, actions: [.init("open", label: "Open") {}]),
                ]),
            ]),
            .form(id: "f", sections: []),
            .textField(id: "x", label: "L", value: "V", draft: "D", placeholder: "P", inputMode: .numeric, error: "E"),
            .label(id: "l", label: "L", value: "V"),
            .button(id: "u", label: "U", role: .destructive, disabled: true),
            .image(id: "i", source: "/i.png", alternative: "A"),
            .text(id: "p", "P", style: .caption),
            .emptyState(id: "e", title: "T", message: "M"),
            .stack(id: "k", children: []),
            Alert(id: "a", title: "T", message: "M", actions: [.init("OK", role: .cancel)]).makeNode(),
        ]
        nodes.forEach(collect)
        for case let .set(_, changed) in [Patch.acceptCommit(of: "x", storedValue: "v", typed: "t"), .setError(of: "x", "e")] {
            props.formUnion(changed.keys)
        }
        // What the window itself writes: its title, the navigation bar's back title, tabs, screens, notices.
        props.formUnion(["title", "back", "badge", "selected", "route", "message"])
        #expect(props == Set(Self.contract.props))
        #expect(items == Set(Self.contract.itemFields))
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
