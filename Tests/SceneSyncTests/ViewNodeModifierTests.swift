import Foundation
@testable import SceneSyncUI
import Testing

/// A row's and a field's modifiers put on the wire exactly what the builders' parameters did:
/// each mark under its property name, each handler under its action name.
@MainActor
struct ViewNodeModifierTests {
    /// Records what the handlers were given.
    final class Calls {
        var log: [String] = []
    }

    @Test func aRowWithEveryModifierCarriesThePropsAndActionsOfTheOldBuilder() {
        let row = ViewNode.row(id: "r", title: "T", subtitle: "S", detail: "D", image: "/i.png",
                               countdown: Date(timeIntervalSince1970: 60), time: Date(timeIntervalSince1970: 30), badge: "3")
            .disclosure()
            .selected(true)
            .onSelect {}
            .onDelete {}
            .onMove { _ in }
            .rowActions([.init("open", label: "Open") {}, .init("share", label: "Share")])
        #expect(row.props == [
            "title": "T", "subtitle": "S", "detail": "D", "image": "/i.png", "countdown": 60_000, "time": 30_000, "badge": "3",
            "accessory": "disclosure", "selected": true, "deletable": true, "movable": true,
            "actions": [["name": "open", "label": "Open"], ["name": "share", "label": "Share"]],
        ])
        #expect(row.actions.names == ["delete", "move", "open", "select"], "a handler-less row action is the screen's to answer")
    }

    @Test func aPlainRowCarriesOnlyItsContent() {
        let row = ViewNode.row(id: "r", title: "T")
        #expect(row.props == ["title": "T"])
        #expect(row.actions.isEmpty)
    }

    /// Each modifier on its own, and what it adds to a plain row.
    nonisolated static let rowModifiers: [(name: String, modify: @MainActor @Sendable (ViewNode) -> ViewNode, props: [String: ViewValue], actions: [ActionName])] = [
        ("onSelect", { $0.onSelect {} }, [:], [.select]),
        ("onDelete", { $0.onDelete {} }, ["deletable": true], [.delete]),
        ("onMove", { $0.onMove { _ in } }, ["movable": true], [.move]),
        ("deletable", { $0.deletable() }, ["deletable": true], []),
        ("movable", { $0.movable() }, ["movable": true], []),
        ("disclosure", { $0.disclosure() }, ["accessory": "disclosure"], []),
        ("selected", { $0.selected() }, ["selected": true], []),
        ("selected(false)", { $0.selected(false) }, [:], []),
        ("rowActions", { $0.rowActions([.init("pin", label: "Pin") {}]) }, ["actions": [["name": "pin", "label": "Pin"]]], ["pin"]),
        ("rowActions([])", { $0.rowActions([]) }, [:], []),
    ]

    @Test(arguments: rowModifiers.indices)
    func eachRowModifierAddsWhatItsParameterDid(index: Int) {
        let (name, modify, props, actions) = Self.rowModifiers[index]
        let row = modify(.row(id: "r", title: "T"))
        #expect(row.props == props.merging(["title": "T"]) { $1 }, "\(name)")
        #expect(row.actions.names == actions, "\(name)")
        #expect(row.id == "r" && row.kind == .row, "\(name)")
    }

    @Test func rowActionsAddToTheMenuAndEachHandlerGetsItsValue() async throws {
        let calls = Calls()
        let row = ViewNode.row(id: "r", title: "T")
            .rowActions([.init("pin", label: "Pin") { calls.log.append("pin") }])
            .rowActions([.init("open", label: "Open") { calls.log.append("open") }])
            .onSelect { calls.log.append("select") }
            .onDelete { calls.log.append("delete") }
            .onMove { index in calls.log.append("move \(index)") }
        #expect(row[.actions] == [["name": "pin", "label": "Pin"], ["name": "open", "label": "Open"]])
        for name: ActionName in ["pin", "open", .select, .delete] { try await row.actions[name]?(nil) }
        try await row.actions[.move]?(.int(3))
        #expect(calls.log == ["pin", "open", "select", "delete", "move 3"])
        await #expect(throws: ActionValueError.self) { try await row.actions[.move]?(.string("3")) }
    }

    @Test func aFieldWithEveryModifierCarriesThePropsAndActionsOfTheOldBuilder() async throws {
        let calls = Calls()
        let field = ViewNode.textField(id: "x", label: "L", value: "V", draft: "D", placeholder: "P", inputMode: .numeric)
            .hint("H")
            .error("E")
            .staged()
            .onCommit { text in calls.log.append(text) }
        #expect(field.props == [
            "label": "L", "value": "V", "draft": "D", "placeholder": "P", "inputMode": "numeric", "hint": "H", "error": "E", "staged": true,
        ])
        #expect(field.actions.names == [.commit])
        try await field.actions[.commit]?(.string("typed"))
        #expect(calls.log == ["typed"])
    }

    @Test func aFieldWithoutModifiersOrWithNilOnesCarriesOnlyItsContent() {
        let plain = ViewNode.textField(id: "x", label: "L", value: "V")
        #expect(plain.props == ["label": "L", "value": "V", "inputMode": "text"])
        #expect(plain.actions.isEmpty)
        #expect(plain.hint(nil).error(nil) == plain)
        #expect(plain.error("E").error(nil)[.error] == nil, "nil takes an error away")
    }

    @Test func aRowModifierOnAFieldStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = ViewNode.textField(id: "x", label: "L", value: "V").onDelete {}
        }
    }
}
