import NIOCore
import SceneSync
@testable import SceneSyncUI
@testable import SceneSyncServer
import SceneSyncServerTesting
import Testing

/// A patch sent to many windows alike is encoded once, and so is a render that windows opening on
/// the same screen in the same state are sent; anything else is encoded for each.
@MainActor
@Suite struct SharedPatchTests {
    private static let row = ViewNode(id: "item-1", kind: .row, props: ["title": "Spork", "detail": "$7"])

    @Test func theSamePatchForTheNextWindowIsTheSameBytes() {
        let patch = ServerMessage.patch(ops: [.insert(parent: "items", index: 0, node: Self.row)], seq: ["lootlogger": 5])
        // Built again, as the next window's screen builds its own.
        let again = ServerMessage.patch(ops: [.insert(parent: "items", index: 0, node: Self.row)], seq: ["lootlogger": 5])
        var encoder = SharedPatchEncoder()
        let first = encoder.encode(patch)
        #expect(first == WindowProtocol.encodeBuffer(patch))
        #expect(encoder.encode(again) == first)
        #expect(encoder.encode(patch) == first)
        #expect(encoder.patchEncodings == 1)
    }

    @Test func aFewPatchesInterleavedAreEachEncodedOnce() {
        // Windows of two people, interleaved, each person's windows sent their own patch.
        let mine = ServerMessage.patch(ops: [.set(id: "row", props: ["subtitle": "You: Hi"])], seq: ["chat": 5])
        let theirs = ServerMessage.patch(ops: [.set(id: "row", props: ["subtitle": "Ana: Hi"])], seq: ["chat": 5])
        var encoder = SharedPatchEncoder()
        for _ in 0..<10 {
            #expect(encoder.encode(mine) == WindowProtocol.encodeBuffer(mine))
            #expect(encoder.encode(theirs) == WindowProtocol.encodeBuffer(theirs))
        }
        #expect(encoder.patchEncodings == 2)
        let others = (0..<SharedPatchEncoder.recentPatchCount).map {
            ServerMessage.patch(ops: [.set(id: "row", props: ["subtitle": .string("\($0)")])], seq: ["chat": 5])
        }
        for other in others { _ = encoder.encode(other) }
        #expect(encoder.encode(mine) == WindowProtocol.encodeBuffer(mine), "pushed out, encoded again")
        #expect(encoder.patchEncodings == 3 + others.count)
        let next = ServerMessage.patch(ops: [.set(id: "row", props: ["subtitle": "You: Hi"])], seq: ["chat": 6])
        #expect(encoder.encode(next) == WindowProtocol.encodeBuffer(next))
    }

    @Test(arguments: [false, true])
    func peoplesWindowsInTurnCostOneComparisonEachOnceEveryPatchIsKept(reversed: Bool) {
        // Ten people's windows, in turn, at every change, as a node's screens are handed it.
        let people = (0..<10).map { person in
            ServerMessage.patch(ops: [.set(id: "row", props: ["subtitle": .string("Person \(person): Hi")])], seq: ["chat": 5])
        }
        let order = reversed ? Array(people.reversed()) : people
        var encoder = SharedPatchEncoder()
        for patch in order { _ = encoder.encode(patch) }
        #expect(encoder.patchEncodings == 10)
        // Once the pattern is seen, each window's patch is the first one compared.
        for patch in order + order { #expect(encoder.encode(patch) == WindowProtocol.encodeBuffer(patch)) }
        let before = encoder.comparisons
        for _ in 0..<5 {
            for patch in order { _ = encoder.encode(patch) }
        }
        #expect(encoder.comparisons - before == 50)
        #expect(encoder.patchEncodings == 10)
    }

    @Test func windowsAlikeCostOneComparisonEach() {
        let patch = ServerMessage.patch(ops: [.set(id: "items", props: ["footer": "2 items"])], seq: ["lootlogger": 5])
        let other = ServerMessage.patch(ops: [.set(id: "items", props: ["footer": "1 item"])], seq: ["lootlogger": 5])
        var encoder = SharedPatchEncoder()
        _ = encoder.encode(other)
        _ = encoder.encode(patch)
        let before = encoder.comparisons
        for _ in 0..<100 { #expect(encoder.encode(patch) == WindowProtocol.encodeBuffer(patch)) }
        #expect(encoder.comparisons - before == 100)
    }

    @Test func aChangeShownInManyWindowsIsEncodedOnce() async throws {
        let server = try await TestServer.start()
        var windows: [WindowClient] = []
        for _ in 0..<5 { windows.append(try await server.openWindow()) }
        let patches = windows.map { $0.messages.count }
        let runtime = try #require(server.server.runtime(named: TallyAppDelegate.app))
        let encodings = runtime.encoder.patchEncodings
        windows[0].tap(TallyScreen.NodeID.add)
        for (window, before) in zip(windows, patches) {
            try await window.waitUntil("the new line") { window.messages[before...].contains { $0.type == .patch } }
        }
        #expect(runtime.encoder.patchEncodings == encodings + 1)
        try await server.stop()
    }

    /// Windows sent the same bytes share one entry of their event loop's list of writes; taps
    /// from every window at once, without waiting, still reach every window, each patch once and
    /// in order.
    @Test func everyWindowGetsEveryPatchInOrderWhenChangesComeFromManyWindowsAtOnce() async throws {
        let server = try await TestServer.start()
        var windows: [WindowClient] = []
        for _ in 0..<6 { windows.append(try await server.openWindow()) }
        let taps = 30
        for tap in 0..<taps { windows[tap % windows.count].tap(TallyScreen.NodeID.add) }
        for window in windows {
            try await window.waitUntil("every line") { window.view?.node(TallyScreen.NodeID.row(taps)) != nil }
            let sequences = window.messages.compactMap { message -> UInt64? in
                guard case let .patch(_, seq) = message else { return nil }
                return seq[TallyAppDelegate.app]
            }
            #expect(sequences == Array(sequences.indices).map { sequences[0] + UInt64($0) })
            #expect(sequences.count == taps)
            #expect(window.problems.isEmpty)
        }
        try await server.stop()
    }

    @Test func theSameRenderForTheNextWindowIsTheSameBytesAndADifferentOneIsEncodedAgain() {
        // The rows a list builds once per state: the same array in every window's tree.
        let rows = (0..<500).map { ViewNode(id: "item-\($0)", kind: .row, props: ["title": .string("Row \($0)")]) }
        func render(_ rows: [ViewNode], seq: UInt64 = 5, route: String = "items") -> ServerMessage {
            .render(root: ViewNode(id: "items", kind: .table, children: rows), seq: ["lootlogger": seq], route: route)
        }
        var encoder = SharedPatchEncoder()
        let first = encoder.encode(render(rows))
        #expect(first == WindowProtocol.encodeBuffer(render(rows)))
        #expect(encoder.encode(render(rows)) == first)
        #expect(encoder.renderEncodings == 1)

        var changed = rows
        changed[499].props["title"] = "Spork"
        let variants = [render(changed), render(rows, seq: 6), render(rows, route: "item/1"), render(Array(rows.dropLast()))]
        for variant in variants {
            #expect(encoder.encode(variant) == WindowProtocol.encodeBuffer(variant))
        }
        #expect(encoder.renderEncodings == 1 + variants.count)
        // Only the last render is kept.
        #expect(encoder.encode(render(rows)) == first)
        #expect(encoder.renderEncodings == 2 + variants.count)
        #expect(encoder.patchEncodings == 0)
    }

    @Test func windowsOpeningOnTheSameStateShareOneRender() async throws {
        let server = try await TestServer.start()
        let runtime = try #require(server.server.runtime(named: TallyAppDelegate.app))
        var windows = [try await server.openWindow()]
        let renders = runtime.encoder.renderEncodings
        for _ in 0..<4 { windows.append(try await server.openWindow()) }
        #expect(runtime.encoder.renderEncodings == renders)
        windows[0].tap(TallyScreen.NodeID.add)
        try await windows[0].waitUntil("the new line") { windows[0].view?.node(TallyScreen.NodeID.row(1)) != nil }
        let later = try await server.openWindow()
        #expect(runtime.encoder.renderEncodings == renders + 1)
        #expect(later.view?.node(TallyScreen.NodeID.row(1)) != nil)
        try await server.stop()
    }

    @Test func aPatchThatDiffersInAnythingIsEncodedForItself() {
        let base = ServerMessage.patch(ops: [.set(id: "items", props: ["footer": "1 item"])], seq: ["lootlogger": 5])
        let variants: [ServerMessage] = [
            .patch(ops: [.set(id: "items", props: ["footer": "1 item"])], seq: ["lootlogger": 6]),
            .patch(ops: [.set(id: "items", props: ["footer": "2 items"])], seq: ["lootlogger": 5]),
            .patch(ops: [.set(id: "items", props: ["footer": "1 item"]), .remove(id: "x")], seq: ["lootlogger": 5]),
            .render(root: Self.row, seq: ["lootlogger": 5], route: "items"),
            .ack(ref: 1),
        ]
        var encoder = SharedPatchEncoder()
        for variant in variants {
            _ = encoder.encode(base)
            #expect(encoder.encode(variant) == WindowProtocol.encodeBuffer(variant))
            #expect(encoder.encode(base) == WindowProtocol.encodeBuffer(base))
        }
    }

    @Test func aPatchLargerThanTheLimitIsStillEncodedRight() {
        let rows = (0..<2_000).map { ViewNode(id: "item-\($0)", kind: .row, props: ["title": .string("Row \($0)")]) }
        let large = ServerMessage.patch(ops: [.replace(id: "items", node: ViewNode(id: "items", kind: .table, children: rows), transition: nil)],
                                        seq: ["lootlogger": 9])
        var encoder = SharedPatchEncoder()
        let bytes = encoder.encode(large)
        #expect(bytes.readableBytes > SharedPatchEncoder.sharedPatchLimit)
        #expect(bytes == WindowProtocol.encodeBuffer(large))
        #expect(encoder.encode(large) == bytes)
        #expect(encoder.patchEncodings == 2)
    }
}
