/// One component of a window's view, described as data: the server-driven counterpart of a
/// `UIView`. The renderer draws nodes by ``kind``; patches address them by ``id``; what the user
/// does to a node runs the handler the node was built with (see ``actions``).
///
/// ```swift
/// ViewNode.row(id: "item-\(key)", title: "Shiny Spork", subtitle: "A1B2C3D4", detail: "$42")
///     .disclosure()
///     .onSelect { [weak self] in await self?.show(key) }
/// ```
public struct ViewNode: Codable, Equatable, Sendable {
    /// Unique within a window and stable across updates: a row keeps its id for as long as it shows
    /// the same model object.
    public var id: String
    /// Which component this is.
    public var kind: Kind
    /// The component's properties, by name, as `PROTOCOL.md` lists them for each kind.
    public var props: [String: ViewValue]
    /// Child components, in order.
    public var children: [ViewNode]
    /// What runs when the user acts on the node. Not part of the node's value: two nodes that
    /// draw the same are equal whatever their handlers, and handlers never go on the wire.
    public var actions: NodeActions

    /// Creates a node.
    public init(id: String, kind: Kind, props: [String: ViewValue] = [:], children: [ViewNode] = [], actions: NodeActions = NodeActions()) {
        self.id = id
        self.kind = kind
        self.props = props
        self.children = children
        self.actions = actions
    }

    /// The keys of a node's JSON object on the wire, spelled here once for every encoder.
    public enum WireKey: String, CodingKey, CaseIterable, Sendable {
        /// The node's ``ViewNode/id``.
        case id
        /// The node's ``ViewNode/kind``.
        case kind
        /// The node's ``ViewNode/props``.
        case props
        /// The node's ``ViewNode/children``.
        case children
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: WireKey.self)
        id = try container.decode(String.self, forKey: .id)
        kind = try container.decode(Kind.self, forKey: .kind)
        props = try container.decode([String: ViewValue].self, forKey: .props)
        children = try container.decode([ViewNode].self, forKey: .children)
        actions = NodeActions()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: WireKey.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(props, forKey: .props)
        try container.encode(children, forKey: .children)
    }

    /// Whether both nodes draw the same: ids, kinds, properties and children; handlers aside.
    public static func == (lhs: ViewNode, rhs: ViewNode) -> Bool {
        lhs.id == rhs.id && lhs.kind == rhs.kind && lhs.props == rhs.props && lhs.children == rhs.children
    }

    /// The kinds of component the renderer knows.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The whole window: tab bar, navigation bar, screen and overlays.
        case window
        /// The navigation bar: title, back button, bar buttons.
        case navigationBar
        /// A button in the navigation bar, or in a pane's bar.
        case barButton
        /// The tab bar at the bottom of the window.
        case tabBar
        /// One tab, with an optional badge.
        case tab
        /// The content of the screen on top of the navigation stack.
        case screen
        /// A table of sections, with an edit mode for delete and reorder.
        case table
        /// A section of a table or form, with an optional header and footer.
        case section
        /// A table row: title, subtitle, detail text, image, disclosure.
        case row
        /// A form: sections of fields and labels.
        case form
        /// An editable text field (also for numbers, with ``InputMode/numeric``).
        case textField
        /// A read-only label and value.
        case label
        /// A button.
        case button
        /// An image.
        case image
        /// A paragraph of text.
        case text
        /// What a list shows when it has nothing to show.
        case emptyState
        /// A modal alert or confirmation with buttons.
        case alert
        /// A passing notice, such as "This item was deleted in another window."
        case notice
        /// A group of overlays (alerts and notices) above the screen.
        case overlay
        /// A group of children laid out in a column.
        case stack
        /// A list pane and a detail pane: side by side in a wide window, as a split view; in a narrow
        /// one only the pane in ``ViewNode/Property/focus`` shows.
        case split
        /// A pane's own navigation bar, first in a pane of a ``split``: its title, a back button
        /// while the split shows only that pane, and its bar buttons (its children).
        case paneBar
        /// A scrolling log of messages, newest at the bottom; an optional "Load Earlier" button first.
        case messageList
        /// One message: its sender, text and time.
        case message
        /// A field for a new message with its send button; what is typed is the window's draft.
        case composer
    }
}

/// A property value in a view: JSON's values, so any renderer can read them.
public enum ViewValue: Codable, Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A number with a fraction.
    case double(Double)
    /// A Boolean.
    case bool(Bool)
    /// A list of values.
    case array([ViewValue])
    /// An object of values by name.
    case object([String: ViewValue])
    /// JSON's `null`; in a `set` patch it removes the property.
    case null

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: ViewValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, ViewValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([ViewValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: ViewValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        case let .bool(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// The string, if this is one.
    public var string: String? { if case let .string(value) = self { value } else { nil } }
    /// The integer, if this is one.
    public var int: Int? { if case let .int(value) = self { value } else { nil } }
    /// The Boolean, if this is one.
    public var bool: Bool? { if case let .bool(value) = self { value } else { nil } }
}
