import Logging
import SceneSync
import SceneSyncSQLite
import Testing

/// A widget feed built on a model controller: the summary now, and a new one only when a commit
/// changes it.
struct WidgetFeedTests {
    static func summary(_ state: Journal) -> WidgetSummary {
        // Counts pairs of lines: every second line changes it.
        WidgetSummary(title: "Journal", lines: [.init(label: "Pairs", text: "\(state.lines.count / 2)")])
    }

    @Test(.timeLimit(.minutes(1))) func aNewSummaryComesOnlyWhenACommitChangesIt() async throws {
        let controller = try await ModelController<Journal>(app: "journal", storage: try SQLiteStorage.inMemory(), logger: Logger(label: "test"))
        let feed = WidgetFeed.following(controller, summarize: Self.summary)
        #expect(await feed.current().lines[0].text == "0")
        var changes = feed.changes().makeAsyncIterator()
        // The feed follows the controller from the moment its subscription is there.
        let started = ContinuousClock.now
        while controller.subscriberCount == 0, ContinuousClock.now - started < .seconds(10) {
            try await Task.sleep(for: .milliseconds(5))
        }
        for line in ["a", "b", "c", "d", "e"] { try await controller.append(line) }
        // Each summary is of the state when the feed looks: one that commits overtook is skipped,
        // never repeated, never out of order.
        var seen: [String] = []
        while seen.last != "2", let next = await changes.next() { seen.append(next.lines[0].text) }
        #expect(seen == ["1", "2"] || seen == ["2"], "\(seen)")
        #expect(await feed.current().lines[0].text == "2")
        await controller.close()
        #expect(await changes.next() == nil, "the feed ends with its controller")
    }
}
