import Foundation
import Logging
import SceneSync
@testable import SceneSyncUI

/// A tiny app for the server's tests, made with the core's public API only: a list of lines, an
/// "Add" bar button that sends an intent, and a "New Window" bar button.
struct TallyState: ModelState {
    struct Line: Codable, Equatable, Sendable {
        var number: Int
        var text: String
    }

    enum Event: UpdateEvent {
        case lineAdded(Line, index: Int)
    }

    var lines: [Line] = []

    init() {}

    init(records: RecordSet) throws {
        lines = try records.decode("lines", as: Line.self).values.sorted { $0.number < $1.number }
    }

    mutating func apply(_ event: Event) -> [RecordChange] {
        switch event {
        case let .lineAdded(line, index):
            lines.insert(line, at: min(index, lines.count))
            return [.save(collection: "lines", key: String(line.number), value: line)]
        }
    }
}

/// Opens the tally at launch and remembers the sessions it is told were discarded.
@MainActor
final class TallyAppDelegate: ApplicationDelegate {
    nonisolated static let app = "tally"
    private(set) var controller: ModelController<TallyState>?
    private(set) var discarded: [SceneSession.ID] = []
    private(set) var launchCount = 0
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func applicationDidFinishLaunching(_ application: Application) async throws {
        launchCount += 1
        controller = try await ModelController(app: Self.app, storage: application.storage, logger: logger)
    }

    func application(_ application: Application, configurationForConnecting session: SceneSession,
                     options: ConnectionOptions) -> SceneConfiguration {
        guard let controller else { preconditionFailure("Scenes connect after launch") }
        return SceneConfiguration(name: "Main") { TallySceneDelegate(controller: controller) }
    }

    func application(_ application: Application, didDiscardSceneSessions sessions: [SceneSession]) async {
        discarded += sessions.map(\.id)
    }
}

/// One tally window: a navigation stack with the lines screen, titled after the activity the
/// window was opened for, if any.
@MainActor
final class TallySceneDelegate: SceneDelegate {
    static let activityType = "com.scenesync.tests.tally"
    let controller: ModelController<TallyState>

    init(controller: ModelController<TallyState>) {
        self.controller = controller
    }

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {
        let window = SceneWindow(scene: scene, title: "Tally")
        let navigation = NavigationController()
        let screen = TallyScreen(controller: controller, title: options.activity?.title ?? "Tally")
        scene.task {
            await navigation.setScreens([screen])
            await window.setRoot(navigation)
        }
    }

    func stateRestorationActivity(for scene: Scene) -> SceneActivity? {
        SceneActivity(type: Self.activityType)
    }
}

/// The lines, one row each, inserted as the events come.
@MainActor
final class TallyScreen: ScreenController {
    enum NodeID {
        static let add = "add"
        static let newWindow = "newWindow"
        static let table = "lines"
        static let section = "lines-section"
        static func row(_ number: Int) -> String { "line-\(number)" }
    }

    let controller: ModelController<TallyState>
    private var lines: [TallyState.Line] = []

    init(controller: ModelController<TallyState>, title: String) {
        self.controller = controller
        super.init(route: Route("lines"), title: title)
        setBarButtons([
            .barButton(id: NodeID.newWindow, label: "New Window", side: .leading) { [weak self] in
                self?.window?.requestNewWindow(with: SceneActivity(type: TallySceneDelegate.activityType, title: "Opened"))
            },
            .barButton(id: NodeID.add, label: "Add", role: .primary) { [weak self] in try await self?.addLine() },
        ])
    }

    override func load() async {
        let snapshot = await controller.snapshot()
        lines = snapshot.state.lines
        follow(controller, from: snapshot.sequence) { [weak self] envelope in
            self?.apply(envelope.event)
        }
    }

    override func makeContent() -> [ViewNode] {
        [.table(id: NodeID.table, label: "Lines", sections: [.section(id: NodeID.section, children: lines.map(Self.row))])]
    }

    private func addLine() async throws {
        try await controller.perform(origin: origin) { state in
            let number = state.lines.count + 1
            return [.lineAdded(.init(number: number, text: "Line \(number)"), index: state.lines.count)]
        }
    }

    private func apply(_ event: TallyState.Event) {
        switch event {
        case let .lineAdded(line, index):
            lines.insert(line, at: min(index, lines.count))
            update([.insert(parent: NodeID.section, index: index, node: Self.row(line))])
        }
    }

    private static func row(_ line: TallyState.Line) -> ViewNode {
        .row(id: NodeID.row(line.number), title: line.text)
    }
}
