public import Foundation

/// The persistent record of one window: it outlives disconnection and process restarts, and is
/// deleted only when the window is discarded (closed for good).
///
/// Like `UISceneSession`, it carries the role and configuration the window was created with, and
/// the activity that restores it.
public struct SceneSession: Codable, Equatable, Sendable, Identifiable {
    /// The session's unguessable identifier.
    public let id: SceneSession.ID
    /// What kind of scene this is, such as ``Role/windowApplication``.
    public let role: Role
    /// The name of the ``SceneConfiguration`` chosen when the session was created.
    public internal(set) var configurationName: String?
    /// What it takes to recreate the window: saved on background, disconnect and request.
    public internal(set) var stateRestorationActivity: SceneActivity?
    /// The `ref` of the last action its window carried out (see ``SceneActionID``), saved with
    /// the restoration activity that action left: an action sent again with a `ref` up to it was
    /// done already.
    public internal(set) var lastActionRef: Int?
    /// When the session was created.
    public let createdAt: Date
    /// The last time a window of this session was connected or saved state.
    public var lastSeenAt: Date
    /// When the window was closed while no application was running to discard it; `nil` otherwise.
    public var closedAt: Date?

    /// Creates a session; ``Application`` does this for new windows.
    public init(
        id: SceneSession.ID = .init(),
        role: Role = .windowApplication,
        configurationName: String? = nil,
        stateRestorationActivity: SceneActivity? = nil,
        createdAt: Date = Date(),
        lastSeenAt: Date? = nil,
        closedAt: Date? = nil
    ) {
        self.id = id
        self.role = role
        self.configurationName = configurationName
        self.stateRestorationActivity = stateRestorationActivity
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt ?? createdAt
        self.closedAt = closedAt
    }

    /// The kind of scene a session belongs to.
    public struct Role: RawRepresentable, Hashable, Codable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An ordinary interactive window.
        public static let windowApplication = Role(rawValue: "windowApplication")
    }
}
