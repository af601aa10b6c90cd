import SceneSync
@testable import SceneSyncUI
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

/// The sequence numbers a window keeps per app: what the other end has applied, shared between
/// windows that reach the same numbers.
@MainActor
struct SceneWindowSequenceTests {
    /// Windows that move to the same numbers share them; whatever the order, each window's numbers
    /// are the highest it was told of, per app, and nothing it was not told of.
    @Test func eachWindowKeepsItsOwnSequenceNumbersWhileSharingThem() async throws {
        let host = try await SceneHost.launch(delegate: DinerAppDelegate(), storage: try SQLiteStorage.inMemory())
        var windows: [SceneWindow] = []
        for _ in 0..<3 {
            let hosted = try await host.openWindow()
            windows.append(try #require(host.application.connectedScenes[hosted.sessionID]?.window))
        }
        let before = windows.map(\.sequences)
        var expected = windows.map { _ in [String: UInt64]() }
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        for _ in 0..<500 {
            let index = Int.random(in: 0..<windows.count, using: &random)
            let app = ["x", "y", "z"].randomElement(using: &random)!
            let sequence = UInt64.random(in: 1...6, using: &random)
            windows[index].noteSequence(sequence, for: app)
            expected[index][app] = max(expected[index][app] ?? 0, sequence)
            for (window, (own, told)) in zip(windows, zip(before, expected)) {
                #expect(window.sequences == own.merging(told) { $1 }, "seed \(seed)")
            }
        }
    }
}
