#if os(Linux)
import Foundation
import LootLogger
import SceneSync
import SceneSyncServer
import SceneSyncUI
import SceneSyncServerTesting

/// What one list size measured: the bytes on the wire of a window's first render and of the patch
/// for one edit made in another window.
struct WindowsPatchResult: Sendable {
    /// Items in the list.
    let items: Int
    /// Window A's first render: payload bytes.
    let renderBytes: Int
    /// The patch window A received for the edit: its text, exactly as received.
    let patchText: String
    /// The patch's payload bytes (the UTF-8 text).
    let patchBytes: Int
    /// The patch's bytes on the socket, frame headers included.
    let patchWireBytes: Int
    /// Messages window A received while nothing was expected (none are).
    let strayMessages: [String]
    /// The patch an Add in window A drew (a row inserted), exactly as received.
    let insertText: String
    /// This process's time to decode that insert and apply it to window A's view, per window.
    let clientApplyCost: Duration?

    /// The footer the patch set, such as "100 items — $5450 total".
    var footer: String? { Self.decodedPatch(patchText)?.footer }
    /// The sequence number the patch carries.
    var sequence: UInt64? { Self.decodedPatch(patchText)?.sequence }

    private static func decodedPatch(_ text: String) -> (footer: String?, sequence: UInt64?)? {
        guard case let .patch(ops, seq)? = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)) else { return nil }
        let footer = ops.lazy.compactMap { op -> String? in
            guard case let .set(id, props) = op, id == ItemsScreen.NodeID.section else { return nil }
            return props["footer"]?.string
        }.first
        return (footer, seq[ItemStore.app])
    }
}

/// Patch bytes against list size: window A shows the list, window B opens a row's detail and
/// commits a new value; window A's list gets a patch for that one row and the footer.
///
/// Window A is a raw WebSocket, because `WindowClient` keeps only the messages it decoded, and
/// re-encoding them would measure this process's encoder, not what the server sent.
@MainActor
struct WindowsPatchSize {
    let port: Int

    func run(items: Int, editing key: UUID) async throws -> WindowsPatchResult {
        let listWindow = try await WindowsRawWebSocket.open(port: port, app: WindowsFleet.app)
        try listWindow.hello()
        let render = try await listWindow.next("render", timeout: .seconds(120))

        let detailWindow = try await WindowClient.connect(port: port, app: WindowsFleet.app)
        detailWindow.hello()
        try await detailWindow.waitUntil("window B's first render", timeout: .seconds(120)) { detailWindow.view != nil }
        try await acknowledge(detailWindow, detailWindow.act("select", on: ItemsScreen.NodeID.row(key)))
        guard detailWindow.view?.node(ItemDetailScreen.NodeID.value) != nil else {
            throw WindowsBenchmarkError.unexpected("window B does not show the item's detail after selecting its row")
        }

        let stray = try listWindow.drain()
        try await acknowledge(detailWindow, detailWindow.act("commit", on: ItemDetailScreen.NodeID.value, value: .string("7")))
        let patch = try await listWindow.next("patch")
        guard patch.text.contains(ItemsScreen.NodeID.row(key)), patch.text.contains("$7") else {
            throw WindowsBenchmarkError.unexpected("window A's patch is not the edit's: \(patch.text)")
        }
        try await detailWindow.close()

        // The patch every window gets when a row is added, for what the client's side of the
        // fan-out costs; Add is tapped in window A, whose list grows by one.
        try listWindow.act("tap", on: ItemsScreen.NodeID.add)
        let insert = try await listWindow.next("patch")
        return WindowsPatchResult(
            items: items, renderBytes: render.payload.count, patchText: patch.text, patchBytes: patch.payload.count,
            patchWireBytes: patch.wireBytes, strayMessages: stray.map(\.text), insertText: insert.text,
            clientApplyCost: Self.applyCost(render: render.payload, insert: insert.payload))
    }

    /// Waits for the action's ack; throws the error the server sent instead.
    private func acknowledge(_ window: WindowClient, _ ref: Int) async throws {
        let answer = try await window.next("the ack of action \(ref)", timeout: .seconds(30)) {
            $0 == .ack(ref: ref) || $0.type == .error
        }
        guard answer == .ack(ref: ref) else { throw WindowsBenchmarkError.unexpected("window B was sent \(answer)") }
    }

    /// The mean time to do what a `WindowClient` does with `insert`: decode it and apply it to its
    /// view of the list, which each window in the fan-out does in turn on this process's main actor.
    private static func applyCost(render: [UInt8], insert: [UInt8], repetitions: Int = 1_000) -> Duration? {
        let decoder = JSONDecoder()
        guard case let .render(root, _, _)? = try? decoder.decode(ServerMessage.self, from: Data(render)) else { return nil }
        let view = ViewTree(root)
        let text = String(decoding: insert, as: UTF8.self)
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            guard case let .patch(ops, _)? = try? decoder.decode(ServerMessage.self, from: Data(text.utf8)) else { return nil }
            var copy = view
            guard (try? copy.apply(ops)) != nil else { return nil }
        }
        return start.duration(to: clock.now) / repetitions
    }
}
#endif
