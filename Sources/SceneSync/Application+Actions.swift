import Logging

extension Application {
    /// How ``carryOut(_:in:resent:_:)`` ended.
    public enum ActionOutcome: Sendable, Equatable {
        /// The action ran now.
        case carriedOut
        /// The action was sent again and had been carried out already: it did not run again.
        case alreadyCarriedOut
    }

    /// Carries out a window's action at most once, however often the window sends it.
    ///
    /// Actions of one session run one at a time, in the order they arrive: one sent again waits
    /// for the same window's earlier connection to finish the action it was running. A `resent`
    /// action is first checked against what was done already: a `ref` up to the last one this
    /// process or the scene's saved session carried out, or one whose intents the storage
    /// committed (``SceneSyncStorage/committedAction(_:)``), is not run again. Otherwise `body`
    /// runs as one attempt at `action` (``SceneActionID/carryOut(resent:isolation:_:)``), so that every
    /// intent it performs is committed with it; when another node's attempt committed the action
    /// first (it ran there meanwhile), this one's intents are not kept and the outcome is
    /// ``ActionOutcome/alreadyCarriedOut``.
    ///
    /// When `body` returns, the action is recorded on the scene's session, and the scene's
    /// restoration activity is saved at once if the action changed it (a screen pushed, edit mode
    /// turned on), so that what the window is told was done survives the process.
    ///
    /// - Parameters:
    ///   - action: The action: the session the window sent it under (which differs from
    ///     `scene`'s when a window's session was connected elsewhere and it got a new one), and
    ///     its `ref`.
    ///   - scene: The scene whose window acts.
    ///   - resent: Whether the window sent it before without hearing how it ended.
    ///   - body: What the action does; it throws to refuse it.
    /// - Throws: what `body` throws (the action is then not recorded as done);
    ///   ``ApplicationError/actionNotChecked(_:reason:)`` when a resent action could not be checked.
    public func carryOut(
        _ action: SceneActionID, in scene: Scene, resent: Bool, _ body: @MainActor () async throws -> Void
    ) async throws -> ActionOutcome {
        while let underway = actionsUnderway[action.session] { await underway.finished.value }
        let turn = ActionTurn()
        actionsUnderway[action.session] = turn
        defer {
            if actionsUnderway[action.session] === turn { actionsUnderway[action.session] = nil }
            turn.finished.give(())
        }
        if resent, try await wasCarriedOut(action, in: scene) {
            logger.debug("An action sent again was done already", metadata: ["scene.id": "\(scene.session.id)", "action": "\(action)"])
            return .alreadyCarriedOut
        }
        if try await action.carryOut(resent: resent, body) == .carriedOutElsewhere {
            // Another node ran it meanwhile (the window's earlier connection was still there).
            logger.debug("An action sent again was done elsewhere meanwhile", metadata: ["scene.id": "\(scene.session.id)", "action": "\(action)"])
            record(action, in: scene)
            return .alreadyCarriedOut
        }
        record(action, in: scene)
        await saveActivityIfChanged(for: scene, after: action)
        return .carriedOut
    }

    /// Whether `action` was carried out already, here, on the node that saved `scene`'s session,
    /// or by a commit anywhere.
    private func wasCarriedOut(_ action: SceneActionID, in scene: Scene) async throws -> Bool {
        if let last = lastActionRefs[action.session], action.ref <= last { return true }
        if action.session == scene.session.id, let last = scene.session.lastActionRef, action.ref <= last { return true }
        do {
            return try await storage.committedAction(action) != nil
        } catch {
            logger.warning("Could not check an action sent again", metadata: [
                "scene.id": "\(scene.session.id)", "action": "\(action)", "error": "\(error)"])
            throw ApplicationError.actionNotChecked(action, reason: "\(error)")
        }
    }

    private func record(_ action: SceneActionID, in scene: Scene) {
        if lastActionRefs.count >= 4 * options.maximumSessions, lastActionRefs[action.session] == nil {
            // Refs of sessions discarded by other nodes are never forgotten otherwise; what this
            // forgets, the saved sessions and committed actions still know.
            lastActionRefs.removeAll(keepingCapacity: true)
        }
        lastActionRefs[action.session] = max(action.ref, lastActionRefs[action.session] ?? action.ref)
        if action.session == scene.session.id {
            scene.session.lastActionRef = max(action.ref, scene.session.lastActionRef ?? action.ref)
        }
    }

    /// Saves the scene's restoration activity now if the action changed it: only a scene that said
    /// so (``Scene/restorationActivityDidChange()``, which schedules the delayed save) is asked
    /// for its activity, so an action that moved nothing costs no encoding. A failure is logged:
    /// the action was done, and the next change saves again.
    private func saveActivityIfChanged(for scene: Scene, after action: SceneActionID) async {
        guard restorationSavesDue.contains(scene.session.id), scene.activationState != .disconnected,
              let activity = scene.delegate.map({ $0.stateRestorationActivity(for: scene) }),
              activity != scene.session.stateRestorationActivity else { return }
        do {
            try await store(activity, for: scene)
        } catch {
            logger.warning("Could not save a scene's restoration activity after an action", metadata: [
                "scene.id": "\(scene.session.id)", "action": "\(action)", "error": "\(error)"])
        }
    }
}

/// One action a session's window is carrying out: the next one waits until it is finished.
final class ActionTurn: Sendable {
    let finished = Handoff<Void>()
}
