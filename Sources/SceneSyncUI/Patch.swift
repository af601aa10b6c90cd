/// A minimal change to a window's view, like `insertRows`, `deleteRows`, `moveRow` or
/// `reloadRows` on a table view: one operation touches one node, whatever the size of the list.
public enum Patch: Codable, Equatable, Sendable {
    /// Inserts `node` as child number `index` of `parent`.
    case insert(parent: String, index: Int, node: ViewNode)
    /// Removes the node `id` and its children.
    case remove(id: String)
    /// Moves the node `id` to position `index` among its siblings (counted without it).
    case move(id: String, index: Int)
    /// Replaces the node `id` with `node`; `transition` hints an animation.
    case replace(id: String, node: ViewNode, transition: ViewNode.Transition?)
    /// Sets properties of the node `id`; a `null` value removes the property.
    case set(id: String, props: [String: ViewValue])

    /// The name of a patch's operation on the wire, its `op`.
    public enum Op: String, CaseIterable, Sendable {
        /// ``Patch/insert(parent:index:node:)``.
        case insert
        /// ``Patch/remove(id:)``.
        case remove
        /// ``Patch/move(id:index:)``.
        case move
        /// ``Patch/replace(id:node:transition:)``.
        case replace
        /// ``Patch/set(id:props:)``.
        case set
    }

    /// The patch's operation.
    public var op: Op {
        switch self {
        case .insert: .insert
        case .remove: .remove
        case .move: .move
        case .replace: .replace
        case .set: .set
        }
    }

    /// The keys of a patch's JSON object on the wire, spelled here once for every encoder.
    public enum WireKey: String, CodingKey, CaseIterable, Sendable {
        /// The patch's ``Patch/Op``.
        case op
        /// The parent an insert puts its node in.
        case parent
        /// The position an insert or a move puts its node at.
        case index
        /// The node an insert or a replace puts in place.
        case node
        /// The node a remove, move, replace or set acts on.
        case id
        /// The properties a set changes.
        case props
        /// The animation a replace hints.
        case transition
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: WireKey.self)
        let name = try container.decode(String.self, forKey: .op)
        guard let op = Op(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .op, in: container, debugDescription: "Unknown patch op \(name)")
        }
        switch op {
        case .insert:
            self = .insert(parent: try container.decode(String.self, forKey: .parent),
                           index: try container.decode(Int.self, forKey: .index),
                           node: try container.decode(ViewNode.self, forKey: .node))
        case .remove: self = .remove(id: try container.decode(String.self, forKey: .id))
        case .move:
            self = .move(id: try container.decode(String.self, forKey: .id), index: try container.decode(Int.self, forKey: .index))
        case .replace:
            self = .replace(id: try container.decode(String.self, forKey: .id),
                            node: try container.decode(ViewNode.self, forKey: .node),
                            transition: try container.decodeIfPresent(ViewNode.Transition.self, forKey: .transition))
        case .set:
            self = .set(id: try container.decode(String.self, forKey: .id),
                        props: try container.decode([String: ViewValue].self, forKey: .props))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: WireKey.self)
        try container.encode(op.rawValue, forKey: .op)
        switch self {
        case let .insert(parent, index, node):
            try container.encode(parent, forKey: .parent)
            try container.encode(index, forKey: .index)
            try container.encode(node, forKey: .node)
        case let .remove(id):
            try container.encode(id, forKey: .id)
        case let .move(id, index):
            try container.encode(id, forKey: .id)
            try container.encode(index, forKey: .index)
        case let .replace(id, node, transition):
            try container.encode(id, forKey: .id)
            try container.encode(node, forKey: .node)
            try container.encodeIfPresent(transition, forKey: .transition)
        case let .set(id, props):
            try container.encode(id, forKey: .id)
            try container.encode(props, forKey: .props)
        }
    }
}

extension Patch {
    /// Sets properties of the node `id`, named in types; a `.null` value removes the property.
    ///
    /// ```swift
    /// .set(ItemsScreen.NodeID.section, [.footer: .string("3 items — $42 total")])
    /// ```
    public static func set(_ id: String, _ props: [ViewNode.Property: ViewValue]) -> Patch {
        .set(id: id, props: Dictionary(uniqueKeysWithValues: props.map { ($0.key.rawValue, $0.value) }))
    }

    /// Sets one property of the node `id`; `.null` removes it.
    ///
    /// ```swift
    /// .set(ItemsScreen.NodeID.table, .editing, to: .bool(true))
    /// ```
    public static func set(_ id: String, _ property: ViewNode.Property, to value: ViewValue) -> Patch {
        .set(id: id, props: [property.rawValue: value])
    }

    /// The answer to a text field's commit that the model accepted: the stored value (trimmed,
    /// say) replaces what was typed even while the field has focus, and the field's error and
    /// draft are cleared. `typed` is the text the user committed, so the renderer knows the
    /// value is its own answer and not a change from another window.
    public static func acceptCommit(of field: String, storedValue: String, typed: String) -> Patch {
        .set(field, [.value: .string(storedValue), .accepted: .string(typed), .error: .null, .draft: .null])
    }

    /// Shows `message` next to a field as its error, or removes the error with `nil`.
    public static func setError(of field: String, _ message: String?) -> Patch {
        .set(field, [.error: message.map(ViewValue.string) ?? .null])
    }
}
