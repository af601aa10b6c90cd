import Foundation
import SceneSync
@testable import SceneSyncUI
import SceneSyncSQLite
import SceneSyncTesting
import Testing

/// A screen offers only what it answers: a row nothing selects is drawn still, and a Delete, a row
/// action, a button or a field nothing answers is taken away before any window sees it.
@MainActor
struct InteractiveContractTests {
    /// One screen of every kind of node, some answered and some not.
    final class ContractScreen: ScreenController {
        static let keyed = KeyedRows<String>(prefix: "keyed-", format: { $0 }, parse: { String($0) })
        var inserted = 0

        init() {
            super.init(route: Route("contract"), title: "Contract")
            handleRows(Self.keyed, onSelect: { _ in })
            setBarButtons([
                .barButton(id: "bar-answered", label: "Done", onTap: {}),
                .barButton(id: "bar-unanswered", label: "Share"),
            ])
        }

        override func makeContent() -> [ViewNode] {
            [.table(id: "table", label: "Things", sections: [.section(id: "section", children: [
                .row(id: "selected", title: "Answers select").onSelect {},
                .row(id: "still", title: "Answers nothing"),
                .row(id: Self.keyed.id(for: "a"), title: "Keyed"),
                .row(id: "deletable", title: "Says deletable").deletable()
                    .rowActions([ViewNode.RowAction("share", label: "Share"), ViewNode.RowAction("pin", label: "Pin") {}]),
            ])]),
            .button(id: "button-answered", label: "Go", onTap: {}),
            .button(id: "button-unanswered", label: "Nowhere"),
            .textField(id: "field-unanswered", label: "Name", value: ""),
            ]
        }

        func insertStillRow() {
            inserted += 1
            update([.insert(parent: "section", index: 0, node: .row(id: "inserted-\(inserted)", title: "Inserted"))])
        }
    }

    /// A window showing one screen.
    final class OneScreenSceneDelegate<Screen: ScreenController>: SceneDelegate {
        let screen: Screen

        init(screen: Screen) {
            self.screen = screen
        }

        func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {
            let window = SceneWindow(scene: scene, title: screen.title)
            let navigation = NavigationController()
            scene.task { [screen] in
                await navigation.setScreens([screen])
                await window.setRoot(navigation)
            }
        }
    }

    final class ContractAppDelegate: ApplicationDelegate {
        func application(_ application: Application, configurationForConnecting session: SceneSession,
                         options: ConnectionOptions) -> SceneConfiguration {
            SceneConfiguration(name: "Main") { OneScreenSceneDelegate(screen: ContractScreen()) }
        }
    }

    /// A screen whose keyed rows answer select, or only a row action.
    final class KeyedScreen: ScreenController {
        init(answersSelect: Bool) {
            super.init(route: Route("keyed"), title: "Keyed")
            if answersSelect {
                handleRows(ContractScreen.keyed, onSelect: { _ in })
            } else {
                handleRows(ContractScreen.keyed, actions: [ActionName("pin"): { _ in }])
            }
        }

        override func makeContent() -> [ViewNode] {
            [.table(id: "table", label: "Keyed", sections: [.section(id: "section", children: [])])]
        }
    }

    /// Each window opened gets the next of `answers`' screens.
    final class KeyedAppDelegate: ApplicationDelegate {
        var answers: [Bool]
        private(set) var screens: [KeyedScreen] = []

        init(answers: [Bool]) {
            self.answers = answers
        }

        func application(_ application: Application, configurationForConnecting session: SceneSession,
                         options: ConnectionOptions) -> SceneConfiguration {
            SceneConfiguration(name: "Main") { [self] in
                let screen = KeyedScreen(answersSelect: answers.removeFirst())
                screens.append(screen)
                return OneScreenSceneDelegate(screen: screen)
            }
        }
    }

    func open() async throws -> (SceneHost, HostedWindow) {
        let host = try await SceneHost.launch(delegate: ContractAppDelegate(), storage: try SQLiteStorage.inMemory())
        let window = try await host.openWindow()
        try await host.waitUntil("the screen") { window.node("table") != nil }
        return (host, window)
    }

    @Test func aRowNothingSelectsIsDrawnStillAndOneThatIsAnsweredIsNot() async throws {
        let (_, window) = try await open()
        #expect(window.node("selected")?.props["selectable"] == nil)
        #expect(window.node("still")?.props["selectable"] == .bool(false))
        #expect(window.node(ContractScreen.keyed.id(for: "a"))?.props["selectable"] == nil, "keyed rows answer through handleRows")
    }

    @Test func whatNothingAnswersIsTakenAwayAndWhatIsAnsweredStays() async throws {
        let (_, window) = try await open()
        let row = try #require(window.node("deletable"))
        #expect(row.props["deletable"] == nil)
        #expect(row.props["actions"] == .array([.object(["name": .string("pin"), "label": .string("Pin")])]))
        #expect(window.node("button-answered")?.props["disabled"] == nil)
        #expect(window.node("button-unanswered")?.props["disabled"] == .bool(true))
        #expect(window.node("field-unanswered")?.props["readOnly"] == .bool(true))
        #expect(window.node("bar-answered")?.props["disabled"] == nil)
        #expect(window.node("bar-unanswered")?.props["disabled"] == .bool(true))
    }

    @Test func aRowInsertedByAPatchIsCheckedToo() async throws {
        let (host, window) = try await open()
        let screen = try #require(window.delegate(as: OneScreenSceneDelegate<ContractScreen>.self)).screen
        screen.insertStillRow()
        try await host.waitUntil("the inserted row") { window.node("inserted-1") != nil }
        #expect(window.node("inserted-1")?.props["selectable"] == .bool(false))
    }

    @Test func anActionOnAStillRowIsAnUnknownActionAndChangesNothing() async throws {
        let (host, window) = try await open()
        await #expect(throws: ScreenError.unknownAction(node: "still", name: "select")) {
            try await host.perform(.select, on: "still", in: window)
        }
        await #expect(throws: ScreenError.unknownAction(node: "button-unanswered", name: "tap")) {
            try await host.perform(.tap, on: "button-unanswered", in: window)
        }
    }

    /// Windows are sent one patch array alike (as a list's are, from `SharedModel.once`), and a
    /// check that passed is not done again for the next screen: only for one that checks rows alike.
    @Test func theSamePatchesAreCheckedAgainForAScreenWhoseRowsAnswerOtherwise() async throws {
        let delegate = KeyedAppDelegate(answers: [true, true, false, true])
        let host = try await SceneHost.launch(delegate: delegate, storage: try SQLiteStorage.inMemory())
        var windows: [HostedWindow] = []
        for _ in 0..<4 {
            let window = try await host.openWindow()
            try await host.waitUntil("the screen") { window.node("table") != nil }
            windows.append(window)
        }
        let row = ContractScreen.keyed.id(for: "b")
        let patches: [Patch] = [.insert(parent: "section", index: 0, node: .row(id: row, title: "B"))]
        for screen in delegate.screens { screen.update(patches) }
        try await host.waitUntil("the row in every window") { windows.allSatisfy { $0.node(row) != nil } }
        #expect(windows.map { $0.node(row)?.props["selectable"] } == [nil, nil, .bool(false), nil])
    }
}
