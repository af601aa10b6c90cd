import Synchronization

/// One thing a window asked for, named as the window names it: its scene session and the number
/// (`ref`) it gave the action. Refs grow over the whole life of a session, so the pair names one
/// action for good.
///
/// A window that lost its connection before it heard how an action ended sends it again under
/// the same id, perhaps to another node. ``Application/carryOut(_:in:resent:_:)`` carries each id
/// out at most once: intents performed while the action runs (``current``) are committed with
/// it, so the storage can tell that it was done (``SceneSyncStorage/committedAction(_:)``), and
/// what it changed in the window (its navigation, say) is saved with the scene's session before
/// the window is told.
///
/// Two nodes may carry out the same action at once: the window's first connection is still
/// running it on one when the window, reconnected, sends it again to another. Each run is an
/// attempt of its own (``carryOut(resent:isolation:_:)``), and the storage refuses a commit of
/// one attempt when another attempt at the same action committed first and either of them was
/// sent again (``StorageError/actionsCommitted(app:actions:)``): the action is done once. Two
/// attempts neither of which was sent again are two actions of a window that reused a `ref`, and
/// both are done.
public struct SceneActionID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The scene session the window sent the action under.
    public let session: SceneSession.ID
    /// The window's number for the action.
    public let ref: Int

    /// Names an action.
    public init(session: SceneSession.ID, ref: Int) {
        self.session = session
        self.ref = ref
    }

    /// The action the current task carries out, if any. ``ModelController/perform(origin:_:)``
    /// reads it when it accepts an intent and commits the intent with it.
    public static var current: SceneActionID? { ActionAttempt.current?.action }

    public var description: String { "\(session)#\(ref)" }

    /// How one attempt at carrying out an action ended.
    public enum AttemptOutcome: Sendable, Equatable {
        /// `body` ran to its end.
        case carriedOut
        /// Another attempt at the same action (another node's) committed first: this attempt's
        /// intents were refused and nothing of them was kept, whatever `body` made of that.
        case carriedOutElsewhere
    }

    /// Runs `body` as one attempt at carrying out this action: every intent it performs (see
    /// ``current``) is committed with the action and with this attempt, so that a commit of
    /// another attempt at the same action refuses it when either was sent again, and the other
    /// way round.
    ///
    /// - Parameters:
    ///   - resent: Whether the window sent the action before without hearing how it ended.
    ///   - isolation: The actor `body` runs on; the caller's, by default.
    ///   - body: What the action does.
    /// - Returns: ``AttemptOutcome/carriedOutElsewhere`` when an intent was refused because
    ///   another attempt committed the action first, whether `body` then threw or not.
    /// - Throws: what `body` throws, unless the action was carried out elsewhere.
    public func carryOut(
        resent: Bool, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
    ) async throws -> AttemptOutcome {
        let attempt = ActionAttempt(action: self, resent: resent)
        do {
            try await ActionAttempt.$current.withValue(attempt) { try await body() }
        } catch where attempt.wasCarriedOutElsewhere {
            return .carriedOutElsewhere
        }
        return attempt.wasCarriedOutElsewhere ? .carriedOutElsewhere : .carriedOut
    }
}

/// One run of a window's action (see ``SceneActionID/carryOut(resent:isolation:_:)``): its
/// number, drawn at random, tells its commits from another run's of the same action.
final class ActionAttempt: Sendable {
    /// The attempt the current task makes, if any.
    @TaskLocal static var current: ActionAttempt?

    let action: SceneActionID
    /// Whether the window sent the action again.
    let resent: Bool
    let number = UInt64.random(in: 1...UInt64.max)
    private let elsewhere = Mutex(false)

    init(action: SceneActionID, resent: Bool) {
        self.action = action
        self.resent = resent
    }

    /// Whether a commit of this attempt was refused because another attempt committed first.
    var wasCarriedOutElsewhere: Bool { elsewhere.withLock { $0 } }

    /// Notes that another attempt committed the action first.
    func carriedOutElsewhere() {
        elsewhere.withLock { $0 = true }
    }
}

/// That a committed intent was part of a window's action: written in the same transaction as the
/// intent's events (see ``CommitBatch/actions``).
public struct CommittedAction: Hashable, Sendable {
    /// The action.
    public let action: SceneActionID
    /// The sequence number of the first event committed for it.
    public let sequence: UInt64
    /// Which attempt at carrying out the action committed it (see
    /// ``SceneActionID/carryOut(resent:isolation:_:)``): a later commit of the same attempt is
    /// welcome, one of another attempt is refused if either was sent again.
    public let attempt: UInt64
    /// Whether the attempt was the window's action sent again.
    public let resent: Bool

    /// Creates a record of a committed action.
    public init(action: SceneActionID, sequence: UInt64, attempt: UInt64, resent: Bool) {
        self.action = action
        self.sequence = sequence
        self.attempt = attempt
        self.resent = resent
    }
}
