import Foundation
import Logging
import SceneSync
import SceneSyncUI

extension WindowConnection {
    /// Error codes of the server's own, beside ``WindowProtocolError/code``.
    enum ErrorCode {
        static let helloRequired = "helloRequired"
        static let repeatedHello = "repeatedHello"
        static let unauthorized = "unauthorized"
        static let rateLimited = "rateLimited"
        static let noWindow = "noWindow"
        static let refused = "refused"
        static let connectFailed = "connectFailed"
        static let tooManySessions = "tooManySessions"
        static let openFailed = "openFailed"
        static let notChecked = "notChecked"
        static let notAnswered = "notAnswered"
    }

    /// A window's message as its socket's handler made it out, before the main actor sees it.
    enum Inbound: Sendable {
        /// A message the protocol accepts.
        case message(ClientMessage)
        /// A message the protocol refuses, and why.
        case refused(WindowProtocolError)
        /// A message over the window's rate limit, dropped unread.
        case overRateLimit
    }

    /// Reads one message a window sent, off the main actor, so that decoding a thousand windows'
    /// messages never holds up the windows' updates.
    nonisolated static func read(_ text: String) -> Inbound {
        do throws(WindowProtocolError) {
            return .message(try WindowProtocol.decodeClientMessage(text: text))
        } catch {
            return .refused(error)
        }
    }

    /// Handles one message from the window, in the order they arrive.
    ///
    /// It runs in a short task of the socket handler's, which ends once the messages handed over
    /// with it are handled: what a message sets off (connecting a scene, an action down to the
    /// model) may run deep, and that memory goes back when the task ends rather than staying with
    /// the window for as long as it is open.
    ///
    /// - Returns: whether to keep reading from the window.
    func receive(_ inbound: Inbound) async -> Bool {
        guard phase != .closed else { return false }
        let message: ClientMessage
        switch inbound {
        case let .message(decoded):
            message = decoded
        case let .refused(error):
            refuse(code: error.code, message: error.description)
            return phase != .closed
        case .overRateLimit:
            if !warnedOfFlood {
                warnedOfFlood = true
                let limit = runtime.settings.rateLimit
                logger.warning("A window sends more messages than its rate limit; the excess is dropped", metadata: [
                    "burst": "\(limit.burst)", "perSecond": "\(limit.perSecond)", "scene.id": "\(session.map(\.rawValue) ?? "none")",
                ])
            }
            send(.error(ref: nil, code: ErrorCode.rateLimited, message: "Too many messages: this one was dropped."))
            return true
        }
        switch (phase, message) {
        case let (.awaitingHello, .hello(hello)):
            helloHeard()
            await greet(hello)
        case (.awaitingHello, _):
            refuse(code: ErrorCode.helloRequired, message: "The first message must be hello.")
        case (_, .hello):
            refuse(code: ErrorCode.repeatedHello, message: "This window has already said hello.")
        case let (_, .action(action, resend)):
            await perform(action, resent: resend)
        case let (_, .visibility(visible, focused)):
            await moveScene(visible: visible, focused: focused)
        case (_, .closing):
            saidClosing = true
        case (_, .ping):
            send(.pong)
        }
        return phase != .closed
    }

    /// A binary message: the protocol is text only, so the socket closes (1003).
    func refuseBinaryMessage() {
        logger.warning("Closed a window that sent a binary message", metadata: ["scene.id": "\(session.map(\.rawValue) ?? "none")"])
        close(.binaryMessage)
    }

    /// Answers a message the protocol refuses with an `error`, and closes the window once it has
    /// sent more such messages than the server allows.
    private func refuse(code: String, message: String) {
        send(.error(ref: nil, code: code, message: message))
        violations += 1
        guard violations > runtime.settings.maximumProtocolViolations else { return }
        logger.warning("Closed a window for repeated protocol violations", metadata: [
            "violations": "\(violations)", "last": "\(code): \(message)", "scene.id": "\(session.map(\.rawValue) ?? "none")",
        ])
        close(.protocolViolations)
    }

    /// Connects the window's scene: restores its session or makes a new one, welcomes it, and
    /// draws it (or tells it that what it shows is current).
    private func failToConnect(_ error: any Error) {
        logger.error("Could not connect a window's scene", metadata: ["error": "\(error)"])
        send(.error(ref: nil, code: ErrorCode.connectFailed, message: "The window could not be connected: \(error)"))
        close(.failed)
    }

    private func greet(_ hello: ClientMessage.Hello) async {
        guard runtime.settings.policy.accepts(token: hello.token) else {
            logger.notice("Refused a window without the access token")
            send(.error(ref: nil, code: ErrorCode.unauthorized, message: "This server needs its access token."))
            close(.unauthorized)
            return
        }
        phase = .connecting
        var activity: SceneActivity?
        if let token = hello.open { activity = await runtime.takeOpenRequest(token) }
        let requested = hello.session.flatMap(SceneSession.ID.init)
        if let requested { runtime.cancelDiscard(of: requested) }
        let scene: Scene
        do {
            scene = try await runtime.application.connect(
                session: requested, options: ConnectionOptions(activity: activity, device: hello.device), client: client)
        } catch let error as ApplicationError {
            guard case .tooManySessions = error else { return failToConnect(error) }
            send(.error(ref: nil, code: ErrorCode.tooManySessions, message: "Too many windows are open from here; close one first."))
            close(.tooManySessions)
            return
        } catch {
            return failToConnect(error)
        }
        guard phase == .connecting else {
            // The server began shutting down while the scene connected.
            await runtime.application.disconnect(scene)
            return
        }
        phase = .open
        self.scene = scene
        let id = scene.session.id
        session = id
        if let requested, requested == id { runtime.settings.metrics.windowReconnected() }
        actionSession = requested ?? id
        logger[metadataKey: "scene.id"] = "\(id)"
        // A duplicated tab gets a session of its own; the window stores the one it is told.
        send(.welcome(session: id.rawValue, app: runtime.app.name, title: scene.title ?? runtime.app.title, time: Date()))
        guard let window = scene.window else {
            send(.error(ref: nil, code: ErrorCode.noWindow, message: "This scene has no window to show."))
            return
        }
        window.attach(self, resumingFrom: hello.seq, route: hello.route)
        await moveScene(visible: hello.visible, focused: hello.focused)
    }

    /// Carries out the window's action at most once (see ``Application/carryOut(_:in:resent:_:)``)
    /// and answers it: `ack` when it was done, now or before, `error` when it was refused.
    private func perform(_ action: UserAction, resent: Bool) async {
        guard let scene, let window = scene.window else {
            send(.error(ref: action.ref, code: ErrorCode.noWindow, message: "This scene has no window to act on."))
            return
        }
        // A window sends actions once welcomed, under the session it was welcomed with: one sent
        // again was first sent under the session this connection's `hello` asked for.
        let id = SceneActionID(session: resent ? actionSession ?? scene.session.id : scene.session.id, ref: action.ref)
        do {
            _ = try await runtime.application.carryOut(id, in: scene, resent: resent) { try await window.handle(action) }
            send(.ack(ref: action.ref))
        } catch let error as ApplicationError {
            send(.error(ref: action.ref, code: ErrorCode.notChecked, message: error.description))
        } catch let error as ScreenError {
            // Nothing on the screen answers it: the node went a moment ago (another window's
            // change), or a page that is not our renderer. A screen never offers an action it
            // cannot answer (ScreenController checks as it builds its nodes), so this is no
            // mistake of the user's, and the renderer shows nothing of it.
            logger.notice("A window's action was not answered", metadata: [
                "scene.id": "\(scene.session.id.rawValue)", "route": "\(window.visibleScreen?.route.description ?? "none")",
                "node": "\(action.node)", "action": "\(action.name.rawValue)", "error": "\(error)",
            ])
            send(.error(ref: action.ref, code: ErrorCode.notAnswered, message: error.description))
        } catch {
            send(.error(ref: action.ref, code: ErrorCode.refused, message: String(describing: error)))
        }
    }

    private func moveScene(visible: Bool, focused: Bool) async {
        guard let scene else { return }
        let state: SceneLifecycle.State = visible ? (focused ? .foregroundActive : .foregroundInactive) : .background
        do {
            try await runtime.application.move(scene, to: state)
        } catch {
            // Only a scene disconnected meanwhile (the server shutting down) cannot move.
            logger.debug("Scene did not move", metadata: ["state": "\(state)", "error": "\(error)"])
        }
    }
}
