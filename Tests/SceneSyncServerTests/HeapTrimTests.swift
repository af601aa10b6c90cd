@testable import SceneSyncServer
import SceneSyncTesting
import Testing

/// Memory of large messages given back once things are quiet: one trim per burst, none for
/// small messages, one within the longest delay however steady the stream, trims apart.
@Suite struct HeapTrimTests {
    @Test func smallMessagesAskForNoTrim() async throws {
        let trim = HeapTrim(quietPeriod: .milliseconds(50), minimumGap: .zero)
        for _ in 0..<50 { trim.note(messageOf: HeapTrim.largeMessage - 1) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(trim.trims == 0)
    }

    @Test func aBurstOfLargeMessagesCostsOneTrimOnceQuiet() async throws {
        let quiet = Duration.milliseconds(300)
        let trim = HeapTrim(quietPeriod: quiet, minimumGap: .zero)
        let start = ContinuousClock.now
        for _ in 0..<5 { trim.note(messageOf: HeapTrim.largeMessage) }
        // One more while the first trim waits: it pushes the trim back rather than adding one.
        try await Task.sleep(for: .milliseconds(100))
        let lastNote = ContinuousClock.now
        trim.note(messageOf: 2 * HeapTrim.largeMessage)
        try await waitUntil("the trim", timeout: .seconds(10)) { trim.trimmedAt.last.map { $0 > lastNote } ?? false }
        let trimmedAt = try #require(trim.trimmedAt.last)
        #expect(lastNote.duration(to: trimmedAt) >= quiet, "the last message pushed the trim back")
        try await Task.sleep(for: quiet * 2)
        // On a machine so busy that the notes were a quiet period apart, each had a trim of its own.
        if start.duration(to: lastNote) < quiet {
            #expect(trim.trims == 1, "one trim for the whole burst")
        }

        trim.requestTrim()
        let before = trim.trims
        try await waitUntil("another trim", timeout: .seconds(10)) { trim.trims == before + 1 }
    }

    /// A trim that comes while messages keep coming, less than a quiet period apart, comes from
    /// the longest delay. On a machine so busy that this loop stood still for a quiet period, the
    /// stream did go quiet and the attempt shows nothing: it is made again.
    @Test func aSteadyStreamIsTrimmedWithinTheLongestDelay() async throws {
        let quiet = Duration.seconds(2)
        for _ in 0..<3 {
            let trim = HeapTrim(quietPeriod: quiet, maximumDelay: .milliseconds(300), minimumGap: .zero)
            var notes: [ContinuousClock.Instant] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while trim.trims == 0, ContinuousClock.now < deadline {
                notes.append(.now)
                trim.note(messageOf: HeapTrim.largeMessage)
                try await Task.sleep(for: .milliseconds(20))
            }
            let trimmedAt = try #require(trim.trimmedAt.first, "no trim while messages kept coming")
            let steady = notes.filter { $0 < trimmedAt } + [trimmedAt]
            let longestGap = zip(steady, steady.dropFirst()).map { $0.duration(to: $1) }.max() ?? .zero
            if longestGap < quiet { return }
        }
        Issue.record("the messages were a quiet period apart somewhere before every trim")
    }

    @Test func trimsAreAtLeastTheGapApart() async throws {
        let gap = Duration.milliseconds(400)
        let trim = HeapTrim(quietPeriod: .milliseconds(20), minimumGap: gap)
        trim.requestTrim()
        try await waitUntil("the first trim", timeout: .seconds(10)) { trim.trims == 1 }
        trim.requestTrim()
        try await waitUntil("the second trim", timeout: .seconds(10)) { trim.trims == 2 }
        let times = trim.trimmedAt
        #expect(times[0].duration(to: times[1]) >= gap)
    }
}
