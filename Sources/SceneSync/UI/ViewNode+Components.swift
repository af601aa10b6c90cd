/// Builders for the renderer's components, so screens read like the views they describe.
extension ViewNode {
    /// A button in the navigation bar; `side` is "leading" or "trailing".
    public static func barButton(id: String, label: String, side: String = "trailing", role: String? = nil) -> ViewNode {
        ViewNode(id: id, kind: .barButton, props: props(["label": .string(label), "side": .string(side), "role": role.map(ViewValue.string)]))
    }

    /// A table of sections; in edit mode rows show Delete and can be reordered.
    public static func table(id: String, label: String, editing: Bool = false, sections: [ViewNode]) -> ViewNode {
        ViewNode(id: id, kind: .table, props: ["label": .string(label), "editing": .bool(editing)], children: sections)
    }

    /// A section of a table or form.
    public static func section(id: String, header: String? = nil, footer: String? = nil, children: [ViewNode]) -> ViewNode {
        ViewNode(id: id, kind: .section, props: props(["header": header.map(ViewValue.string), "footer": footer.map(ViewValue.string)]),
                 children: children)
    }

    /// A table row. `actions` are extra named actions, such as "Open in New Window".
    public static func row(
        id: String, title: String, subtitle: String? = nil, detail: String? = nil, image: String? = nil,
        disclosure: Bool = false, deletable: Bool = false, movable: Bool = false, actions: [(name: String, label: String)] = []
    ) -> ViewNode {
        ViewNode(id: id, kind: .row, props: props([
            "title": .string(title), "subtitle": subtitle.map(ViewValue.string), "detail": detail.map(ViewValue.string),
            "image": image.map(ViewValue.string), "accessory": disclosure ? "disclosure" : nil,
            "deletable": deletable ? true : nil, "movable": movable ? true : nil,
            "actions": actions.isEmpty ? nil : .array(actions.map { ["name": .string($0.name), "label": .string($0.label)] }),
        ]))
    }

    /// A form of sections.
    public static func form(id: String, sections: [ViewNode]) -> ViewNode {
        ViewNode(id: id, kind: .form, children: sections)
    }

    /// An editable field. `value` is the stored value; `draft` is unsaved text to show instead.
    /// `inputMode` is "text" or "numeric".
    public static func textField(
        id: String, label: String, value: String, draft: String? = nil, placeholder: String? = nil,
        inputMode: String = "text", error: String? = nil
    ) -> ViewNode {
        ViewNode(id: id, kind: .textField, props: props([
            "label": .string(label), "value": .string(value), "draft": draft.map(ViewValue.string),
            "placeholder": placeholder.map(ViewValue.string), "inputMode": .string(inputMode), "error": error.map(ViewValue.string),
        ]))
    }

    /// A read-only label and value.
    public static func label(id: String, label: String, value: String) -> ViewNode {
        ViewNode(id: id, kind: .label, props: ["label": .string(label), "value": .string(value)])
    }

    /// A button; `role` is "primary", "destructive" or nil.
    public static func button(id: String, label: String, role: String? = nil, disabled: Bool = false) -> ViewNode {
        ViewNode(id: id, kind: .button, props: props(["label": .string(label), "role": role.map(ViewValue.string), "disabled": disabled ? true : nil]))
    }

    /// An image with its text alternative.
    public static func image(id: String, source: String, alternative: String) -> ViewNode {
        ViewNode(id: id, kind: .image, props: ["src": .string(source), "alt": .string(alternative)])
    }

    /// A paragraph; `style` is "body", "title", "caption" or "footnote".
    public static func text(id: String, _ text: String, style: String = "body") -> ViewNode {
        ViewNode(id: id, kind: .text, props: ["text": .string(text), "style": .string(style)])
    }

    /// What an empty list shows.
    public static func emptyState(id: String, title: String, message: String? = nil) -> ViewNode {
        ViewNode(id: id, kind: .emptyState, props: props(["title": .string(title), "message": message.map(ViewValue.string)]))
    }

    /// A column of children.
    public static func stack(id: String, children: [ViewNode]) -> ViewNode {
        ViewNode(id: id, kind: .stack, children: children)
    }

    private static func props(_ values: [String: ViewValue?]) -> [String: ViewValue] {
        values.compactMapValues { $0 }
    }
}
