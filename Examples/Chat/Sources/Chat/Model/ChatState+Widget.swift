public import SceneSync
import Foundation

extension ChatState {
    /// What Chat's widget shows: the latest message in any conversation, and each person's unread
    /// messages (the three with the most), for a glance at who has something waiting.
    public var widgetSummary: WidgetSummary {
        var lines: [WidgetSummary.Line] = []
        let latest = conversations.keys.compactMap { id in messages(in: id).last.map { (id, $0) } }.max { $0.1.sentAt < $1.1.sentAt }
        if let (id, message) = latest {
            let title = conversations[id]?.title ?? "A conversation"
            lines.append(WidgetSummary.Line(label: "Latest in \(title)", text: "\(name(of: message.sender)): \(message.text)",
                                           time: Int64((message.sentAt.timeIntervalSince1970 * 1000).rounded())))
        } else {
            lines.append(WidgetSummary.Line(label: "Latest", text: "No messages yet"))
        }
        let waiting = people.values.map { ($0, unread(for: $0.id)) }.filter { $0.1 > 0 }
            .sorted { ($0.1, $1.0.name) > ($1.1, $0.0.name) }
        for (person, count) in waiting.prefix(3) {
            lines.append(WidgetSummary.Line(label: "Unread for \(person.name)", text: count == 1 ? "1 message" : "\(count) messages"))
        }
        if waiting.isEmpty { lines.append(WidgetSummary.Line(label: "Unread", text: "None")) }
        return WidgetSummary(title: "Chat", lines: lines)
    }
}
