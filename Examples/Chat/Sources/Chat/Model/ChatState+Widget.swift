public import SceneSync
import Foundation

extension ChatState {
    /// What Chat's widget shows: who sent the latest message and when, and each person's unread
    /// messages (the three with the most). It names no conversation and quotes no message: the
    /// widget is the server's, not one person's, and whoever can reach the server can read it.
    public var widgetSummary: WidgetSummary {
        var lines: [WidgetSummary.Line] = []
        if let (_, message) = latest {
            lines.append(WidgetSummary.Line(label: "Latest message", text: "from \(name(of: message.sender))",
                                           time: Int64((message.sentAt.timeIntervalSince1970 * 1000).rounded())))
        } else {
            lines.append(WidgetSummary.Line(label: "Latest message", text: "none yet"))
        }
        let waiting = unreadTotals.filter { $0.value > 0 }.map { (name(of: $0.key), $0.value) }
            .sorted { ($0.1, $1.0) > ($1.1, $0.0) }
        for (name, count) in waiting.prefix(3) {
            lines.append(WidgetSummary.Line(label: "Unread for \(name)", text: count == 1 ? "1 message" : "\(count) messages"))
        }
        if waiting.isEmpty { lines.append(WidgetSummary.Line(label: "Unread", text: "none")) }
        return WidgetSummary(title: "Chat", lines: lines)
    }
}
