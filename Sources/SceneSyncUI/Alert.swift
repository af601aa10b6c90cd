/// An alert or confirmation, as `UIAlertController`: a title, a message, and actions that each
/// run their own handler.
///
/// ```swift
/// window.present(Alert(id: "confirm-clear", title: "Clear the order?", actions: [
///     .init("Cancel", role: .cancel),
///     .init("Clear Order", role: .destructive) { try await order.clear() },
/// ]))
/// ```
@MainActor
public struct Alert {
    /// One of the alert's buttons, as `UIAlertAction`.
    public struct Action: Sendable {
        /// The action's name on the wire, which the window sends back when it is chosen.
        public let name: ActionName
        /// The button's label.
        public let label: String
        /// How the button is drawn.
        public let role: ViewNode.Role?
        /// What runs when it is chosen; `nil` only dismisses the alert. What it throws (a
        /// confirmed action the model refused, say) is the answer to the window's choice, which
        /// shows it.
        public let handler: (@MainActor @Sendable () async throws -> Void)?

        /// Creates an action; its `name` defaults to its label.
        public init(_ label: String, role: ViewNode.Role? = nil, name: ActionName? = nil,
                    handler: (@MainActor @Sendable () async throws -> Void)? = nil) {
            self.name = name ?? ActionName(rawValue: label)
            self.label = label
            self.role = role
            self.handler = handler
        }
    }

    /// The alert's node id.
    public let id: String
    /// The title.
    public let title: String
    /// The message.
    public let message: String?
    /// The buttons, in order.
    public let actions: [Action]

    /// Creates an alert.
    public init(id: String, title: String, message: String? = nil, actions: [Action]) {
        self.id = id
        self.title = title
        self.message = message
        self.actions = actions
    }

    func makeNode() -> ViewNode {
        ViewNode(id: id, kind: .alert, props: ViewNode.props([
            .title: .string(title), .message: message.map(ViewValue.string),
            .buttons: .array(actions.map { ViewNode.actionItem(name: $0.name, label: $0.label, role: $0.role) }),
        ]))
    }
}
