@testable import SceneSyncServer
import SceneSyncTesting
import Testing

/// Memory of large messages given back once things are quiet: one trim per burst, none for
/// small messages.
@Suite struct HeapTrimTests {
    @Test func smallMessagesAskForNoTrim() async throws {
        let trim = HeapTrim(quietPeriod: .milliseconds(50))
        for _ in 0..<50 { trim.note(messageOf: HeapTrim.largeMessage - 1) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(trim.trims == 0)
    }

    @Test func aBurstOfLargeMessagesCostsOneTrimOnceQuiet() async throws {
        let quiet = Duration.milliseconds(300)
        let trim = HeapTrim(quietPeriod: quiet)
        let start = ContinuousClock.now
        for _ in 0..<5 { trim.note(messageOf: HeapTrim.largeMessage) }
        // One more while the first trim waits: it pushes the trim back rather than adding one.
        try await Task.sleep(for: .milliseconds(100))
        trim.note(messageOf: 2 * HeapTrim.largeMessage)
        let lastNote = ContinuousClock.now
        try await waitUntil("the trim", timeout: .seconds(10)) { trim.trims >= 1 }
        let trimmedAfter = lastNote.duration(to: .now)
        try await Task.sleep(for: quiet * 2)
        // On a machine so busy that the notes were a quiet period apart, each had a trim of its own.
        if start.duration(to: lastNote) < quiet {
            #expect(trim.trims == 1, "one trim for the whole burst")
            #expect(trimmedAfter >= quiet, "the last message pushed the trim back")
        }

        trim.requestTrim()
        let before = trim.trims
        try await waitUntil("another trim", timeout: .seconds(10)) { trim.trims == before + 1 }
    }
}
