import SceneSync
@testable import SceneSyncUI
@testable import SceneSyncServer
import Testing

/// A patch sent to many windows alike is encoded once; anything else is encoded for each.
@MainActor
@Suite struct SharedPatchTests {
    private static let row = ViewNode(id: "item-1", kind: .row, props: ["title": "Spork", "detail": "$7"])

    @Test func theSamePatchForTheNextWindowIsTheSameText() {
        let patch = ServerMessage.patch(ops: [.insert(parent: "items", index: 0, node: Self.row)], seq: ["lootlogger": 5])
        // Built again, as the next window's screen builds its own.
        let again = ServerMessage.patch(ops: [.insert(parent: "items", index: 0, node: Self.row)], seq: ["lootlogger": 5])
        let first = WindowConnection.encode(patch)
        #expect(first == WindowProtocol.encodeText(patch))
        #expect(WindowConnection.encode(again) == first)
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
        for variant in variants {
            _ = WindowConnection.encode(base)
            #expect(WindowConnection.encode(variant) == WindowProtocol.encodeText(variant))
            #expect(WindowConnection.encode(base) == WindowProtocol.encodeText(base))
        }
    }

    @Test func aPatchLargerThanTheLimitIsStillEncodedRight() {
        let rows = (0..<2_000).map { ViewNode(id: "item-\($0)", kind: .row, props: ["title": .string("Row \($0)")]) }
        let large = ServerMessage.patch(ops: [.replace(id: "items", node: ViewNode(id: "items", kind: .table, children: rows), transition: nil)],
                                        seq: ["lootlogger": 9])
        let text = WindowConnection.encode(large)
        #expect(text.utf8.count > WindowConnection.sharedPatchLimit)
        #expect(text == WindowProtocol.encodeText(large))
        #expect(WindowConnection.encode(large) == text)
    }
}
