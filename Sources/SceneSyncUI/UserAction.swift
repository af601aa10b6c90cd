/// What the user did to one node, as the renderer reports it.
public struct UserAction: Equatable, Sendable, Codable {
    /// A number the window chose, echoed in the answer to this action.
    public var ref: Int
    /// The node acted on.
    public var node: String
    /// What was done (see ``ActionName``).
    public var name: ActionName
    /// The action's value: typed text, a target index.
    public var value: ViewValue?

    /// Creates an action.
    public init(ref: Int = 0, node: String, name: ActionName, value: ViewValue? = nil) {
        self.ref = ref
        self.node = node
        self.name = name
        self.value = value
    }
}
