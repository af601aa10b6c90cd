/// The name of something a user does to a node, as the renderer reports it: a tap, a selection,
/// a commit, or the name of a row action or alert button.
///
/// ```swift
/// let openInNewWindow: ActionName = "openInNewWindow"
/// ```
public struct ActionName: RawRepresentable, Hashable, Codable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name on the wire.
    public let rawValue: String

    /// An action name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// An action name written as a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    /// A button or bar button was pressed.
    public static let tap: ActionName = "tap"
    /// A row or tab was chosen.
    public static let select: ActionName = "select"
    /// A row was deleted in edit mode.
    public static let delete: ActionName = "delete"
    /// A row was moved in edit mode; the value is its new index.
    public static let move: ActionName = "move"
    /// A field's text was committed (the field lost focus, or Enter); the value is the text.
    public static let commit: ActionName = "commit"
    /// A field's unsaved text changed; the window keeps it as the scene's draft.
    public static let draft: ActionName = "draft"
    /// The navigation bar's back button.
    public static let back: ActionName = "back"
    /// A notice was dismissed.
    public static let dismiss: ActionName = "dismiss"
    /// A composer's text was sent; the value is the text.
    public static let send: ActionName = "send"
    /// The browser moved to another URL of the window (Back, Forward, or a URL opened); the value
    /// is the path under the app, sent to the `window` node.
    public static let navigate: ActionName = "navigate"

    /// The actions the renderer sends by itself, beside the names of row actions and alert buttons.
    public static let standard: [ActionName] = [.tap, .select, .delete, .move, .commit, .draft, .back, .dismiss, .send, .navigate]
}

/// What runs when the user acts on a node: a handler per ``ActionName``, the typed counterpart of
/// UIKit's target–action. The component builders and modifiers fill it in (`onTap:`, `.onSelect`, `.onCommit` …),
/// so a screen never matches node ids and action names itself.
public struct NodeActions: Sendable {
    /// A handler, given the value the action came with (typed text, a target index).
    public typealias Handler = @MainActor @Sendable (ViewValue?) async throws -> Void

    private var handlers: [ActionName: Handler] = [:]

    /// No actions.
    public init() {}

    /// Whether the node answers no action.
    public var isEmpty: Bool { handlers.isEmpty }

    /// The names the node answers, sorted.
    public var names: [ActionName] { handlers.keys.sorted { $0.rawValue < $1.rawValue } }

    /// The handler for `name`, if the node answers it.
    public subscript(name: ActionName) -> Handler? {
        get { handlers[name] }
        set { handlers[name] = newValue }
    }

    /// Runs `handler` for `name`, with no value.
    public mutating func on(_ name: ActionName, _ handler: (@MainActor @Sendable () async throws -> Void)?) {
        guard let handler else { return }
        handlers[name] = { _ in try await handler() }
    }

    /// Runs `handler` for `name` with the action's text; an action without text is refused.
    public mutating func on(_ name: ActionName, text handler: (@MainActor @Sendable (String) async throws -> Void)?) {
        guard let handler else { return }
        handlers[name] = { value in
            guard case let .string(text)? = value else { throw ActionValueError.expectedText }
            try await handler(text)
        }
    }

    /// Runs `handler` for `name` with the action's integer; an action without one is refused.
    public mutating func on(_ name: ActionName, index handler: (@MainActor @Sendable (Int) async throws -> Void)?) {
        guard let handler else { return }
        handlers[name] = { value in
            guard case let .int(index)? = value else { throw ActionValueError.expectedInteger }
            try await handler(index)
        }
    }
}

/// An action came with a value of the wrong kind; the window reports it as
/// ``ScreenError/invalidValue(node:name:)``.
enum ActionValueError: Error {
    case expectedText
    case expectedInteger
}
