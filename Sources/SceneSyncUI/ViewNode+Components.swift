public import Foundation

/// Builders for the renderer's components, so screens read like the views they describe. A
/// builder takes what its component shows; a button's builder takes its `onTap:` too, while a
/// row's and a field's handlers and marks are modifiers that return a changed copy, as SwiftUI's
/// are: `.onSelect { … }`, `.onDelete { … }`, `.onCommit { text in … }`, `.disclosure()`.
extension ViewNode {
    /// A handler that takes nothing.
    public typealias Action = @MainActor @Sendable () async throws -> Void

    /// A button in the navigation bar, or in a pane's bar. With an `icon`, a bar too narrow for
    /// its buttons' labels and its title shows the icon in place of the label, which stays the
    /// button's accessible name.
    public static func barButton(
        id: String, label: String, side: Side = .trailing, role: Role? = nil, icon: BarIcon? = nil, onTap: Action? = nil
    ) -> ViewNode {
        var actions = NodeActions()
        actions.on(.tap, onTap)
        return ViewNode(id: id, kind: .barButton,
                        props: props([.label: .string(label), .side: .string(side.rawValue), .role: role.map { .string($0.rawValue) },
                                      .icon: icon.map { .string($0.rawValue) }]),
                        actions: actions)
    }

    /// A table of sections; in edit mode rows show Delete and can be reordered.
    public static func table(id: String, label: String, editing: Bool = false, sections: [ViewNode]) -> ViewNode {
        ViewNode(id: id, kind: .table, props: props([.label: .string(label), .editing: .bool(editing)]), children: sections)
    }

    /// A section of a table or form.
    public static func section(id: String, header: String? = nil, footer: String? = nil, children: [ViewNode]) -> ViewNode {
        ViewNode(id: id, kind: .section, props: props([.header: header.map(ViewValue.string), .footer: footer.map(ViewValue.string)]),
                 children: children)
    }

    /// A table row: what it shows. What it does, and how it stands among its list, are modifiers:
    /// ``onSelect(_:)``, ``onDelete(_:)``, ``onMove(_:)``, ``rowActions(_:)``, ``selected(_:)``,
    /// ``disclosure()``, and for keyed rows ``deletable()`` and ``movable()``.
    ///
    /// ```swift
    /// .row(id: NodeID.row(item.key), title: item.name, detail: "$42")
    ///     .disclosure()
    ///     .onSelect { [weak self] in await self?.show(item.key) }
    /// ```
    ///
    /// A row with a `countdown` shows the time left until that date in place of `detail`, and the
    /// renderer ticks it down by itself: no message per second. Change the row when the time is
    /// up, say to `detail: "Ready"` with no countdown.
    ///
    /// A row with a `time` shows that moment in the window's own time zone where `detail` goes,
    /// and a `badge` (such as an unread count) beside it.
    ///
    /// Rows of a long list are cheaper without handlers of their own: give them ids from
    /// ``KeyedRows``, mark them ``deletable()`` and ``movable()`` with handler-less
    /// ``rowActions(_:)``, and handle them all at once with
    /// ``ScreenController/handleRows(_:shown:onSelect:onDelete:onMove:actions:)``.
    public static func row(
        id: String, title: String, subtitle: String? = nil, detail: String? = nil, image: String? = nil, countdown: Date? = nil,
        time: Date? = nil, badge: String? = nil
    ) -> ViewNode {
        ViewNode(id: id, kind: .row, props: props([
            .title: .string(title), .subtitle: subtitle.map(ViewValue.string), .detail: detail.map(ViewValue.string),
            .image: image.map(ViewValue.string), .countdown: countdown.map(ViewValue.time),
            .time: time.map(ViewValue.time), .badge: badge.map(ViewValue.string),
        ]))
    }

    /// A form of sections.
    public static func form(id: String, sections: [ViewNode]) -> ViewNode {
        ViewNode(id: id, kind: .form, children: sections)
    }

    /// An editable field: what it shows. `value` is the stored value; `draft` is unsaved text to
    /// show instead. What it does with its text and what it says about it are modifiers:
    /// ``onCommit(_:)``, ``hint(_:)``, ``error(_:)`` and ``staged()``.
    ///
    /// ```swift
    /// .textField(id: NodeID.value, label: "Value", value: "250", draft: draft(for: NodeID.value), inputMode: .numeric)
    ///     .hint("In whole dollars, such as 250")
    ///     .error(errors[NodeID.value])
    ///     .onCommit { [weak self] text in try await self?.commit(text) }
    /// ```
    public static func textField(
        id: String, label: String, value: String, draft: String? = nil, placeholder: String? = nil, inputMode: InputMode = .text
    ) -> ViewNode {
        ViewNode(id: id, kind: .textField, props: props([
            .label: .string(label), .value: .string(value), .draft: draft.map(ViewValue.string),
            .placeholder: placeholder.map(ViewValue.string), .inputMode: .string(inputMode.rawValue),
        ]))
    }

    /// A read-only label and value.
    public static func label(id: String, label: String, value: String) -> ViewNode {
        ViewNode(id: id, kind: .label, props: props([.label: .string(label), .value: .string(value)]))
    }

    /// A button.
    public static func button(id: String, label: String, role: Role? = nil, disabled: Bool = false, onTap: Action? = nil) -> ViewNode {
        var actions = NodeActions()
        // A disabled button answers nothing, whatever a window sends.
        if !disabled { actions.on(.tap, onTap) }
        return ViewNode(id: id, kind: .button,
                        props: props([.label: .string(label), .role: role.map { .string($0.rawValue) }, .disabled: disabled ? true : nil]),
                        actions: actions)
    }

    /// An image with its text alternative.
    public static func image(id: String, source: String, alternative: String) -> ViewNode {
        ViewNode(id: id, kind: .image, props: props([.src: .string(source), .alt: .string(alternative)]))
    }

    /// A paragraph.
    public static func text(id: String, _ text: String, style: TextStyle = .body) -> ViewNode {
        ViewNode(id: id, kind: .text, props: props([.text: .string(text), .style: .string(style.rawValue)]))
    }

    /// What an empty list shows.
    public static func emptyState(id: String, title: String, message: String? = nil) -> ViewNode {
        ViewNode(id: id, kind: .emptyState, props: props([.title: .string(title), .message: message.map(ViewValue.string)]))
    }

    /// A column of children.
    public static func stack(id: String, children: [ViewNode]) -> ViewNode {
        ViewNode(id: id, kind: .stack, children: children)
    }
}
