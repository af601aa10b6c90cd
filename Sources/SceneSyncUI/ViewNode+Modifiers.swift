/// Modifiers, as SwiftUI's: each returns a copy of the node with a handler or a mark added, so a
/// builder takes only what its component shows.
///
/// ```swift
/// .row(id: NodeID.row(item.key), title: item.name, detail: "$42")
///     .disclosure()
///     .onDelete { [weak self] in try await self?.store.remove(item.key, origin: self?.origin) }
/// ```
///
/// Each modifier is for one kind of node, as its documentation says; given a node of another kind
/// it stops the program, as an index out of range does: such a screen is wrong in every window.
extension ViewNode {
    // MARK: - Rows

    /// A row that runs `action` when the user chooses it. For a ``Kind/row``.
    public func onSelect(_ action: @escaping Action) -> ViewNode {
        modified(for: .row) { $0.actions.on(.select, action) }
    }

    /// A row that can be deleted in edit mode, and runs `action` when it is. For a ``Kind/row``.
    public func onDelete(_ action: @escaping Action) -> ViewNode {
        modified(for: .row) { node in
            node.actions.on(.delete, action)
            node[.deletable] = true
        }
    }

    /// A row that can be moved in edit mode, and runs `action` with its new index within its
    /// section when it is. For a ``Kind/row``.
    public func onMove(_ action: @escaping @MainActor @Sendable (Int) async throws -> Void) -> ViewNode {
        modified(for: .row) { node in
            node.actions.on(.move, index: action)
            node[.movable] = true
        }
    }

    /// A row offering `actions` in its menu, after any it offers already. An action without a
    /// handler is answered by the screen's
    /// ``ScreenController/handleRows(_:shown:onSelect:onDelete:onMove:actions:)``. For a ``Kind/row``.
    ///
    /// ```swift
    /// .rowActions([.init("openInNewWindow", label: "Open in New Window")])
    /// ```
    public func rowActions(_ actions: [RowAction]) -> ViewNode {
        modified(for: .row) { node in
            guard !actions.isEmpty else { return }
            for action in actions { node.actions.on(action.name, action.handler) }
            var items: [ViewValue] = if case let .array(shown)? = node[.actions] { shown } else { [] }
            items += actions.map { Self.actionItem(name: $0.name, label: $0.label) }
            node[.actions] = .array(items)
        }
    }

    /// A row marked deletable in edit mode with no handler of its own: a keyed row (see
    /// ``KeyedRows``), whose screen handles deletes for all its rows. ``onDelete(_:)`` marks a
    /// row so by itself. For a ``Kind/row``.
    public func deletable() -> ViewNode {
        modified(for: .row) { $0[.deletable] = true }
    }

    /// A row marked movable in edit mode with no handler of its own: a keyed row (see
    /// ``KeyedRows``), whose screen handles moves for all its rows. ``onMove(_:)`` marks a row so
    /// by itself. For a ``Kind/row``.
    public func movable() -> ViewNode {
        modified(for: .row) { $0[.movable] = true }
    }

    /// A row that is (`true`) or is not the one whose content shows beside its list, as the open
    /// conversation of a split: it is marked so, to the eye and to assistive technology. For a
    /// ``Kind/row``.
    public func selected(_ isSelected: Bool = true) -> ViewNode {
        modified(for: .row) { $0[.selected] = isSelected ? true : nil }
    }

    /// A row with a disclosure indicator: choosing it shows more, such as a screen pushed on top.
    /// For a ``Kind/row``.
    public func disclosure() -> ViewNode {
        modified(for: .row) { $0[.accessory] = "disclosure" }
    }

    // MARK: - Text fields

    /// A field that runs `action` with its text when the user leaves it or presses Enter. A field
    /// without it takes no typing. For a ``Kind/textField``.
    public func onCommit(_ action: @escaping @MainActor @Sendable (String) async throws -> Void) -> ViewNode {
        modified(for: .textField) { $0.actions.on(.commit, text: action) }
    }

    /// A field that says what it takes under it, such as "In whole dollars", and to assistive
    /// technology as its description; `nil` says nothing. For a ``Kind/textField``.
    public func hint(_ text: String?) -> ViewNode {
        modified(for: .textField) { $0[.hint] = text.map(ViewValue.string) }
    }

    /// A field showing `message` as what is wrong with its text; `nil` shows none. For a
    /// ``Kind/textField``.
    public func error(_ message: String?) -> ViewNode {
        modified(for: .textField) { $0[.error] = message.map(ViewValue.string) }
    }

    /// A field of a form that uses its text later, such as a New Conversation's Title, kept as a
    /// draft until Start: no text in it is an edit waiting to be saved, so the renderer does not
    /// mark it "Not saved yet". For a ``Kind/textField``.
    public func staged() -> ViewNode {
        modified(for: .textField) { $0[.staged] = true }
    }

    /// A copy of the node changed by `change`, which only a node of `kind` may be.
    private func modified(for kind: Kind, function: StaticString = #function, _ change: (inout ViewNode) -> Void) -> ViewNode {
        precondition(self.kind == kind, "\(function) is for a \(kind.rawValue) node, not \(self.kind.rawValue) node \(id)")
        var copy = self
        change(&copy)
        return copy
    }
}
