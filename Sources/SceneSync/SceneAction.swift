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
    @TaskLocal public static var current: SceneActionID?

    public var description: String { "\(session)#\(ref)" }
}

/// That a committed intent was part of a window's action: written in the same transaction as the
/// intent's events (see ``CommitBatch/actions``).
public struct CommittedAction: Hashable, Sendable {
    /// The action.
    public let action: SceneActionID
    /// The sequence number of the first event committed for it.
    public let sequence: UInt64

    /// Creates a record of a committed action.
    public init(action: SceneActionID, sequence: UInt64) {
        self.action = action
        self.sequence = sequence
    }
}
