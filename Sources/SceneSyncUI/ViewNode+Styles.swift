extension ViewNode {
    /// Where a bar button sits in the navigation bar.
    public enum Side: String, Codable, Sendable, CaseIterable {
        /// Before the title (left in left-to-right languages).
        case leading
        /// After the title.
        case trailing
    }

    /// A bar button's icon, by SF Symbol name: a bar without room for the button's label shows
    /// the icon instead, and the label stays the button's accessible name.
    public enum BarIcon: String, Codable, Sendable, CaseIterable {
        /// A pencil on a square: write something new, such as a conversation.
        case compose = "square.and.pencil"
        /// A window with a plus: open in a new window.
        case newWindow = "macwindow.badge.plus"
        /// An arrow out of a door: sign out.
        case signOut = "rectangle.portrait.and.arrow.right"
    }

    /// What a button does, for how it is drawn: as `UIAlertAction.Style` and button roles.
    public enum Role: String, Codable, Sendable, CaseIterable {
        /// The main action of a screen or bar.
        case primary
        /// An action that deletes or loses data.
        case destructive
        /// The action that changes nothing.
        case cancel
        /// The button that ends an edit, as UIKit's Done: Escape presses it while a table on the
        /// screen is in edit mode.
        case done
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

extension ViewNode {
    /// A property of a node, by the name the renderer knows it by: for ``Patch/set(_:_:)``, so that
    /// a screen that changes a drawn node names what it changes in types, not strings.
    public enum Property: String, CaseIterable, Sendable {
        /// The window's, a screen's, a row's, an alert's or an empty state's title.
        case title
        /// The previous screen's title, on the navigation bar's back button.
        case back
        /// A button's, a tab's, a field's or a table's label.
        case label
        /// A bar button's ``ViewNode/Side``.
        case side
        /// A button's ``ViewNode/Role``.
        case role
        /// A tab's or a row's badge, such as an unread count.
        case badge
        /// Whether a tab is the selected one, or a row the one shown beside its list (a split's
        /// open conversation).
        case selected
        /// A tab's icon: the name of a ``SceneWindow/Tab/Icon``, such as `"cart"`; or a bar
        /// button's: the name of a ``ViewNode/BarIcon``.
        case icon
        /// The route of a screen.
        case route
        /// Whether a table is in edit mode.
        case editing
        /// A section's header.
        case header
        /// A section's footer.
        case footer
        /// A row's second line.
        case subtitle
        /// A row's detail text.
        case detail
        /// A row's image.
        case image
        /// When a row's countdown ends, in milliseconds since 1970 on the server's clock; the
        /// renderer ticks it down in the detail slot by itself.
        case countdown
        /// A row's accessory, such as a disclosure indicator.
        case accessory
        /// Whether a row can be deleted in edit mode.
        case deletable
        /// Whether a row can be moved in edit mode.
        case movable
        /// A row's menu of actions.
        case actions
        /// A field's or a label's value.
        case value
        /// A field's unsaved text.
        case draft
        /// A field's placeholder.
        case placeholder
        /// A field's ``ViewNode/InputMode``.
        case inputMode
        /// A field's error.
        case error
        /// What a field takes, said under it, such as "Whole dollars".
        case hint
        /// A field whose text waits for its form's button (such as Start), never marked as not saved.
        case staged
        /// A notice's Undo button's label: the notice answers `tap` by undoing.
        case undo
        /// The window's place as a URL path under its app, such as `item/<key>`.
        case path
        /// How the window's `path` changed: `"push"` (the user went there: a new history entry)
        /// or `"replace"`.
        case history
        /// Whether a button is disabled.
        case disabled
        /// An image's source.
        case src
        /// An image's text alternative.
        case alt
        /// A paragraph's text.
        case text
        /// A paragraph's ``ViewNode/TextStyle``.
        case style
        /// An alert's, notice's or empty state's message.
        case message
        /// An alert's buttons.
        case buttons
        /// The text a field's own commit was answered for (see ``Patch/acceptCommit(of:storedValue:typed:)``).
        case accepted
        /// Which pane of a split shows in a narrow window: `"primary"` or `"secondary"`.
        case focus
        /// A message's sender.
        case sender
        /// A moment to show in the window's own time zone, in milliseconds since 1970: a message's
        /// time, or a row's in place of its detail.
        case time
        /// Whether a message was sent by the person the window acts for.
        case mine
        /// Whether a message was sent from this very window (its origin), which animates it as sent.
        case fromHere
        /// A composer's send button label.
        case button
        /// `false` on a row nothing answers a selection of: drawn as plain content, not a button.
        /// Set by the screen as it sends the row (see ``ScreenController``), never by hand.
        case selectable
        /// Whether a field takes no typing, because nothing answers its commit. Set by the screen.
        case readOnly
    }
}

extension ViewNode {
    /// The node's property `property`, as ``props`` holds it by its name on the wire; setting
    /// `nil` removes it.
    ///
    /// ```swift
    /// #expect(window.node(ItemsScreen.NodeID.table)?[.editing] == true)
    /// ```
    public subscript(property: Property) -> ViewValue? {
        get { props[property.rawValue] }
        set { props[property.rawValue] = newValue }
    }

    /// `values` as ``props`` holds them: by their names on the wire, `nil` values left out. Every
    /// builder names its properties through here, so each name is spelled once: in ``Property``.
    static func props(_ values: [Property: ViewValue?]) -> [String: ViewValue] {
        var props: [String: ViewValue] = [:]
        props.reserveCapacity(values.count)
        for case let (property, value?) in values { props[property.rawValue] = value }
        return props
    }

    /// The keys of one action in a list of them: a row's menu item (``Property/actions``) or an
    /// alert's button (``Property/buttons``).
    private enum ActionItemKey: String {
        case name, label, role
    }

    /// One action in a list of them, as the renderer reads it: its name on the wire, its label,
    /// and how it is drawn.
    static func actionItem(name: ActionName, label: String, role: Role? = nil) -> ViewValue {
        var item: [String: ViewValue] = [ActionItemKey.name.rawValue: .string(name.rawValue), ActionItemKey.label.rawValue: .string(label)]
        if let role { item[ActionItemKey.role.rawValue] = .string(role.rawValue) }
        return .object(item)
    }

    /// The name of the action `item` (see ``actionItem(name:label:role:)``), if it is one.
    static func actionItemName(_ item: ViewValue) -> ActionName? {
        guard case let .object(fields) = item, let name = fields[ActionItemKey.name.rawValue]?.string else { return nil }
        return ActionName(rawValue: name)
    }
}
