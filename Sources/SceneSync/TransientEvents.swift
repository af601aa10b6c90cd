public import Foundation

/// One transient event as subscribers receive it: who caused it and when, with no sequence number.
///
/// Transient events, such as "Ana is typing", reach every window following a model controller
/// the moment they are announced, but they are never written to the log or the app's records and
/// cost no commit: a window that was not listening misses them, and nothing replays them.
public struct TransientEnvelope<Event: Sendable>: Sendable {
    /// The scene whose intent announced the event, or `nil` for one from outside any scene.
    public let origin: SceneSession.ID?
    /// When the event was announced.
    public let timestamp: Date
    /// What happened.
    public let event: Event

    /// Creates an envelope; model controllers make these, tests may too.
    public init(origin: SceneSession.ID?, timestamp: Date, event: Event) {
        self.origin = origin
        self.timestamp = timestamp
        self.event = event
    }
}

extension TransientEnvelope: Equatable where Event: Equatable {}

extension TransientEnvelope: Codable where Event: Codable {}
