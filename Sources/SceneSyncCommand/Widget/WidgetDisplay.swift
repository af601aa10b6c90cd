import Foundation
import SceneSync

/// Draws a widget summary. On a terminal it keeps one block of lines of a fixed shape and redraws
/// it in place; piped, it writes one line per drawing.
struct WidgetDisplay {
    /// Whether the summary shown is the server's latest, or an older one kept while the server
    /// cannot be reached.
    enum Freshness: Equatable {
        case current
        case stale(since: Int64)
    }

    let isTerminal: Bool
    private var drawnLines = 0
    /// How many times something was drawn.
    private(set) var drawings = 0

    init(isTerminal: Bool) {
        self.isTerminal = isTerminal
    }

    /// Draws `summary`. What the server sent is printed with its control characters escaped (see
    /// ``SceneSync/VisibleText/escapedForTerminal(_:)``): an item named with escape sequences
    /// cannot retitle, clear or rewrite the user's terminal.
    mutating func draw(_ summary: WidgetSummary, freshness: Freshness, now: Int64) {
        drawings += 1
        let status = Self.status(freshness, now: now)
        let title = VisibleText.escapedForTerminal(summary.title)
        let rows = summary.lines.map { (label: VisibleText.escapedForTerminal($0.label), value: VisibleText.escapedForTerminal(Self.value($0))) }
        if isTerminal {
            let width = rows.map(\.label.count).max() ?? 0
            var lines = [title]
            lines += rows.map { "  " + $0.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.value }
            lines.append(status.map { "  (\($0))" } ?? "")
            // Back to the top of the block drawn before, then each line cleared and written.
            var output = drawnLines > 0 ? "\u{1B}[\(drawnLines)F" : ""
            for line in lines { output += "\u{1B}[2K" + line + "\n" }
            for _ in lines.count..<max(lines.count, drawnLines) { output += "\u{1B}[2K\n" }
            drawnLines = max(lines.count, drawnLines)
            write(output)
        } else {
            var parts = [title] + rows.map { "\($0.label): \($0.value)" }
            if let status { parts.append(status) }
            write(parts.joined(separator: " | ") + "\n")
        }
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// A line's value; a time is shown in this machine's time zone.
    static func value(_ line: WidgetSummary.Line) -> String {
        guard let time = line.time else { return line.text }
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        return "\(line.text) at \(formatter.string(from: Date(timeIntervalSince1970: Double(time) / 1000)))"
    }

    static func status(_ freshness: Freshness, now: Int64) -> String? {
        switch freshness {
        case .current: nil
        case let .stale(since): "stale: the server cannot be reached; from \(age(now - since)) ago"
        }
    }

    /// "12 s", "5 min", "3 h", "2 days".
    static func age(_ milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds / 1000)
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3_600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3_600) h" }
        return seconds < 172_800 ? "1 day" : "\(seconds / 86_400) days"
    }
}
