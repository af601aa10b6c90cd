#if os(Linux)
import Foundation
import SceneSyncPostgres

/// An edit in a window on node A reaching windows on node B: two real `scenesync` processes on one
/// PostgreSQL database, raw-socket LootLogger windows (see ``RawWindows``). Window 0, on node A,
/// taps Add; the time runs from the tap until every window on node B has the patch. Node A's
/// window also waits for its `ack` before the next round, so that rounds do not overlap.
struct PostgresWindowsAcrossNodes {
    let url: PostgresURL
    let executable: String
    let scratch: URL
    let rounds: Int
    let warmup: Int
    let interval: Duration

    func run(windows count: Int) async throws -> (latency: LatencySummary, problems: [String]) {
        var problems: [String] = []
        var problemsB: [String] = []
        let environment = ["SCENESYNC_DATABASE_URL": url.stringWithPassword]
        let folder = scratch.appendingPathComponent("across-\(count)-\(UInt32.random(in: 0...UInt32.max))")
        let (rounds, warmup, interval) = (rounds, warmup, interval)
        let samples = try await WindowsServerProcess.with(
            executable: executable, dataDirectory: folder.appendingPathComponent("a"), log: folder.appendingPathComponent("a.log"),
            arguments: ["--node", "a"], environment: environment, problems: &problems
        ) { nodeA in
            let portA = nodeA.port
            return try await WindowsServerProcess.with(
                executable: executable, dataDirectory: folder.appendingPathComponent("b"), log: folder.appendingPathComponent("b.log"),
                arguments: ["--node", "b"], environment: environment, problems: &problemsB
            ) { nodeB in
                try await RawWindows.measure(count + 1, port: nodeB.port, app: WindowsFleet.app, batch: 50,
                                             thread: "scenesync-bench windows across nodes",
                                             portOf: { $0 == 0 ? portA : nil }) { windows, _ in
                    try Self.measure(&windows, rounds: rounds, warmup: warmup, interval: interval)
                }
            }
        }
        problems += problemsB
        guard let latency = LatencySummary(samples) else { throw WindowsBenchmarkError.server("no samples") }
        return (latency, problems)
    }

    private static func measure(_ windows: inout RawWindows, rounds: Int, warmup: Int, interval: Duration) throws -> [Duration] {
        let clock = ContinuousClock()
        var samples: [Duration] = []
        for round in 0..<(warmup + rounds) {
            let (sent, arrivals) = try WindowsRawFanOut.tapAdd(&windows, ref: round + 1, clock: clock, what: "the patch on node B")
            if round >= warmup, let last = arrivals.dropFirst().max() {
                samples.append(sent.duration(to: last))
            }
            let next = sent.advanced(by: interval)
            if clock.now < next { Thread.sleep(forTimeInterval: clock.now.duration(to: next).seconds) }
        }
        return samples
    }
}
#endif
