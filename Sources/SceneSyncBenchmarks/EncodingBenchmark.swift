import ArgumentParser
import Foundation
import SceneSync
import SceneSyncServer
import SceneSyncUI

/// `scenesync-bench encoding`: what encoding one server message costs, with the hand-written
/// writer the server uses (`WindowProtocol.encodeText`) and with `JSONEncoder` through the
/// messages' `Encodable` conformances, on the messages a LootLogger window gets most.
///
/// The fan-out path encodes one patch per window per change, so a microsecond here is a
/// millisecond of a 1,000-window round.
struct EncodingBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encoding",
        abstract: "Measures the cost of encoding a server message, hand-written writer against JSONEncoder.")

    @Option(help: "Encodings per message and encoder.")
    var iterations = 20_000

    @Option(help: "Rows in the list of the first-render message.")
    var rows = 100

    func validate() throws {
        guard iterations > 0, rows > 0 else { throw ValidationError("Counts must be positive.") }
    }

    func run() throws {
        let reference = JSONEncoder()
        reference.outputFormatting = [.sortedKeys]
        // Built twice, as two windows' screens each build their own: equal, but sharing no storage.
        let messages = makeMessages()
        let copies = makeMessages()
        print("Encoding one server message, \(iterations) times each (µs per message)")
        print("  Message                               Bytes  JSONEncoder  Writer   Ratio  Equal to a copy (==)")
        for ((name, message), (_, copy)) in zip(messages, copies) {
            let written = WindowProtocol.encodeText(message)
            guard let expected = try? reference.encode(message), Data(written.utf8) == expected else {
                throw ValidationError("The writer's text differs from JSONEncoder's for \(name)")
            }
            let encoder = Self.microseconds(iterations) { _ = try? reference.encode(message) }
            let writer = Self.microseconds(iterations) { _ = WindowProtocol.encodeText(message) }
            var equal = true
            let comparison = Self.microseconds(iterations) { equal = equal && message == copy }
            guard equal else { throw ValidationError("The copy of \(name) differs") }
            print("  " + name.padding(toLength: 36, withPad: " ", startingAt: 0)
                + String(format: "%7d  %11.2f  %6.2f  %5.1fx  %20.2f", written.utf8.count, encoder, writer, encoder / writer, comparison))
        }
    }

    /// The messages measured, by name.
    private func makeMessages() -> [(String, ServerMessage)] {
        let footer = ViewValue.string("\(rows) items — $5047 total")
        let add = ServerMessage.patch(
            ops: [.insert(parent: "items", index: rows, node: Self.row(rows)),
                  .set(id: "items", props: ["footer": .string("\(rows + 1) items — $5098 total")])],
            seq: ["lootlogger": 102])
        let edit = ServerMessage.patch(ops: [.set(id: "item-7", props: ["detail": "$7"]), .set(id: "items", props: ["footer": footer])],
                                       seq: ["lootlogger": 101])
        let list = ViewNode(id: "items", kind: .table, props: ["footer": footer], children: (0..<rows).map(Self.row))
        let root = ViewNode(id: "window", kind: .window, props: ["title": "LootLogger"], children: [
            ViewNode(id: "navigationBar", kind: .navigationBar, props: ["title": "Homepwner"]),
            ViewNode(id: "screen", kind: .screen, props: ["route": "items"], children: [list]),
        ])
        return [
            ("Add patch (the fan-out message)", add),
            ("Edit patch (one detail, one footer)", edit),
            ("First render, \(rows) rows", .render(root: root, seq: ["lootlogger": 101], route: "items")),
        ]
    }

    /// A row like LootLogger's.
    private static func row(_ index: Int) -> ViewNode {
        ViewNode(id: String(format: "item-%08X-9C63-48F4-8463-%012X", index, index * 7_919), kind: .row, props: [
            "title": .string("Rusty Spork \(index)"), "subtitle": "15E30292", "detail": .string("$\(index % 100)"), "accessory": "disclosure",
            "deletable": true, "movable": true, "actions": [["label": "Open in New Window", "name": "openInNewWindow"]],
        ])
    }

    private static func microseconds(_ iterations: Int, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        for _ in 0..<min(iterations, 1_000) { body() }
        let start = clock.now
        for _ in 0..<iterations { body() }
        let elapsed = start.duration(to: clock.now)
        let seconds = elapsed.timeInterval
        return seconds * 1e6 / Double(iterations)
    }
}
