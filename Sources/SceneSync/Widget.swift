import Foundation

/// A small summary of an app for a widget: a title and a few lines in a fixed order, so that a
/// widget's layout stays put when only the values change.
///
/// ```swift
/// WidgetSummary(title: "LootLogger", lines: [
///     .init(label: "Items", text: "12"),
///     .init(label: "Total", text: "$1,204"),
///     .init(label: "Most valuable", text: "Shiny Mac, $890"),
/// ])
/// ```
public struct WidgetSummary: Codable, Sendable, Equatable {
    /// What the widget is about, usually the app's title.
    public var title: String
    /// The lines, in the order they show.
    public var lines: [Line]

    /// One line: a label and its value.
    public struct Line: Codable, Sendable, Equatable {
        /// What the line is, such as "Items".
        public var label: String
        /// Its value as text, such as "12"; for a line with a ``time``, what to show if the
        /// widget does not format the time itself.
        public var text: String
        /// A moment the line is about, such as when an order will be ready: milliseconds since
        /// 1970-01-01 UTC, for a widget to show in its own time zone.
        public var time: Int64?

        /// Creates a line.
        public init(label: String, text: String, time: Int64? = nil) {
            self.label = label
            self.text = text
            self.time = time
        }
    }

    /// Creates a summary.
    public init(title: String, lines: [Line]) {
        self.title = title
        self.lines = lines
    }
}

/// Where an app's widget summaries come from: the summary now, and each new one as the app's data
/// changes.
public struct WidgetFeed: Sendable {
    /// The summary now.
    public let current: @Sendable () async -> WidgetSummary
    /// Each new summary from now on, only when it differs from the one before; the stream ends
    /// when the app's data stops changing for good (its model controller closed).
    public let changes: @Sendable () -> AsyncStream<WidgetSummary>

    /// Creates a feed from its two halves.
    public init(current: @escaping @Sendable () async -> WidgetSummary,
                changes: @escaping @Sendable () -> AsyncStream<WidgetSummary>) {
        self.current = current
        self.changes = changes
    }

    /// A feed that summarizes a model controller's committed state, once after each commit. Each
    /// summary is of the state as it is when the feed gets to it: when commits come faster than
    /// it summarizes, the summaries in between are skipped, as a widget wants.
    ///
    /// - Parameters:
    ///   - controller: The model controller whose state the feed summarizes.
    ///   - summarize: Builds the summary from the state; keep it cheap, it runs once per commit.
    public static func following<State>(
        _ controller: ModelController<State>, summarize: @escaping @Sendable (State) -> WidgetSummary
    ) -> WidgetFeed {
        WidgetFeed(current: { summarize(await controller.snapshot().state) }, changes: {
            AsyncStream { continuation in
                let task = Task {
                    var snapshot = await controller.snapshot()
                    var last = summarize(snapshot.state)
                    // A follower that falls behind the log starts again from a fresh snapshot.
                    while !Task.isCancelled {
                        do {
                            for try await _ in controller.events(after: snapshot.sequence) {
                                let summary = summarize(await controller.snapshot().state)
                                if summary != last {
                                    last = summary
                                    continuation.yield(summary)
                                }
                            }
                            break
                        } catch {
                            snapshot = await controller.snapshot()
                            let summary = summarize(snapshot.state)
                            if summary != last {
                                last = summary
                                continuation.yield(summary)
                            }
                        }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        })
    }
}
