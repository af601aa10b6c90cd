public import Foundation

/// Builders for conversation screens: a split view, a message log, messages, and a composer.
extension ViewNode {
    /// Which pane of a split view shows in a narrow window.
    public enum SplitPane: String, Codable, Sendable, CaseIterable {
        /// The list.
        case primary
        /// The detail.
        case secondary
    }

    /// A split view, as `UISplitViewController`: `primary` (a list) and `secondary` (what the list
    /// selects) side by side in a wide window; in a narrow one only the pane `focus` shows, and the
    /// navigation bar's back button goes from the detail to the list.
    public static func split(id: String, focus: SplitPane, primary: ViewNode, secondary: ViewNode) -> ViewNode {
        ViewNode(id: id, kind: .split, props: props([.focus: .string(focus.rawValue)]), children: [primary, secondary])
    }

    /// A pane's own navigation bar, as each of a `UISplitViewController`'s columns has: put it
    /// first in a pane of a ``split(id:focus:primary:secondary:)``. It shows `title` and
    /// `buttons` (``barButton(id:label:side:role:icon:onTap:)``s); `back`, the title of the screen
    /// below (see ``ScreenController/backTitle``), shows as a back button only while the split
    /// shows this pane alone, and going back pops the window's navigation stack as the navigation
    /// bar's back button does. A window showing a split shows the panes' bars in place of its own.
    public static func paneBar(id: String, title: String, back: String? = nil, buttons: [ViewNode] = []) -> ViewNode {
        ViewNode(id: id, kind: .paneBar, props: props([.title: .string(title), .back: back.map(ViewValue.string)]), children: buttons)
    }

    /// A scrolling log of messages, newest at the bottom, with `earlier` (a "Load Earlier" button)
    /// first if older messages are left to load; the window taps it by itself when it scrolls into view.
    public static func messageList(id: String, label: String, earlier: ViewNode? = nil, messages: [ViewNode]) -> ViewNode {
        ViewNode(id: id, kind: .messageList, props: props([.label: .string(label)]), children: (earlier.map { [$0] } ?? []) + messages)
    }

    /// One message. `mine` when the person the window acts for sent it; `fromHere` when this very
    /// window did, which the window animates as sent rather than as arrived.
    public static func message(id: String, sender: String, text: String, time: Date, mine: Bool = false, fromHere: Bool = false) -> ViewNode {
        ViewNode(id: id, kind: .message, props: props([
            .sender: .string(sender), .text: .string(text), .time: .time(time),
            .mine: mine ? true : nil, .fromHere: fromHere ? true : nil,
        ]))
    }

    /// A field for a new message and its send button. `value` is the window's unsent text; the
    /// window reports typing with `onDraft` (debounced) and sending with `onSend`, both with the text.
    public static func composer(
        id: String, label: String, value: String, button: String, error: String? = nil, disabled: Bool = false,
        onDraft: (@MainActor @Sendable (String) async throws -> Void)? = nil,
        onSend: (@MainActor @Sendable (String) async throws -> Void)? = nil
    ) -> ViewNode {
        var actions = NodeActions()
        if !disabled {
            actions.on(.draft, text: onDraft)
            actions.on(.send, text: onSend)
        }
        return ViewNode(id: id, kind: .composer, props: props([
            .label: .string(label), .value: .string(value), .button: .string(button),
            .error: error.map(ViewValue.string), .disabled: disabled ? true : nil,
        ]), actions: actions)
    }
}
