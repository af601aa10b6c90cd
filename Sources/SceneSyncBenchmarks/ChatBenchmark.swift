import ArgumentParser
import Chat
import Foundation
import GRDB
import Logging
import SceneSync
import SceneSyncSQLite

#if os(Linux)
import Glibc
#endif

/// `scenesync-bench chat`: a new message reaching many Chat windows, on a long conversation and on
/// a short one, in one server process, so that what a message costs can be compared by length.
struct ChatBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "A new Chat message to many windows: a long conversation beside a short one.",
        discussion: """
            Seeds Chat's database through its model controller with --people people (one browser \
            profile each) in two conversations, one of --long messages and one of --short, then \
            starts a real server. For each conversation, --windows raw WebSocket windows (spread \
            over the people's profiles) open it; window 0 sends --rounds messages, one at a time, \
            and each is timed from sending until every window has the patch that inserts it. \
            Reported: the latency over all windows (p50, p99), the patch bytes each window received \
            per message, the server's CPU time per message, and its resident memory per window \
            (its growth while the windows connected and opened the conversation, divided by them).
            """)

    @Option(help: "Windows open on the conversation.")
    var windows = 1_000
    @Option(help: "People, each a browser profile with windows/people windows.")
    var people = 10
    @Option(help: "Messages in the long conversation.")
    var long = 100_000
    @Option(help: "Messages in the short conversation.")
    var short = 100
    @Option(help: "Timed messages per conversation.")
    var rounds = 30
    @Option(help: "Untimed messages before the timed ones.")
    var warmup = 3
    @Option(help: "Milliseconds between messages.")
    var interval = 100
    @Option(help: "Windows connecting at once.")
    var connectBatch = 100
    @Option(help: "The scenesync executable (default: the one next to this executable).")
    var server: String?

    func validate() throws {
        guard windows > 0, people > 1, people <= windows else { throw ValidationError("Need at least two people and a window for each.") }
        guard long > 0, short > 0, rounds > 0, warmup >= 0 else { throw ValidationError("Counts must be positive.") }
    }

    @MainActor
    func run() async throws {
        #if os(Linux)
        let executable = try WindowsServerProcess.locate(explicit: server)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("scenesync-bench-chat-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let data = scratch.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        _ = WindowsFleet.raiseFileLimit(to: windows + 256)
        let seedStart = ContinuousClock.now
        let seed = try await ChatSeed.make(people: people, long: long, short: short, in: data)
        print("Seeded \(long + short) messages in \(String(format: "%.1f", (ContinuousClock.now - seedStart).seconds)) s")
        var problems: [String] = []
        var results: [(String, ChatRoundResult)] = []
        var sent = [seed.short: short, seed.long: long]
        // Each conversation in a server process of its own, so that each memory figure is its own;
        // in each, a first unrecorded pass, so that neither pays for what the server allocates once.
        for (name, conversation) in [("short", seed.short), ("long", seed.long)] {
            let result = try await WindowsServerProcess.with(
                executable: executable, dataDirectory: data, log: scratch.appendingPathComponent("server-\(name).log"), problems: &problems
            ) { server in
                var measured: ChatRoundResult?
                for recorded in [false, true] {
                    let measure = ChatRounds(port: server.port, serverPID: server.pid, conversation: conversation, devices: seed.devices,
                                             firstNumber: sent[conversation, default: 0] + 1, rounds: recorded ? rounds : 2, warmup: warmup,
                                             interval: .milliseconds(interval), batch: connectBatch)
                    let result = try await measure.run(windows: recorded ? windows : min(windows, 100))
                    sent[conversation, default: 0] += warmup + measure.rounds
                    if recorded { measured = result }
                    await server.waitUntilIdle()
                }
                return measured!
            }
            results.append(("\(name) (\(sent[conversation]! - warmup - rounds) messages)", result))
        }
        print("A new Chat message to \(windows) windows (\(people) people), \(rounds) timed messages each, \(interval) ms apart")
        print("  conversation                 p50        p99       max   bytes/window   CPU/message   memory/window")
        for (name, result) in results {
            print("  \(name.padding(toLength: 26, withPad: " ", startingAt: 0))"
                + "\(ms(result.percentile(0.5)))  \(ms(result.percentile(0.99)))  \(ms(result.latencies.max() ?? .zero))"
                + String(format: "   %10.0f", result.meanBytesPerWindow)
                + "   \(ms(result.cpuPerMessage))"
                + String(format: "   %9.1f KiB", result.memoryPerWindowKiB))
        }
        for problem in problems { print("  note: \(problem)") }
        #else
        throw ValidationError("The chat benchmark runs on Linux only.")
        #endif
    }

    private func ms(_ duration: Duration) -> String {
        String(format: "%7.2f ms", duration.seconds * 1000)
    }
}

/// Chat's database before the server opens it: people signed in on devices, a long and a short
/// conversation between all of them.
enum ChatSeed {
    struct Seeded: Sendable {
        let devices: [String]
        let long: UUID
        let short: UUID
    }

    static func make(people: Int, long: Int, short: Int, in dataDirectory: URL) async throws -> Seeded {
        let storage = try SQLiteStorage(path: dataDirectory.appendingPathComponent("\(ChatController.app).sqlite").path)
        // Seeding sends far faster than a person may: the server, started afterwards, keeps the
        // default bounds, which the timed messages (one every --interval ms) stay within.
        let seeding = ChatSettings(messageBurst: 1_000_000, messagesPerSecond: 1_000_000)
        let chat = try await ChatController(storage: storage, settings: seeding, logger: Logger(label: "scenesync-bench.chat"))
        var devices: [String] = []
        var persons: [Person] = []
        for index in 0..<people {
            let device = String(format: "%032x", index + 1)
            devices.append(device)
            persons.append(try await chat.signIn(name: "Person \(index)", device: device, origin: nil))
        }
        let names = persons.dropFirst().map(\.name)
        let longTalk = try await chat.startConversation(title: "Long", with: names, by: persons[0].id, origin: nil)
        let shortTalk = try await chat.startConversation(title: "Short", with: names, by: persons[0].id, origin: nil)
        for (conversation, count) in [(longTalk.id, long), (shortTalk.id, short)] {
            let writers = min(32, count)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    let sender = persons[writer % persons.count].id
                    group.addTask {
                        for index in stride(from: writer, to: count, by: writers) {
                            try await chat.send("Seeded message \(index), long enough to look like one.", in: conversation, from: sender, origin: nil)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // Everyone has read everything, so that the timed messages are the only unread ones.
        for person in persons {
            try await chat.markRead(longTalk.id, by: person.id, origin: nil)
            try await chat.markRead(shortTalk.id, by: person.id, origin: nil)
        }
        await chat.controller.close()
        try (storage.writer as? DatabasePool)?.close()
        return Seeded(devices: devices, long: longTalk.id, short: shortTalk.id)
    }
}

/// What one conversation's rounds measured.
struct ChatRoundResult: Sendable {
    /// Every window's latency in every timed round.
    var latencies: [Duration]
    /// Per timed round and window other than the sender, the patch bytes received for the message.
    var bytes: [Int]
    /// The server's CPU time over the timed rounds.
    var serverCPU: Duration
    var rounds: Int
    var windows: Int
    /// Resident memory with the windows on the conversation, and before they connected.
    var residentWithWindows: Int
    var residentBefore: Int

    func percentile(_ fraction: Double) -> Duration {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { return .zero }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
    }

    var meanBytesPerWindow: Double { Double(bytes.reduce(0, +)) / Double(max(bytes.count, 1)) }
    var cpuPerMessage: Duration { serverCPU / max(rounds, 1) }
    var memoryPerWindowKiB: Double { Double(residentWithWindows - residentBefore) / Double(max(windows, 1)) }
}

#if os(Linux)
/// One conversation in many raw windows: each opens it, then window 0 sends the messages.
struct ChatRounds: Sendable {
    let port: Int
    let serverPID: Int32
    let conversation: UUID
    let devices: [String]
    /// The number the first message sent here gets.
    let firstNumber: Int
    let rounds: Int
    let warmup: Int
    let interval: Duration
    let batch: Int
    /// Windows, the last ones, that stay on the conversation list rather than open the
    /// conversation: a message changes its row there (where it comes, what it says).
    var listWindows = 0

    func run(windows count: Int) async throws -> ChatRoundResult {
        let devices = devices
        let before = try WindowsServerProcess.residentKilobytes(pid: serverPID)
        return try await RawWindows.measure(
            count, port: port, app: ChatController.app, batch: batch, thread: "scenesync-bench chat windows",
            hello: { WindowsWebSocketFraming.hello(device: devices[$0 % devices.count]) }
        ) { windows, _ in
            try measure(&windows, residentBefore: before)
        }
    }

    private func measure(_ windows: inout RawWindows, residentBefore: Int) throws -> ChatRoundResult {
        let clock = ContinuousClock()
        let count = windows.count
        let row = "conversation-\(conversation.uuidString)"
        let opening = count - min(max(listWindows, 0), count - 1)
        for index in 0..<opening { try windows.send(WindowsWebSocketFraming.action(ref: 1, name: "select", node: row), to: index) }
        try windows.wait(for: Array(0..<opening), what: "the conversation", clock: clock) { _, message in
            message.text == #"{"ref":1,"type":"ack","v":1}"#
        }
        // Let every window's read marks settle before the first timed message.
        try windows.listen(for: .milliseconds(500), clock: clock) { _, _ in }
        let resident = try WindowsServerProcess.residentKilobytes(pid: serverPID)
        var latencies: [Duration] = []
        var bytes: [Int] = []
        var cpuBefore: Duration?
        var ref = 1
        for round in 0..<(warmup + rounds) {
            if round == warmup { cpuBefore = WindowsServerProcess.cpuTime(pid: serverPID) }
            ref += 1
            let marker = #""id":"message-\#(firstNumber + round)""#
            // On the list, the conversation's row says the message (its text ends the subtitle).
            let listMarker = "Timed message \(round)\""
            var arrivals = [ContinuousClock.Instant?](repeating: nil, count: count)
            var received = [Int](repeating: 0, count: count)
            let sent = clock.now
            try windows.send(WindowsWebSocketFraming.action(ref: ref, name: "send", node: "composer", text: "Timed message \(round)"), to: 0)
            try windows.wait(for: Array(0..<count), what: "message \(round)", clock: clock) { index, message in
                if message.type == "patch" {
                    received[index] += message.wireBytes
                    if arrivals[index] == nil, message.text.contains(index < opening ? marker : listMarker) { arrivals[index] = clock.now }
                }
                return arrivals[index] != nil
            }
            if round >= warmup {
                latencies += arrivals.map { sent.duration(to: $0!) }
                bytes += received.dropFirst()
            }
            let next = sent.advanced(by: interval)
            if clock.now < next { Thread.sleep(forTimeInterval: clock.now.duration(to: next).seconds) }
        }
        let cpu = cpuBefore.flatMap { before in WindowsServerProcess.cpuTime(pid: serverPID).map { $0 - before } } ?? .zero
        return ChatRoundResult(latencies: latencies, bytes: bytes, serverCPU: cpu, rounds: rounds, windows: count,
                              residentWithWindows: resident, residentBefore: residentBefore)
    }
}
#endif
