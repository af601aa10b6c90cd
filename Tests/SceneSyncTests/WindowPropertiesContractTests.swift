import Foundation
import SceneSync
@testable import SceneSyncUI
import SceneSyncSQLite
import SceneSyncTesting
import Testing

/// Every node property and every field of row actions and alert buttons that SceneSync writes —
/// from the component builders, the patch helpers, and a real window with tabs (one with an icon), a badge, a back
/// button, an alert and a notice — against `Tests/Fixtures/Protocol/messages.json`, which the
/// renderer's `protocol.js` is held to as well.
@MainActor
@Suite struct WindowPropertiesContractTests {
    struct Contract: Decodable {
        let props: [String]
        let itemFields: [String]
    }

    static let contract: Contract = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Protocol/messages.json")
        return try! JSONDecoder().decode(Contract.self, from: Data(contentsOf: url))
    }()

    final class Names {
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
    }

    @Test func everyPropertyWrittenIsOnTheListAndEveryListedOneIsWritten() async throws {
        let names = Names()
        let built: [ViewNode] = [
            .barButton(id: "b", label: "B", side: .leading, role: .primary),
            .table(id: "t", label: "T", editing: true, sections: [
                .section(id: "s", header: "H", footer: "F", children: [
                    .row(id: "r", title: "T", subtitle: "S", detail: "D", image: "/i.png", countdown: Date(timeIntervalSince1970: 60),
                         time: Date(timeIntervalSince1970: 30), badge: "3")
                        .disclosure().deletable().movable().rowActions([.init("open", label: "Open")]),
                ]),
            ]),
            .form(id: "f", sections: []),
            .textField(id: "x", label: "L", value: "V", draft: "D", placeholder: "P", inputMode: .numeric).hint("H").error("E").staged(),
            .label(id: "l", label: "L", value: "V"),
            .button(id: "u", label: "U", role: .destructive, disabled: true),
            .image(id: "i", source: "/i.png", alternative: "A"),
            .text(id: "p", "P", style: .caption),
            .emptyState(id: "e", title: "T", message: "M"),
            .stack(id: "k", children: []),
            .split(id: "sp", focus: .secondary, primary: .stack(id: "p1", children: []), secondary: .stack(id: "p2", children: [
                .messageList(id: "ml", label: "Messages", earlier: .button(id: "earlier", label: "Load Earlier"), messages: [
                    .message(id: "m", sender: "Ana", text: "Hi", time: Date(timeIntervalSince1970: 90), mine: true, fromHere: true),
                ]),
                .composer(id: "c", label: "Message", value: "V", button: "Send", error: "E", disabled: true),
            ])),
        ]
        built.forEach(names.collect)
        for case let .set(_, changed) in [Patch.acceptCommit(of: "x", storedValue: "v", typed: "t"), .setError(of: "x", "e")] {
            names.props.formUnion(changed.keys)
        }

        // A real window: two tabs (Order with an icon), a badge, a pushed screen with a back button, an alert, a notice.
        let delegate = DinerAppDelegate()
        let host = try await SceneHost.launch(delegate: delegate, storage: try SQLiteStorage.inMemory())
        let order = try #require(delegate.order)
        let window = try await host.openWindow()
        try await host.perform(.select, on: MenuScreen.row("Drinks"), in: window)
        try await order.append("Soup")
        try await host.waitUntil("the badge") { window.text(SceneWindow.NodeID.tab(DinerCoordinator.TabID.order), "badge") == "1" }
        names.collect(try #require(window.view?.root))
        try await order.perform(origin: nil) { _ in [.cleared] }
        try await host.waitUntil("the notice") { window.view?.nodes(of: .notice).isEmpty == false }
        try await host.perform(.select, on: SceneWindow.NodeID.tab(DinerCoordinator.TabID.order), in: window)
        try await host.tap(OrderScreen.NodeID.clear, in: window)
        try await host.perform(.select, on: SceneWindow.NodeID.tab(DinerCoordinator.TabID.menu), in: window)
        // A notice that offers Undo.
        (window.scene?.userInterface as? SceneWindow)?.showNotice("“Soup” deleted.") {}
        let root = try #require(window.view?.root)
        for kind in [ViewNode.Kind.tab, .alert, .notice] { #expect(!ViewTree(root).nodes(of: kind).isEmpty, "\(kind)") }
        #expect(window.text(SceneWindow.NodeID.navigationBar, "back") == "Menu")
        names.collect(root)

        // What a screen sets as it sends its nodes: a row nothing selects, a field nothing commits.
        let checked = try await SceneHost.launch(delegate: InteractiveContractTests.ContractAppDelegate(),
                                                 storage: try SQLiteStorage.inMemory())
        let contractWindow = try await checked.openWindow()
        try await checked.waitUntil("the contract screen") { contractWindow.node("table") != nil }
        names.collect(try #require(contractWindow.view?.root))

        #expect(names.props == Set(Self.contract.props))
        #expect(Set(ViewNode.Property.allCases.map(\.rawValue)) == Set(Self.contract.props))
        #expect(names.items == Set(Self.contract.itemFields))
    }
}
