public import Foundation

/// An app's update event: what changed in its model, as a Swift enum with associated values.
///
/// The model controller broadcasts every event to every subscriber, wrapped in an ``EventEnvelope``.
///
/// ```swift
/// enum ItemEvent: UpdateEvent {
///     case itemAdded(Item, index: Int)
///     case itemRemoved(key: UUID, index: Int)
/// }
/// ```
public protocol UpdateEvent: Codable, Equatable, Sendable {}

/// One broadcast: an update event with its place in the app's history and who caused it.
public struct EventEnvelope<Event: UpdateEvent>: Codable, Equatable, Sendable {
    /// The event's position in the app's log: gap-free, starting at 1, never reused.
    public let sequence: UInt64
    /// The scene whose intent caused the event, or `nil` for changes from outside any scene.
    public let origin: SceneSession.ID?
    /// When the event was committed.
    public let timestamp: Date
    /// What changed.
    public let event: Event

    /// Creates an envelope; model controllers make these, tests may too.
    public init(sequence: UInt64, origin: SceneSession.ID?, timestamp: Date, event: Event) {
        self.sequence = sequence
        self.origin = origin
        self.timestamp = timestamp
        self.event = event
    }
}
