/// An alert or confirmation, as `UIAlertController`.
@MainActor
public struct Alert {
    /// One of the alert's buttons.
    public struct Button: Sendable {
        /// The action name the window sends back.
        public let name: String
        /// The button's label.
        public let label: String
        /// "cancel", "destructive" or nil.
        public let role: String?

        /// Creates a button.
        public init(name: String, label: String, role: String? = nil) {
            self.name = name
            self.label = label
            self.role = role
        }
    }

    /// The alert's node id.
    public let id: String
    /// The title.
    public let title: String
    /// The message.
    public let message: String?
    /// The buttons, in order.
    public let buttons: [Button]
    /// Runs with the chosen button's name. What it throws (a confirmed action the model
    /// refused, say) is the answer to the window's choice, which shows it.
    public let handler: @MainActor (String) async throws -> Void

    /// Creates an alert.
    public init(id: String, title: String, message: String? = nil, buttons: [Button], handler: @escaping @MainActor (String) async throws -> Void) {
        self.id = id
        self.title = title
        self.message = message
        self.buttons = buttons
        self.handler = handler
    }

    func makeNode() -> ViewNode {
        var props: [String: ViewValue] = [
            "title": .string(title),
            "buttons": .array(buttons.map { button in
                var value: [String: ViewValue] = ["name": .string(button.name), "label": .string(button.label)]
                if let role = button.role { value["role"] = .string(role) }
                return .object(value)
            }),
        ]
        if let message { props["message"] = .string(message) }
        return ViewNode(id: id, kind: .alert, props: props)
    }
}
