import Foundation
import SceneSyncSQLite

/// Lays the measurements out as a plain-text or Markdown table, with the ratio to the raw
/// baseline and the two throughput targets.
struct Report: Sendable {
    let context: MachineContext
    let measurements: [BenchmarkResult]
    let batchSize: Int
    /// The 1-minute load average when the last configuration finished.
    let loadAverageAtEnd: Double?

    /// The throughput SceneSync must reach with 64 writers at FULL.
    static let targetRate = 20_000.0
    /// The share of the raw batched FULL rate SceneSync must reach.
    static let targetShare = 0.5
    static let targetWriters = 64

    private static let headers = [
        "Workload", "Sync", "Intents", "Seconds", "Intents/s", "Intents/commit", "p50 ms", "p99 ms", "max ms",
        "CPU µs/intent", "Cores used",
    ]

    func plainText() -> String {
        var lines = ["SceneSync benchmark"]
        let labelWidth = context.lines.map(\.0.count).max() ?? 0
        for (label, value) in context.lines {
            lines.append("  " + label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + "  " + value)
        }
        lines.append("")
        let rows = measurements.map(cells)
        let widths = Self.headers.indices.map { column in
            ([Self.headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.indices.map { column in
                // Text columns read best left-aligned, figures right-aligned.
                column < 2 ? cells[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cells[column].count) + cells[column]
            }.joined(separator: "  ")
        }
        lines.append(line(Self.headers))
        lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        lines += rows.map(line)
        lines.append("")
        lines += summary()
        return lines.joined(separator: "\n")
    }

    func markdown() -> String {
        var lines = context.lines.map { "- **\($0.0)**: \($0.1)" }
        lines.append("")
        lines.append("| " + Self.headers.joined(separator: " | ") + " |")
        lines.append("|" + Self.headers.indices.map { $0 < 2 ? " --- |" : " ---: |" }.joined())
        lines += measurements.map(cells).map { "| " + $0.joined(separator: " | ") + " |" }
        lines.append("")
        lines += summary().map { "- " + $0 }
        return lines.joined(separator: "\n")
    }

    /// The ratio and the targets, judged on whatever was measured.
    func summary() -> [String] {
        let sceneSync = measurements.first { $0.workload == .sceneSync(writers: Self.targetWriters) && $0.durability == .full }
        let raw = measurements.first { $0.workload == .rawGRDB(intentsPerTransaction: batchSize) && $0.durability == .full }
        var lines: [String] = []
        if let sceneSync, let raw {
            let ratio = sceneSync.intentsPerSecond / raw.intentsPerSecond
            lines.append("Ratio: SceneSync \(Self.targetWriters) writers FULL / raw GRDB \(batchSize) per transaction FULL = "
                + "\(Self.grouped(sceneSync.intentsPerSecond)) / \(Self.grouped(raw.intentsPerSecond)) = \(String(format: "%.2f", ratio))x")
        }
        if let sceneSync {
            let rate = sceneSync.intentsPerSecond
            lines.append("Target >= \(Self.grouped(Self.targetRate)) intents/s with \(Self.targetWriters) writers at FULL: "
                + "\(Self.grouped(rate)) intents/s -> \(rate >= Self.targetRate ? "PASS" : "MISS")")
            if let raw {
                let needed = raw.intentsPerSecond * Self.targetShare
                lines.append("Target >= \(Self.targetShare) x raw batched FULL rate (>= \(Self.grouped(needed)) intents/s): "
                    + "\(Self.grouped(rate)) intents/s -> \(rate >= needed ? "PASS" : "MISS")")
            } else {
                lines.append("Target >= \(Self.targetShare) x raw batched FULL rate: not measured (no raw batched FULL run)")
            }
        } else {
            lines.append("Targets: not measured (add \(Self.targetWriters) to --writers)")
        }
        if let loadAverageAtEnd {
            lines.append("Load average at end: \(String(format: "%.2f", loadAverageAtEnd)) (1 min)")
        }
        return lines
    }

    private func cells(_ measurement: BenchmarkResult) -> [String] {
        let workload = switch measurement.workload {
        case let .sceneSync(writers): "SceneSync, \(writers) writer\(writers == 1 ? "" : "s")"
        case let .rawGRDB(perTransaction): "Raw GRDB, \(perTransaction) per transaction"
        }
        let latency = measurement.latency
        return [
            workload,
            measurement.durability.synchronousPragma,
            Self.grouped(Double(measurement.intents)),
            String(format: "%.2f", measurement.elapsed.seconds),
            Self.grouped(measurement.intentsPerSecond),
            String(format: "%.1f", measurement.intentsPerCommit),
            latency.map { String(format: "%.2f", $0.p50.milliseconds) } ?? "-",
            latency.map { String(format: "%.2f", $0.p99.milliseconds) } ?? "-",
            latency.map { String(format: "%.2f", $0.max.milliseconds) } ?? "-",
            String(format: "%.0f", measurement.cpuMicrosecondsPerIntent),
            String(format: "%.2f", measurement.coresUsed),
        ]
    }

    /// A whole number with thousands separators, whatever the locale.
    static func grouped(_ value: Double) -> String {
        let digits = String(Int(value.rounded()))
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }
}
