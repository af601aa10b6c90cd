#if os(Linux)
import Foundation

/// Lays out what `scenesync-bench windows` measured as plain text or Markdown, with the targets
/// judged on the figures.
struct WindowsReport: Sendable {
    let context: MachineContext
    let results: WindowsResults

    static let fanOutTargets: [(windows: Int, p99: Duration)] = [(10, .milliseconds(5)), (1_000, .milliseconds(19))]
    static let patchLimit = 512
    /// Memory per window, in bytes (30 KB), on every list size.
    static let memoryLimitBytes = 30_000.0
    /// Server CPU per recipient, for every app.
    static let cpuPerRecipientLimit = Duration.microseconds(10)
    /// Server CPU per recipient, as a multiple of the floor's.
    static let floorRatioLimit = 3.0
    /// The large run: round p99 and the server's whole resident memory (300 MB).
    static let hugeTarget = (windows: 10_000, p99: Duration.milliseconds(100), bytes: 300_000_000.0)

    private static let fanOutHeaders = ["Windows", "Rounds", "Connect s", "p50 ms", "p99 ms", "max ms", "Per-window p50 ms", "Per-window p99 ms",
                                        "Server CPU ms/round", "CPU µs/recipient", "Poll gap ms"]
    private static let chatHeaders = ["Windows", "People", "Messages", "p50 ms", "p99 ms", "max ms", "Bytes/window", "Server CPU ms/message",
                                      "CPU µs/recipient", "Memory KiB/window"]
    private static let patchHeaders = ["Items", "First render bytes", "Patch bytes", "Patch bytes with frame header"]

    func plainText() -> String {
        var lines = ["SceneSync windows benchmark (scenesync-bench windows)"]
        let labelWidth = contextLines.map(\.0.count).max() ?? 0
        lines += contextLines.map { "  " + $0.0.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + "  " + $0.1 }
        lines += ["", "Fan-out latency: window 0 taps Add; time until the patch has reached every window (round) or each window (per-window)"]
        if !results.fanOut.isEmpty {
            lines += ["", "  WindowClient windows:"] + Self.table(Self.fanOutHeaders, Self.fanOutRows(results.fanOut))
        }
        if !results.rawFanOut.isEmpty {
            lines += ["", "  Raw windows (\(Self.rawDescription)):"] + Self.table(Self.fanOutHeaders, Self.fanOutRows(results.rawFanOut))
        }
        if !results.floorFanOut.isEmpty {
            lines += ["", "  Floor (\(Self.floorDescription)):"] + Self.table(Self.fanOutHeaders, Self.fanOutRows(results.floorFanOut))
            lines += floorLines.map { "  " + $0 }
        }
        lines += ["", "Patch bytes: window B commits value 7 on an item's detail; the patch window A's list receives"]
        lines += Self.table(Self.patchHeaders, patchRows)
        for patch in results.patches {
            lines.append("  \(Report.grouped(Double(patch.items))) items: \(patch.patchText)")
        }
        if let insert = results.patches.first?.insertText {
            lines.append("  Add (the fan-out patch), \(insert.utf8.count) bytes: \(insert)")
        }
        lines += ["", "Server memory: VmRSS of the server process"] + memoryLines.map { "  " + $0 }
        if let restaurant = results.restaurant {
            lines += ["", "Restaurant: window 0 taps Add to Order; time until every window's Order badge changed (raw windows)"]
            lines += Self.table(Self.fanOutHeaders, Self.fanOutRows([restaurant.badge]))
            lines += ["", "  POST /order; time until the order's row reached every window on the Order tab"]
            lines += Self.table(Self.fanOutHeaders, Self.fanOutRows([restaurant.kitchen]))
            lines += Self.restaurantLines(restaurant).map { "  " + $0 }
        }
        if let chat = results.chat {
            lines += ["", "Chat: window 0 sends a message; time until every window has it (raw windows, \(Self.chatDescription(chat)))"]
            lines += Self.table(Self.chatHeaders, [Self.chatRow(chat)])
        }
        if let huge = results.huge {
            lines += ["", "Large run: \(Report.grouped(Double(huge.memory.windows))) raw LootLogger windows on a server of their own; window 0 taps Add"]
            lines += Self.table(Self.fanOutHeaders, Self.fanOutRows([huge.fanOut]))
            if let floor = huge.floor {
                lines += ["", "  Floor with as many windows (\(Self.floorDescription)):"] + Self.table(Self.fanOutHeaders, Self.fanOutRows([floor]))
            }
            lines += hugeLines(huge).map { "  " + $0 }
        }
        lines += ["", "Targets"] + targetLines.map { "  " + $0 }
        lines += ["", "Notes"] + noteLines.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }

    func markdown() -> String {
        var lines = ["## Windows: fan-out, patch bytes, memory", ""]
        lines += contextLines.map { "- **\($0.0)**: \($0.1)" }
        lines += ["", "### Fan-out latency", "", "Window 0 taps Add; time until the patch has reached every window (round) or each window (per-window).", ""]
        if !results.fanOut.isEmpty {
            lines += ["WindowClient windows:", ""] + Self.markdownTable(Self.fanOutHeaders, Self.fanOutRows(results.fanOut))
        }
        if !results.rawFanOut.isEmpty {
            lines += ["", "Raw windows (\(Self.rawDescription)):", ""] + Self.markdownTable(Self.fanOutHeaders, Self.fanOutRows(results.rawFanOut))
        }
        if !results.floorFanOut.isEmpty {
            lines += ["", "Floor (\(Self.floorDescription)):", ""] + Self.markdownTable(Self.fanOutHeaders, Self.fanOutRows(results.floorFanOut))
            lines += [""] + floorLines.map { "- " + $0 }
        }
        lines += ["", "### Patch bytes", ""] + Self.markdownTable(Self.patchHeaders, patchRows)
        lines += ["", "### Server memory", ""] + memoryLines.map { "- " + $0 }
        if let restaurant = results.restaurant {
            lines += ["", "### Restaurant: badge and countdown", "", "Window 0 taps Add to Order; time until every window's Order badge changed (raw windows):", ""]
            lines += Self.markdownTable(Self.fanOutHeaders, Self.fanOutRows([restaurant.badge]))
            lines += ["", "`POST /order`; time until the order's row reached every window on the Order tab:", ""]
            lines += Self.markdownTable(Self.fanOutHeaders, Self.fanOutRows([restaurant.kitchen]))
            lines += [""] + Self.restaurantLines(restaurant).map { "- " + $0 }
        }
        if let chat = results.chat {
            lines += ["", "### Chat: a new message", "", "Window 0 sends a message; time until every window has it (raw windows, \(Self.chatDescription(chat))):", ""]
            lines += Self.markdownTable(Self.chatHeaders, [Self.chatRow(chat)])
        }
        if let huge = results.huge {
            lines += ["", "### Large run: \(Report.grouped(Double(huge.memory.windows))) windows", "",
                      "Raw LootLogger windows on a server of their own; window 0 taps Add:", ""]
            lines += Self.markdownTable(Self.fanOutHeaders, Self.fanOutRows([huge.fanOut]))
            if let floor = huge.floor {
                lines += ["", "Floor with as many windows (\(Self.floorDescription)):", ""] + Self.markdownTable(Self.fanOutHeaders, Self.fanOutRows([floor]))
            }
            lines += [""] + hugeLines(huge).map { "- " + $0 }
        }
        lines += ["", "### Targets", ""] + targetLines.map { "- " + $0 }
        lines += ["", "### Notes", ""] + noteLines.map { "- " + $0 }
        return lines.joined(separator: "\n")
    }

    // MARK: - Content

    private var contextLines: [(String, String)] {
        let settings = results.settings
        let kinds = (results.fanOut.isEmpty ? [] : ["WindowClient windows on its main actor"])
            + (results.rawFanOut.isEmpty ? [] : ["raw windows on a thread of their own"])
        let clients: String = "this process: \(kinds.joined(separator: ", then ")); open-file limit \(results.fileLimit)"
        let spacing: String = "at least \(settings.interval.milliseconds) ms apart; WindowClient windows looked at every \(settings.pollInterval.milliseconds) ms"
        let rounds: String = "\(settings.warmup) untimed, then \(settings.rounds) (\(settings.largeRounds) above \(settings.largeThreshold) windows), \(spacing)"
        let machine: [(String, String)] = context.lines.filter { $0.0 != "Databases in" }
        return machine + [
            ("Load average at end", results.loadAverageAtEnd.map { String(format: "%.2f (1 min)", $0) } ?? "unknown"),
            ("Server", "\(results.server), its own process, 127.0.0.1, synchronous=FULL"),
            ("Clients", clients),
            ("Rounds", rounds),
            ("Data in", settings.parent.path),
            ("Wall time", String(format: "%.1f s", results.wallTime.seconds)),
        ]
    }

    private static let rawDescription = "raw WebSockets woken by poll(2) on a thread of their own, decoding nothing; stamped when read"
    private static let floorDescription = "scenesync-bench floor-server, a bare Hummingbird WebSocket server in a process of its own: "
        + "the last raw window's patch above, encoded once, written to every socket by one loop per event loop; the same raw windows"
    private static func chatDescription(_ chat: WindowsChatResult) -> String {
        let on = chat.listWindows == 0
            ? "every window visible and focused on the conversation"
            : "every window visible and focused, \(Report.grouped(Double(chat.listWindows))) of them on the conversation list, where the message changes the conversation's row"
        return "one browser profile per person, \(on); messages 100 ms apart"
    }

    private static func microseconds(_ duration: Duration?) -> String {
        duration.map { String(format: "%.2f", $0.milliseconds * 1_000) } ?? "-"
    }

    private static func chatRow(_ chat: WindowsChatResult) -> [String] {
        let result = chat.rounds
        return [Report.grouped(Double(result.windows)), String(chat.people), "\(chat.messages) + \(result.rounds)",
                String(format: "%.2f", result.percentile(0.5).milliseconds), String(format: "%.2f", result.percentile(0.99).milliseconds),
                String(format: "%.2f", (result.latencies.max() ?? .zero).milliseconds), String(format: "%.0f", result.meanBytesPerWindow),
                String(format: "%.2f", result.cpuPerMessage.milliseconds), microseconds(chat.cpuPerRecipient),
                String(format: "%.1f", result.memoryPerWindowKiB)]
    }

    /// Per window count with a floor: the real server's figures over the floor's.
    private var floorLines: [String] {
        results.floorFanOut.compactMap { floor in
            results.rawFanOut.first { $0.windows == floor.windows }.map { Self.overFloor($0, floor) }
        } + marginalLine
    }

    /// One window count's real server over the floor: CPU per recipient, round p50 and p99, the frame.
    private static func overFloor(_ real: WindowsFanOutResult, _ floor: WindowsFanOutResult) -> String {
        var parts = ["\(Report.grouped(Double(floor.windows))) windows: server over floor, CPU per recipient "
            + "\(microseconds(real.serverCPUPerRecipient)) / \(microseconds(floor.serverCPUPerRecipient)) µs = \(ratio(real.serverCPUPerRecipient, floor.serverCPUPerRecipient))"]
        if let realRound = real.round, let floorRound = floor.round {
            parts.append("round p50 " + String(format: "%.2f / %.2f ms", realRound.p50.milliseconds, floorRound.p50.milliseconds)
                + " = \(ratio(realRound.p50, floorRound.p50))")
            parts.append("round p99 " + String(format: "%.2f / %.2f ms", realRound.p99.milliseconds, floorRound.p99.milliseconds)
                + " = \(ratio(realRound.p99, floorRound.p99))")
        }
        if let frame = real.frame {
            parts.append("frame \(frame.wireBytes) bytes (\(frame.payload.count) payload)"
                + (floor.frame?.wireBytes == frame.wireBytes ? ", the same on the floor's sockets" : ", \(floor.frame?.wireBytes ?? 0) bytes on the floor's sockets"))
        }
        return parts.joined(separator: "; ")
    }

    /// At few windows a round's fixed cost (reading the action, the ack) outweighs the windows';
    /// the CPU each further window adds, between the fewest and the most windows, leaves it out.
    private var marginalLine: [String] {
        func marginal(_ measured: [WindowsFanOutResult]) -> Duration? {
            guard let low = measured.min(by: { $0.windows < $1.windows }), let high = measured.max(by: { $0.windows < $1.windows }),
                  high.windows > low.windows, let lowCPU = low.serverCPUPerRound, let highCPU = high.serverCPUPerRound else { return nil }
            return (highCPU - lowCPU) / (high.windows - low.windows)
        }
        let counts = Set(results.floorFanOut.map(\.windows))
        let real = marginal(results.rawFanOut.filter { counts.contains($0.windows) })
        guard let real, let floor = marginal(results.floorFanOut) else { return [] }
        return ["CPU per additional window (CPU per round between the fewest and the most windows): server \(Self.microseconds(real)) µs, "
            + "floor \(Self.microseconds(floor)) µs = \(Self.ratio(real, floor))"]
    }

    private static func ratio(_ numerator: Duration?, _ denominator: Duration?) -> String {
        guard let numerator, let denominator, denominator > .zero else { return "- (a floor of 0 is below /proc's 10 ms tick; run more rounds)" }
        return String(format: "%.1f×", numerator / denominator)
    }

    /// What one more window costs and what the windows share, from the reading at half of them.
    private static func marginal(_ memory: WindowsMemoryResult) -> String {
        guard let half = memory.halfKilobytes, let marginal = memory.marginalKilobytesPerWindow, let shared = memory.sharedKilobytes else { return "" }
        return "; by itself a window adds (\(memory.loadedKilobytes) − \(half) KiB) / \(memory.windows - memory.windows / 2) = "
            + String(format: "%.1f KiB, and the windows share %@", marginal, mebibytes(Int(shared.rounded())))
    }

    private func hugeLines(_ huge: WindowsHugeResult) -> [String] {
        let memory = huge.memory
        return [
            "Server options added: \(huge.extraArguments.joined(separator: " ")); the windows name client addresses in X-Forwarded-For, "
                + "1,000 to an address (every window is on 127.0.0.1, and the server keeps at most 2,048 sessions per client address)",
            "Idle, no window: \(Self.mebibytes(memory.idleKilobytes)); with \(Report.grouped(Double(memory.windows))) windows after settling: "
                + "\(Self.mebibytes(memory.loadedKilobytes))" + String(format: " (connecting took %.1f s)", memory.connectTime.seconds),
            "Per window: (\(memory.loadedKilobytes) − \(memory.idleKilobytes) KiB) / \(memory.windows) = "
                + String(format: "%.1f KiB", memory.kilobytesPerWindow)
                + ", with a list of \(Report.grouped(Double(results.settings.listSizes.first ?? 0))) items",
            String(format: "Closing them: %.1f s until the server was idle again", memory.closeTime.seconds),
        ] + (huge.floor.map { [Self.overFloor(huge.fanOut, $0)] } ?? [])
    }

    private static func fanOutRows(_ results: [WindowsFanOutResult]) -> [[String]] {
        results.map { result in
            [Report.grouped(Double(result.windows)), String(result.rounds), String(format: "%.1f", result.connectTime.seconds)]
                + cells(result.round, all: true) + cells(result.perWindow, all: false)
                + [result.serverCPUPerRound.map { String(format: "%.2f", $0.milliseconds) } ?? "-"]
                + [microseconds(result.serverCPUPerRecipient)]
                + [result.meanPollGap.map { String(format: "%.3f", $0.milliseconds) } ?? "-"]
        }
    }

    private static func restaurantLines(_ restaurant: WindowsRestaurantResult) -> [String] {
        func spread(_ values: [Int]) -> String {
            guard let low = values.min(), let high = values.max() else { return "-" }
            let mean = Double(values.reduce(0, +)) / Double(values.count)
            return low == high ? "\(low) B" : String(format: "%.1f B (%d to %d)", mean, low, high)
        }
        return [
            "Bytes per window for the badge (every other window, every round): " + spread(restaurant.badgeBytesPerWindow),
            "Bytes per window for an order arriving in the kitchen: " + spread(restaurant.kitchenBytesPerWindow),
            String(format: "While the countdown showed: %d bytes to %@ windows in %.1f s = %.2f B/s per window",
                   restaurant.quietBytes, Report.grouped(Double(restaurant.windows)), restaurant.quiet.seconds,
                   restaurant.quietBytesPerSecondPerWindow),
        ]
    }

    private var patchRows: [[String]] {
        results.patches.map { patch in
            [Report.grouped(Double(patch.items)), Report.grouped(Double(patch.renderBytes)),
             String(patch.patchBytes), String(patch.patchWireBytes)]
        }
    }

    private var memoryLines: [String] {
        let memory = results.memory
        return [
            "Idle, no window: \(Self.mebibytes(memory.idleKilobytes))",
            "With \(Report.grouped(Double(memory.windows))) windows, each with its first render, after settling: \(Self.mebibytes(memory.loadedKilobytes))"
                + String(format: " (connecting took %.1f s)", memory.connectTime.seconds),
            "Per window: (\(memory.loadedKilobytes) − \(memory.idleKilobytes) KiB) / \(memory.windows) = "
                + String(format: "%.1f KiB", memory.kilobytesPerWindow)
                + ", with a list of \(Report.grouped(Double(results.settings.listSizes.first ?? 0))) items",
            String(format: "Closing them: %.1f s until the server was idle again (a disconnecting scene saves its session)", memory.closeTime.seconds),
        ] + results.listMemory.map { list in
            "With \(Report.grouped(Double(list.memory.windows))) raw windows on a list of \(Report.grouped(Double(list.items))) items: "
                + "(\(list.memory.loadedKilobytes) − \(list.memory.idleKilobytes) KiB) / \(list.memory.windows) = "
                + String(format: "%.1f KiB per window (connecting took %.1f s)", list.memory.kilobytesPerWindow, list.memory.connectTime.seconds)
                + Self.marginal(list.memory)
        } + (results.floorMemory.map { floor in
            ["The floor (\(Self.floorDescription)) with \(Report.grouped(Double(floor.windows))) raw windows: "
                + "(\(floor.loadedKilobytes) − \(floor.idleKilobytes) KiB) / \(floor.windows) = "
                + String(format: "%.1f KiB per connection", floor.kilobytesPerWindow)]
        } ?? [])
    }

    private var targetLines: [String] {
        var lines: [String] = []
        for target in Self.fanOutTargets {
            let label = "Fan-out p99 ≤ \(Int(target.p99.milliseconds)) ms at \(Report.grouped(Double(target.windows))) windows"
            let verdicts = [("WindowClient windows", results.fanOut), ("raw windows", results.rawFanOut)].compactMap { name, measured in
                measured.first { $0.windows == target.windows }?.round.map { round in
                    "\(name) " + String(format: "%.2f ms", round.p99.milliseconds) + " -> \(Self.verdict(round.p99 <= target.p99))"
                }
            }
            lines.append("\(label): " + (verdicts.isEmpty ? "not measured" : verdicts.joined(separator: "; ")))
        }
        lines += cpuTargetLines
        let sizes = results.patches.map { "\($0.patchBytes) B at \(Report.grouped(Double($0.items)))" }.joined(separator: ", ")
        let largest = results.patches.map(\.patchBytes).max() ?? 0
        lines.append("Patch < \(Self.patchLimit) bytes at every list size: \(sizes) -> \(Self.verdict(largest < Self.patchLimit))")
        lines.append("Patch the same at every list size: " + sameSizeVerdict)
        if let restaurant = results.restaurant {
            lines.append(String(format: "Bytes per second per window while a countdown shows = 0: %.2f", restaurant.quietBytesPerSecondPerWindow)
                + " -> \(Self.verdict(restaurant.quietBytes == 0))")
        }
        let memoryLimit = "≤ 30 KB (\(String(format: "%.1f", Self.memoryLimitBytes / 1_024)) KiB) per window"
        let memories = [(results.settings.listSizes.first ?? 0, results.memory)] + results.listMemory.map { ($0.items, $0.memory) }
        for (items, memory) in memories {
            // A window's own memory: what one more adds, where measured; else the average.
            let perWindow = memory.marginalKilobytesPerWindow ?? memory.kilobytesPerWindow
            let how = memory.marginalKilobytesPerWindow == nil ? "" : String(format: " by itself (%.1f KiB with what the windows share)", memory.kilobytesPerWindow)
            lines.append("Server memory \(memoryLimit) on a \(Report.grouped(Double(items)))-row list: "
                + String(format: "%.1f KiB", perWindow) + how + " -> \(Self.verdict(perWindow * 1_024 <= Self.memoryLimitBytes))")
        }
        let target = Self.hugeTarget
        if let huge = results.huge {
            let bytes = Double(huge.memory.loadedKilobytes) * 1_024
            let windows = Report.grouped(Double(huge.memory.windows))
            let p99 = huge.fanOut.round?.p99
            let partial = huge.memory.windows < target.windows
                ? " (run with \(windows) windows, not \(Report.grouped(Double(target.windows))): indicative only)" : ""
            lines.append("\(Report.grouped(Double(target.windows))) windows\(partial): round p99 ≤ \(Int(target.p99.milliseconds)) ms: "
                + (p99.map { String(format: "%.2f ms", $0.milliseconds) + " -> \(Self.verdict($0 <= target.p99))" } ?? "not measured")
                + (huge.floor?.round.map { String(format: " (the floor's with as many windows: %.2f ms)", $0.p99.milliseconds) } ?? "")
                + "; server memory ≤ 300 MB (\(String(format: "%.1f", target.bytes / 1_048_576)) MiB): \(Self.mebibytes(huge.memory.loadedKilobytes))"
                + " -> \(Self.verdict(bytes <= target.bytes))")
        } else {
            lines.append("\(Report.grouped(Double(target.windows))) windows, round p99 ≤ \(Int(target.p99.milliseconds)) ms and server memory ≤ 300 MB: "
                + "not measured (--huge-windows \(target.windows))")
        }
        return lines
    }

    /// CPU per recipient for every app measured, against the limit and against the floor at the
    /// same window count (else the floor at the most windows measured).
    private var cpuTargetLines: [String] {
        var apps: [(String, Int, Duration?, WindowsFanOutResult?)] = []
        if let raw = results.rawFanOut.max(by: { $0.windows < $1.windows }) {
            apps.append(("LootLogger Add", raw.windows, raw.serverCPUPerRecipient, nil))
        }
        if let restaurant = results.restaurant { apps.append(("Restaurant badge", restaurant.windows, restaurant.badge.serverCPUPerRecipient, nil)) }
        if let chat = results.chat { apps.append(("Chat message", chat.rounds.windows, chat.cpuPerRecipient, nil)) }
        if let huge = results.huge { apps.append(("LootLogger Add, large run", huge.fanOut.windows, huge.fanOut.serverCPUPerRecipient, huge.floor)) }
        let limit = Self.microseconds(Self.cpuPerRecipientLimit)
        return apps.map { name, windows, cpu, ownFloor in
            let floor = ownFloor ?? results.floorFanOut.first { $0.windows == windows } ?? results.floorFanOut.max { $0.windows < $1.windows }
            var line = "Server CPU ≤ \(limit) µs per recipient, \(name) at \(Report.grouped(Double(windows))) window\(windows == 1 ? "" : "s"): "
                + "\(Self.microseconds(cpu)) µs"
                + " -> \(cpu.map { Self.verdict($0 <= Self.cpuPerRecipientLimit) } ?? "not measured")"
            if let floor, let floorCPU = floor.serverCPUPerRecipient, let cpu, floorCPU > .zero {
                let ratio = cpu / floorCPU
                line += "; ≤ \(Int(Self.floorRatioLimit))× the floor (\(Self.microseconds(floorCPU)) µs at \(Report.grouped(Double(floor.windows))) windows): "
                    + String(format: "%.1f×", ratio) + " -> \(Self.verdict(ratio <= Self.floorRatioLimit))"
            } else {
                line += "; ≤ \(Int(Self.floorRatioLimit))× the floor: not measured"
            }
            return line
        }
    }

    private static func verdict(_ passed: Bool) -> String { passed ? "PASS" : "MISS" }

    /// Equal sizes pass; otherwise the difference is taken apart into the footer's digits and the
    /// sequence number's, and passes only if nothing else is left.
    private var sameSizeVerdict: String {
        guard let first = results.patches.first, let last = results.patches.last, results.patches.count > 1 else { return "one size only" }
        let difference = last.patchBytes - first.patchBytes
        guard difference != 0 else { return "\(first.patchBytes) bytes at both -> PASS" }
        let footer = (last.footer?.utf8.count ?? 0) - (first.footer?.utf8.count ?? 0)
        let sequence = String(last.sequence ?? 0).count - String(first.sequence ?? 0).count
        let rest = difference - footer - sequence
        let parts = "footer \"\(first.footer ?? "?")\" → \"\(last.footer ?? "?")\" \(Self.signed(footer)), "
            + "sequence \(first.sequence ?? 0) → \(last.sequence ?? 0) \(Self.signed(sequence))"
        return "\(Self.signed(difference)) bytes from \(Report.grouped(Double(first.items))) to \(Report.grouped(Double(last.items))) items: \(parts)"
            + (rest == 0 ? " -> PASS up to the width of those numbers" : ", \(Self.signed(rest)) unexplained -> MISS")
    }

    private var noteLines: [String] {
        var lines: [String] = []
        if let patch = results.patches.first, let cost = patch.clientApplyCost, !results.fanOut.isEmpty {
            let windows = results.fanOut.map(\.windows).max() ?? 0
            lines.append("Client share: decoding the Add patch and applying it to a window's view of \(Report.grouped(Double(patch.items))) rows took "
                + String(format: "%.1f µs here. ", cost.milliseconds * 1_000)
                + "WindowClient windows do that one after another on this process's main actor, so at least "
                + String(format: "%.1f ms", cost.milliseconds * Double(windows))
                + " of a \(Report.grouped(Double(windows)))-window round is the test client, not the server (more as the list grows).")
        }
        for patch in results.patches where !patch.strayMessages.isEmpty {
            lines.append("Window A received \(patch.strayMessages.count) message(s) before the edit at \(patch.items) items: \(patch.strayMessages)")
        }
        lines.append(results.serverProblems.isEmpty ? "The servers logged no errors and stopped cleanly on SIGTERM."
                     : "Server problems (\(results.serverProblems.count)): \(results.serverProblems.joined(separator: "\n"))")
        return lines
    }

    // MARK: - Formatting

    private static func cells(_ summary: LatencySummary?, all: Bool) -> [String] {
        guard let summary else { return all ? ["-", "-", "-"] : ["-", "-"] }
        let figures = all ? [summary.p50, summary.p99, summary.max] : [summary.p50, summary.p99]
        return figures.map { String(format: "%.2f", $0.milliseconds) }
    }

    private static func mebibytes(_ kilobytes: Int) -> String {
        "\(Report.grouped(Double(kilobytes))) KiB (" + String(format: "%.1f MiB", Double(kilobytes) / 1_024) + ")"
    }

    private static func signed(_ value: Int) -> String { value > 0 ? "+\(value)" : "\(value)" }

    private static func table(_ headers: [String], _ rows: [[String]]) -> [String] {
        let widths = headers.indices.map { column in ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "  " + cells.indices.map { String(repeating: " ", count: widths[$0] - cells[$0].count) + cells[$0] }.joined(separator: "  ")
        }
        return [line(headers), "  " + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] + rows.map(line)
    }

    private static func markdownTable(_ headers: [String], _ rows: [[String]]) -> [String] {
        ["| " + headers.joined(separator: " | ") + " |", "|" + String(repeating: " ---: |", count: headers.count)]
            + rows.map { "| " + $0.joined(separator: " | ") + " |" }
    }
}
#endif
