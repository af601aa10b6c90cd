import Foundation
import SceneSync

/// Records every call it gets, in order, across all scenes of an application.
@MainActor
final class CallLog {
    var calls: [String] = []
}

@MainActor
final class RecordingAppDelegate: ApplicationDelegate {
    let log: CallLog
    var discarded: [[SceneSession.ID]] = []
    var activity: (@MainActor (Scene) -> SceneActivity?)?

    init(log: CallLog) { self.log = log }

    func applicationDidFinishLaunching(_ application: Application) async throws {
        log.calls.append("didFinishLaunching")
    }

    func application(_ application: Application, configurationForConnecting session: SceneSession, options: ConnectionOptions) -> SceneConfiguration {
        let log = self.log
        let activity = self.activity
        let name = options.activity?.type == "detail" ? "Detail" : (session.configurationName ?? "Main")
        return SceneConfiguration(name: name) { RecordingSceneDelegate(log: log, activity: activity) }
    }

    func application(_ application: Application, didDiscardSceneSessions sessions: [SceneSession]) async {
        log.calls.append("didDiscard \(sessions.count)")
        discarded.append(sessions.map(\.id))
    }
}

@MainActor
final class RecordingSceneDelegate: SceneDelegate {
    let log: CallLog
    let activity: (@MainActor (Scene) -> SceneActivity?)?
    var connectedWith: (session: SceneSession, options: ConnectionOptions)?

    init(log: CallLog, activity: (@MainActor (Scene) -> SceneActivity?)?) {
        self.log = log
        self.activity = activity
    }

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {
        connectedWith = (session, options)
        log.calls.append("willConnect")
    }
    func sceneWillEnterForeground(_ scene: Scene) { log.calls.append("willEnterForeground") }
    func sceneDidBecomeActive(_ scene: Scene) { log.calls.append("didBecomeActive") }
    func sceneWillResignActive(_ scene: Scene) { log.calls.append("willResignActive") }
    func sceneDidEnterBackground(_ scene: Scene) { log.calls.append("didEnterBackground") }
    func sceneDidDisconnect(_ scene: Scene) { log.calls.append("didDisconnect") }
    func stateRestorationActivity(for scene: Scene) -> SceneActivity? { activity?(scene) }
}
