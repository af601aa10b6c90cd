import Foundation
public import Logging

/// The process side of SceneSync, as `UIApplication`: it launches once, connects a scene for every
/// window, moves scenes through their lifecycle, saves their restoration activities, and discards
/// sessions whose windows were closed for good.
///
/// A host (the server, or the headless host in `SceneSyncTesting`) owns the application and tells
/// it what each window does. Every lifecycle call is logged, in order, with the scene's id.
///
/// ```swift
/// let application = Application(delegate: AppDelegate(), storage: storage, logger: logger)
/// try await application.launch()
/// let scene = try await application.connect(session: savedID)
/// try await application.move(scene, to: .foregroundActive)
/// ```
@MainActor
public final class Application {
    /// Tuning for an application.
    public struct Options: Sendable {
        /// Sessions not seen for longer than this are discarded at the next launch.
        public var sessionExpiry: Duration
        /// How long a scene's restoration activity may wait to be saved after it changed: changes
        /// within it are saved together, once.
        public var restorationSaveDelay: Duration
        /// The most sessions kept. A new window beyond it makes room by discarding the sessions
        /// of windows not connected, least recently seen first; connected windows keep theirs,
        /// on this node or, on a storage shared by nodes, on any other.
        public var maximumSessions: Int
        /// The most sessions kept for one client (see ``Application/connect(session:options:client:)``).
        /// A new window beyond it makes room by discarding that client's sessions of windows not
        /// connected, least recently seen first; if all of them are connected, it is refused.
        public var maximumSessionsPerClient: Int

        /// Creates options.
        public init(
            sessionExpiry: Duration = .seconds(30 * 24 * 60 * 60), restorationSaveDelay: Duration = .milliseconds(100),
            maximumSessions: Int = 10_000, maximumSessionsPerClient: Int = 2_048
        ) {
            self.sessionExpiry = sessionExpiry
            self.restorationSaveDelay = restorationSaveDelay
            self.maximumSessions = max(1, maximumSessions)
            self.maximumSessionsPerClient = max(1, maximumSessionsPerClient)
        }
    }

    /// The application delegate.
    public let delegate: any ApplicationDelegate
    /// Where sessions, drafts and models are kept.
    public nonisolated let storage: any SceneSyncStorage
    /// The application's options.
    public let options: Options
    /// The application's logger; scene lifecycle lines carry `scene.id` metadata.
    public nonisolated let logger: Logger

    /// The scenes connected now, by session id.
    public private(set) var connectedScenes: [SceneSession.ID: Scene] = [:]
    private var connecting: Set<SceneSession.ID> = []
    /// How many sessions are stored: counted at launch, and kept since.
    private var storedSessionCount = 0
    /// Who each session connected from in this process, and each client's sessions.
    private var clientOfSession: [SceneSession.ID: String] = [:]
    private var sessionsOfClient: [String: Set<SceneSession.ID>] = [:]
    /// Sessions being deleted now, so that no one picks them again meanwhile.
    private var discarding: Set<SceneSession.ID> = []
    /// When sessions not seen for ``Options/sessionExpiry`` were last looked for.
    private var lastExpiry = ContinuousClock.now
    /// Scenes whose restoration activity changed and waits to be saved.
    var restorationSavesDue: Set<SceneSession.ID> = []
    /// The action each session's window is carrying out now, if any: its next waits for it.
    var actionsUnderway: [SceneSession.ID: ActionTurn] = [:]
    /// The `ref` of the last action each session's window carried out in this process.
    var lastActionRefs: [SceneSession.ID: Int] = [:]
    private var isLaunched = false

    /// Creates an application. Nothing happens until ``launch()``.
    public init(delegate: any ApplicationDelegate, storage: any SceneSyncStorage, options: Options = .init(), logger: Logger) {
        self.delegate = delegate
        self.storage = storage
        self.options = options
        self.logger = logger
    }

    /// Launches: calls ``ApplicationDelegate/applicationDidFinishLaunching(_:)``, then discards the
    /// sessions whose windows went away while no application was running (marked closed, or not
    /// seen for longer than ``Options/sessionExpiry``) and reports them to the delegate.
    public func launch() async throws {
        guard !isLaunched else { throw ApplicationError.alreadyLaunched }
        isLaunched = true
        logger.info("applicationDidFinishLaunching")
        try await delegate.applicationDidFinishLaunching(self)
        // Marked after the delegate launched, so that a launch that fails is not taken for a crash.
        // Also forgets which windows were connected to this node: none is now.
        let crashed = try await storage.setRunning(true)
        let cutoff = Date().addingTimeInterval(-options.sessionExpiry.timeInterval)
        let stored = try await storage.allSessions()
        let elsewhere = try await storage.cluster?.sessionsConnectedElsewhere() ?? []
        let gone = stored.filter { $0.closedAt != nil || ($0.lastSeenAt < cutoff && !elsewhere.contains($0.id)) }
        storedSessionCount = stored.count
        try await discardStoredSessions(gone)
        lastExpiry = .now
        if crashed {
            let kept = stored.filter { $0.closedAt == nil && $0.lastSeenAt >= cutoff }
            logger.warning("The last run ended without stopping; recovered from storage", metadata: [
                "sessions": "\(kept.count)",
                "sessionsWithPlace": "\(kept.filter { $0.stateRestorationActivity != nil }.count)",
            ])
        }
    }

    /// Disconnects every scene and records that the application stopped cleanly, so that the next
    /// ``launch()`` does not report a crash. Call it last, when the process is about to stop.
    public func terminate() async {
        await disconnectAll()
        do {
            _ = try await storage.setRunning(false)
        } catch {
            logger.error("Could not record a clean stop", metadata: ["error": "\(error)"])
        }
    }

    /// Connects a window's scene. With the `id` of a stored session the window is restored; with no
    /// id, or one not stored, it gets a new session. A session already connected to another window
    /// (a duplicated browser tab) is not shared: the new window gets a session of its own, restored
    /// from the other window's current activity.
    ///
    /// The scene is left in ``SceneLifecycle/State/background``; ``move(_:to:)`` brings it forward.
    ///
    /// - Parameters:
    ///   - id: The session to connect again, or `nil` for a new window.
    ///   - connectionOptions: What the window was opened for, and the browser profile it is in.
    ///   - client: Who connects, such as the window's network address; sessions are counted
    ///     against ``Options/maximumSessionsPerClient`` per client, and the scene's
    ///     ``ConnectionOptions/client`` says it.
    /// - Throws: ``ApplicationError/tooManySessions(client:)`` when the client's windows all are
    ///   connected and it has as many sessions as it may; what storage throws.
    public func connect(
        session id: SceneSession.ID?, options connectionOptions: ConnectionOptions = .init(), client: String? = nil
    ) async throws -> Scene {
        guard isLaunched else { throw ApplicationError.notLaunched }
        var session: SceneSession
        var isNew = true
        if let id, connectedScenes[id] != nil || connecting.contains(id) {
            let original = connectedScenes[id]
            let activity = original.flatMap { $0.delegate?.stateRestorationActivity(for: $0) }
                ?? original?.session.stateRestorationActivity
            session = SceneSession(role: original?.session.role ?? .windowApplication, stateRestorationActivity: activity)
            connecting.insert(session.id)
        } else if let id {
            // Reserve the id before waiting on storage, so a second window with it is a duplicate.
            connecting.insert(id)
            let stored: SceneSession?
            do { stored = try await storage.session(id: id) } catch {
                connecting.remove(id)
                throw error
            }
            if let stored, stored.closedAt == nil {
                session = stored
                isNew = false
            } else {
                connecting.remove(id)
                session = SceneSession()
                connecting.insert(session.id)
            }
        } else {
            session = SceneSession()
            connecting.insert(session.id)
        }
        defer { connecting.remove(session.id) }
        if isNew {
            if let client { try await makeRoom(for: client) }
            try await expireSessionsIfDue()
            try await makeRoomForNewSession()
        }

        var connectionOptions = connectionOptions
        if let client { connectionOptions.client = client }
        let configuration = delegate.application(self, configurationForConnecting: session, options: connectionOptions)
        logger.info("configurationForConnecting", metadata: ["scene.id": "\(session.id)", "configuration": "\(configuration.name)"])
        session.configurationName = configuration.name
        session.lastSeenAt = Date()
        try await storage.saveSession(session)
        if let cluster = storage.cluster {
            do {
                try await cluster.setConnected(true, session: session.id)
            } catch {
                // The window works without it; only another node making room might not spare it.
                logger.warning("Could not record that a window connected", metadata: ["scene.id": "\(session.id)", "error": "\(error)"])
            }
        }
        if isNew { storedSessionCount += 1 }
        if let client { attribute(session.id, to: client) }
        let drafts = try await storage.drafts(session: session.id)

        let scene = Scene(session: session, connectionOptions: connectionOptions,
                          drafts: SceneDrafts(session: session.id, storage: storage, values: drafts))
        scene.delegate = configuration.makeDelegate()
        scene.restorationActivityChanged = { [weak self] scene in self?.scheduleRestorationSave(for: scene) }
        connectedScenes[session.id] = scene
        try await apply(.connect, to: scene)
        return scene
    }

    /// Moves a connected scene to `state` through UIKit's legal transitions, calling its delegate
    /// at each step: to ``SceneLifecycle/State/foregroundActive`` when its window is shown and
    /// focused, ``SceneLifecycle/State/background`` when hidden. Entering the background saves the
    /// restoration activity.
    ///
    /// - Throws: ``ApplicationError/notConnected(_:)`` for a disconnected scene.
    public func move(_ scene: Scene, to state: SceneLifecycle.State) async throws {
        guard state != .disconnected else { return await disconnect(scene) }
        try await inTurn(for: scene) {
            guard scene.activationState != .disconnected else { throw ApplicationError.notConnected(scene.session.id) }
            for transition in scene.lifecycle.path(to: state) {
                try await self.apply(transition, to: scene)
            }
        }
    }

    /// Disconnects a scene whose window went away (a closed connection, a reload): saves its
    /// restoration activity, calls `sceneDidDisconnect`, and frees its delegate and observation
    /// tasks. The session, its drafts and all user data are kept. Disconnecting a scene that is
    /// disconnecting already waits for that to finish; a disconnected scene is left as it is.
    public func disconnect(_ scene: Scene) async {
        try? await inTurn(for: scene) {
            guard scene.activationState != .disconnected, self.connectedScenes[scene.session.id] === scene else { return }
            await scene.userInterface?.sceneWillDisconnect()
            for transition in scene.lifecycle.path(to: .disconnected) {
                if transition == .disconnect { try? await self.saveRestorationActivity(for: scene) }
                try? await self.apply(transition, to: scene)
            }
            scene.releaseUI()
            self.connectedScenes[scene.session.id] = nil
            await self.recordDisconnected(scene.session.id)
        }
    }

    /// Tells the other nodes that the window of `id` is no longer connected here, so that its
    /// session may be discarded to make room (see ``SceneSyncCluster``).
    private func recordDisconnected(_ id: SceneSession.ID) async {
        guard let cluster = storage.cluster else { return }
        do {
            try await cluster.setConnected(false, session: id)
        } catch {
            logger.warning("Could not record that a window disconnected", metadata: ["scene.id": "\(id)", "error": "\(error)"])
        }
    }

    /// The sessions that must not be discarded now: those of windows connected here or to another
    /// node, connecting, or being discarded.
    private func sessionsInUse() async throws -> Set<SceneSession.ID> {
        let elsewhere = try await storage.cluster?.sessionsConnectedElsewhere() ?? []
        return elsewhere.union(connectedScenes.keys).union(connecting).union(discarding)
    }

    /// Runs `change` once every lifecycle change already started for `scene` has finished, so that
    /// two changes never interleave at their suspension points (a window hidden while the server
    /// shuts down, say) and each one plans its transitions from the state the last one left.
    ///
    /// A delegate must not await a lifecycle change of its own scene from a lifecycle callback.
    private func inTurn(for scene: Scene, _ change: @escaping @MainActor () async throws -> Void) async throws {
        let previous = scene.lifecycleTurn
        let turn = Task { @MainActor in
            await previous?.value
            try await change()
        }
        let waited = Task { _ = await turn.result }
        scene.lifecycleTurn = waited
        let result = await turn.result
        // The last turn, once over, is let go: a scene lives as long as its window.
        if scene.lifecycleTurn == waited { scene.lifecycleTurn = nil }
        try result.get()
    }

    /// Discards sessions whose windows were closed for good: disconnects any still connected,
    /// deletes the sessions and their drafts, and reports them to the delegate.
    public func discard(_ ids: [SceneSession.ID]) async throws {
        var sessions: [SceneSession] = []
        for id in ids {
            if let scene = connectedScenes[id] {
                await disconnect(scene)
                sessions.append(scene.session)
            } else if let stored = try await storage.session(id: id) {
                sessions.append(stored)
            }
        }
        try await discardStoredSessions(sessions)
    }

    /// Asks the scene's delegate for its restoration activity and saves it on the session.
    public func saveRestorationActivity(for scene: Scene) async throws {
        // The delegate is asked and let go before the write: a scene disconnecting meanwhile
        // releases it at once.
        guard let activity = scene.delegate.map({ $0.stateRestorationActivity(for: scene) }) else { return }
        try await store(activity, for: scene)
    }

    func store(_ activity: SceneActivity?, for scene: Scene) async throws {
        scene.session.stateRestorationActivity = activity
        scene.session.lastSeenAt = Date()
        try await storage.saveSession(scene.session)
        logger.debug("stateRestorationActivity saved", metadata: [
            "scene.id": "\(scene.session.id)",
            "activity": "\(scene.session.stateRestorationActivity?.type ?? "none")",
        ])
    }

    /// Saves the scene's restoration activity shortly, once for every change within
    /// ``Options/restorationSaveDelay``, and only if it differs from the one saved: so that a
    /// window killed with the process (`kill -9`) comes back where it was.
    private func scheduleRestorationSave(for scene: Scene) {
        let id = scene.session.id
        guard restorationSavesDue.insert(id).inserted else { return }
        Task { [weak self, weak scene, delay = options.restorationSaveDelay] in
            try? await Task.sleep(for: delay)
            guard let self else { return }
            self.restorationSavesDue.remove(id)
            guard let scene, scene.activationState != .disconnected, self.connectedScenes[id] === scene,
                  let activity = scene.delegate.map({ $0.stateRestorationActivity(for: scene) }),
                  activity != scene.session.stateRestorationActivity else { return }
            do {
                try await self.store(activity, for: scene)
            } catch {
                self.logger.warning("Could not save a scene's restoration activity", metadata: ["scene.id": "\(id)", "error": "\(error)"])
            }
        }
    }

    /// Disconnects every scene, saving their activities; for a graceful shutdown.
    public func disconnectAll() async {
        for scene in connectedScenes.values.sorted(by: { $0.session.id < $1.session.id }) {
            await disconnect(scene)
        }
    }

    private func apply(_ transition: SceneLifecycle.Transition, to scene: Scene) async throws {
        let callback = try scene.lifecycle.apply(transition)
        logger.info("\(callback.rawValue)", metadata: ["scene.id": "\(scene.session.id)"])
        guard let delegate = scene.delegate else { return }
        switch callback {
        case .willConnect:
            delegate.scene(scene, willConnectTo: scene.session, options: scene.connectionOptions)
        case .willEnterForeground:
            delegate.sceneWillEnterForeground(scene)
            scene.userInterface?.sceneWillEnterForeground()
        case .didBecomeActive: delegate.sceneDidBecomeActive(scene)
        case .willResignActive: delegate.sceneWillResignActive(scene)
        case .didEnterBackground:
            delegate.sceneDidEnterBackground(scene)
            try await saveRestorationActivity(for: scene)
        case .didDisconnect: delegate.sceneDidDisconnect(scene)
        }
    }

    /// At ``Options/maximumSessions``, discards the sessions of windows not connected, least
    /// recently seen first, to make room for one more.
    private func makeRoomForNewSession() async throws {
        // Other nodes add sessions too: ask the storage how many there are.
        if let cluster = storage.cluster { storedSessionCount = try await cluster.sessionCount() }
        guard storedSessionCount >= options.maximumSessions else { return }
        let stored = try await storage.allSessions()
        storedSessionCount = stored.count
        let unavailable = try await sessionsInUse()
        let excess = storedSessionCount - options.maximumSessions + 1
        guard excess > 0 else { return }
        let oldest = stored
            .filter { !unavailable.contains($0.id) }
            .sorted { $0.lastSeenAt < $1.lastSeenAt }
            .prefix(excess)
        guard !oldest.isEmpty else { return }
        logger.warning("Too many stored sessions; discarding those of the windows least recently seen", metadata: [
            "limit": "\(options.maximumSessions)", "discarded": "\(oldest.count)",
        ])
        try await discardStoredSessions(Array(oldest))
    }

    /// At ``Options/maximumSessionsPerClient``, discards the client's sessions of windows not
    /// connected, least recently seen first, to make room for one more; refuses if there are none.
    private func makeRoom(for client: String) async throws {
        guard (sessionsOfClient[client]?.count ?? 0) >= options.maximumSessionsPerClient else { return }
        let stored = try await storage.allSessions()
        // Read again after waiting: other windows may have connected, or sessions gone, meanwhile.
        let storedIDs = Set(stored.map(\.id))
        for id in sessionsOfClient[client] ?? [] where !storedIDs.contains(id) { forgetClient(of: id) }
        let owned = sessionsOfClient[client] ?? []
        guard owned.count >= options.maximumSessionsPerClient else { return }
        let unavailable = try await sessionsInUse()
        let excess = owned.count - options.maximumSessionsPerClient + 1
        let oldest = stored
            .filter { owned.contains($0.id) && !unavailable.contains($0.id) }
            .sorted { $0.lastSeenAt < $1.lastSeenAt }
            .prefix(excess)
        guard oldest.count == excess else {
            logger.warning("Refused a window: its client has as many connected windows as it may", metadata: [
                "client": "\(client)", "limit": "\(options.maximumSessionsPerClient)",
            ])
            throw ApplicationError.tooManySessions(client: client)
        }
        logger.warning("Too many sessions for one client; discarding those of its windows least recently seen", metadata: [
            "client": "\(client)", "limit": "\(options.maximumSessionsPerClient)", "discarded": "\(oldest.count)",
        ])
        try await discardStoredSessions(Array(oldest))
    }

    private func forgetClient(of id: SceneSession.ID) {
        guard let client = clientOfSession.removeValue(forKey: id) else { return }
        sessionsOfClient[client]?.remove(id)
        if sessionsOfClient[client]?.isEmpty == true { sessionsOfClient[client] = nil }
    }

    private func attribute(_ id: SceneSession.ID, to client: String) {
        if let previous = clientOfSession[id], previous != client { sessionsOfClient[previous]?.remove(id) }
        clientOfSession[id] = client
        sessionsOfClient[client, default: []].insert(id)
    }

    /// Discards the sessions not seen for ``Options/sessionExpiry``, at most once an hour while the
    /// application runs (``launch()`` does it too), so that a server that runs for months keeps
    /// only what its windows may still come back for.
    private func expireSessionsIfDue() async throws {
        guard ContinuousClock.now - lastExpiry >= .seconds(3_600) else { return }
        let cutoff = Date().addingTimeInterval(-options.sessionExpiry.timeInterval)
        let stored = try await storage.allSessions()
        storedSessionCount = stored.count
        let unavailable = try await sessionsInUse()
        try await discardStoredSessions(stored.filter { $0.lastSeenAt < cutoff && !unavailable.contains($0.id) })
        lastExpiry = .now
    }

    private func discardStoredSessions(_ sessions: [SceneSession]) async throws {
        // Two windows making room at once may pick the same session: it is discarded once.
        let sessions = sessions.filter { !discarding.contains($0.id) }
        guard !sessions.isEmpty else { return }
        let ids = sessions.map(\.id)
        discarding.formUnion(ids)
        defer { discarding.subtract(ids) }
        try await storage.deleteSessions(ids)
        storedSessionCount = max(0, storedSessionCount - sessions.count)
        for session in sessions {
            forgetClient(of: session.id)
            lastActionRefs[session.id] = nil
        }
        for session in sessions {
            logger.info("didDiscardSceneSession", metadata: ["scene.id": "\(session.id)"])
        }
        await delegate.application(self, didDiscardSceneSessions: sessions)
    }
}

/// A request the application cannot carry out.
public enum ApplicationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// ``Application/launch()`` was called twice.
    case alreadyLaunched
    /// A scene was connected before ``Application/launch()``.
    case notLaunched
    /// The scene is not connected.
    case notConnected(SceneSession.ID)
    /// The client has ``Application/Options/maximumSessionsPerClient`` sessions, all of them
    /// connected: it must close a window before it opens another.
    case tooManySessions(client: String)
    /// An action sent again could not be checked against what was done already (the storage did
    /// not answer), so it was not carried out.
    case actionNotChecked(SceneActionID, reason: String)

    public var description: String {
        switch self {
        case .alreadyLaunched: "The application has already launched."
        case .notLaunched: "The application has not launched yet."
        case let .notConnected(id): "Scene \(id) is not connected."
        case let .tooManySessions(client): "\(client) has as many windows open as it may; close one first."
        case let .actionNotChecked(_, reason): "Could not check whether this was done already (\(reason)); try again."
        }
    }
}
