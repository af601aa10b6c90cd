import Foundation
import Hummingbird
import NIOCore
import SceneSync
import SceneSyncServer
import ServiceLifecycle
import Synchronization

/// What Tally brings beside its windows, as a real app would: a JSON API at root paths for a
/// native client (`GET /lines`, `POST /lines`), a folder of assets, and a service whose start and
/// graceful stop are recorded, so tests see where they fall in the server's shutdown.
enum TallyParts {
    struct NewLine: Decodable { let text: String }
    struct Added: ResponseEncodable { let number: Int }
    struct Lines: ResponseEncodable { let lines: [String] }

    /// The folder served at `/tally/assets/`: one text file.
    static let assets: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scenesync-tally-assets-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? Data("Tally's own asset.\n".utf8).write(to: folder.appendingPathComponent("note.txt"))
        return folder
    }()

    @MainActor
    static func make(_ delegate: TallyAppDelegate, _ launched: HostedApp.LaunchedApp, journal: ShutdownJournal) throws -> HostedApp.Parts {
        guard let controller = delegate.controller else { throw TallyNotLaunched() }
        return HostedApp.Parts(
            routes: { router in
                router.get("/lines") { _, _ in
                    Lines(lines: await controller.state.lines.map(\.text))
                }
                router.post("/lines") { request, context in
                    let line = try await request.decode(as: NewLine.self, context: context)
                    guard !line.text.isEmpty else { throw HTTPError(.badRequest, message: "A line needs text.") }
                    try await controller.perform(origin: nil) { state in
                        [.lineAdded(.init(number: state.lines.count + 1, text: line.text), index: state.lines.count)]
                    }
                    return Added(number: await controller.state.lines.count)
                }
            },
            assets: assets,
            services: [JournaledService(journal: journal, connectedWindows: { launched.application.connectedScenes.count })],
            widget: .following(controller) { state in
                WidgetSummary(title: "Tally", lines: [.init(label: "Lines", text: "\(state.lines.count)")])
            })
    }
}

/// Tally's application did not open its controller.
struct TallyNotLaunched: Error {}

/// What happened during a server's run, in order, from the parts that record it.
final class ShutdownJournal: Sendable {
    private let entries = Mutex<[String]>([])

    func note(_ entry: String) { entries.withLock { $0.append(entry) } }

    var all: [String] { entries.withLock { $0 } }
}

/// An app's long-running service: notes when it starts, and when it is asked to stop how many
/// windows were still connected.
struct JournaledService: Service {
    let journal: ShutdownJournal
    let connectedWindows: @MainActor @Sendable () -> Int

    func run() async throws {
        journal.note("service started")
        try? await gracefulShutdown()
        journal.note("service stopping with \(await connectedWindows()) windows connected")
    }
}
