extension ViewNode {
    /// Where a bar button sits in the navigation bar.
    public enum Side: String, Codable, Sendable, CaseIterable {
        /// Before the title (left in left-to-right languages).
        case leading
        /// After the title.
        case trailing
    }

    /// What a button does, for how it is drawn: as `UIAlertAction.Style` and button roles.
    public enum Role: String, Codable, Sendable, CaseIterable {
        /// The main action of a screen or bar.
        case primary
        /// An action that deletes or loses data.
        case destructive
        /// The action that changes nothing.
        case cancel
    }

    /// How a paragraph of text is set.
    public enum TextStyle: String, Codable, Sendable, CaseIterable {
        /// Ordinary text.
        case body
        /// A heading.
        case title
        /// Small text under something.
        case caption
        /// The smallest text, for notes.
        case footnote
    }

    /// What a text field's keyboard is for.
    public enum InputMode: String, Codable, Sendable, CaseIterable {
        /// Any text.
        case text
        /// Digits.
        case numeric
    }

    /// How a replaced node comes in: as a navigation controller's push or pop.
    public enum Transition: String, Codable, Sendable, CaseIterable {
        /// A screen pushed on top: it slides in from the trailing side.
        case push
        /// The screen on top popped: the one below slides back.
        case pop
    }

    /// An extra action on a row, such as "Open in New Window": shown in the row's menu.
    public struct RowAction: Sendable {
        /// The action's name on the wire.
        public let name: ActionName
        /// The menu item's label.
        public let label: String
        /// What runs when it is chosen; `nil` for a keyed row, whose screen handles the action for
        /// every row with ``ScreenController/handleRows(_:shown:onSelect:onDelete:onMove:actions:)``.
        public let handler: (@MainActor @Sendable () async throws -> Void)?

        /// Creates a row action.
        public init(_ name: ActionName, label: String, handler: (@MainActor @Sendable () async throws -> Void)? = nil) {
            self.name = name
            self.label = label
            self.handler = handler
        }
    }
}
