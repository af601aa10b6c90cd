import Chat
import Foundation
import SceneSync
import SceneSyncSQLite
import SceneSyncTesting
import SceneSyncUI
import Testing

/// A conversation screen holds a bounded window of messages: the newest ``ChatLimits/maximumMessagesShown``
/// as they arrive, earlier pages on demand, and the newest page again on "Show Newest Messages".
extension ChatSceneTests {
    static let shownBound = ChatLimits.maximumMessagesShown

    /// The ids of the messages `window` shows.
    func shownIDs(_ window: HostedWindow) -> Set<String> {
        Set(window.node(Detail.messages)?.children.filter { $0.kind == .message }.map(\.id) ?? [])
    }

    /// How many messages `window`'s view holds after each patch message from `start` on, when it
    /// held `initially` before them: what the browser's page would hold after each.
    func shownCounts(in window: HostedWindow, from start: Int, initially: Set<String>) -> [Int] {
        var shown = initially
        var counts: [Int] = []
        for update in window.messages.dropFirst(start) {
            guard case let .patch(ops, _) = update else { continue }
            for op in ops {
                switch op {
                case let .insert(_, _, node) where node.kind == .message: shown.insert(node.id)
                case let .remove(id) where id.hasPrefix("message-"): shown.remove(id)
                case let .replace(id, node, _) where id == Detail.messages:
                    shown = Set(node.children.filter { $0.kind == .message }.map(\.id))
                default: break
                }
            }
            counts.append(shown.count)
        }
        return counts
    }

    /// The ids of the messages removed from `window`'s view by patch messages from `start` on.
    func removals(in window: HostedWindow, from start: Int) -> [String] {
        window.messages.dropFirst(start).flatMap { update -> [String] in
            guard case let .patch(ops, _) = update else { return [] }
            return ops.compactMap { if case let .remove(id) = $0, id.hasPrefix("message-") { id } else { nil } }
        }
    }

    @Test func aWindowOpenOnABusyConversationHoldsItsNewestMessagesOnlyAndTheOldestLeaveByPatch() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory(), settings: ChatSettings(messageBurst: 1_000))
        let (_, bo, talk) = try await lunch(host, chat)
        let anaPerson = try #require(await chat.controller.state.person(on: Self.anaDevice))
        try await host.perform(.select, on: List.row(talk.id), in: bo)
        let (start, initially) = (bo.messages.count, shownIDs(bo))
        let total = Self.shownBound + 30
        for number in 1...total { try await chat.send("m\(number)", in: talk.id, from: anaPerson.id, origin: nil) }
        try await host.waitUntil("the last message in Bo's window") { messageTexts(bo).last == "m\(total)" }

        #expect(messageTexts(bo) == (31...total).map { "m\($0)" }, "the newest \(Self.shownBound)")
        let counts = shownCounts(in: bo, from: start, initially: initially)
        #expect(counts.max() == Self.shownBound, "never more than \(Self.shownBound) shown: at most \(counts.max() ?? 0)")
        #expect(removals(in: bo, from: start) == (1...30).map { Detail.message($0) }, "each oldest leaves by a patch, once")
        // What was shown is the view's to regroup: the new first message carries its sender and
        // time, which the browser shows on a group's first message.
        let first = try #require(bo.node(Detail.messages)?.children.first { $0.kind == .message })
        #expect(first.id == Detail.message(31) && first[.sender]?.string == "Ana" && first[.time] != nil)
        #expect(bo.node(Detail.messages)?.children.first?.id == Detail.loadEarlier, "older ones can load again")
        #expect(bo.node(Detail.showNewest) == nil && bo.patchFailures.isEmpty)
    }

    @Test func loadingEarlierPagesKeepsTheBoundAndShowNewestMessagesBringsTheNewestBack() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory(), settings: ChatSettings(messageBurst: 1_000))
        let (ana, bo, talk) = try await lunch(host, chat)
        let anaPerson = try #require(await chat.controller.state.person(on: Self.anaDevice))
        let total = Self.shownBound + 2 * ChatLimits.pageSize // 250
        for number in 1...total { try await chat.send("m\(number)", in: talk.id, from: anaPerson.id, origin: nil) }
        // Bo's screens have been handed every message (a screen opened sooner loads the state
        // its node has reached, and shows what comes after as new messages).
        try await host.waitUntil("the last message in Bo's list") { bo.text(List.row(talk.id), "subtitle") == "Ana: m\(total)" }
        try await host.perform(.select, on: List.row(talk.id), in: bo)
        #expect(messageTexts(bo) == (201...total).map { "m\($0)" }, "the newest page first")
        let (start, initially) = (bo.messages.count, shownIDs(bo))
        for _ in 1...3 { try await host.tap(Detail.loadEarlier, in: bo) }
        #expect(messageTexts(bo) == (51...200).map { "m\($0)" }, "the earliest pages loaded, the newest let go of")
        #expect(shownCounts(in: bo, from: start, initially: initially).allSatisfy { $0 <= Self.shownBound })
        #expect(removals(in: bo, from: start).contains(Detail.message(total)))
        try await host.tap(Detail.loadEarlier, in: bo)
        #expect(messageTexts(bo) == (1...150).map { "m\($0)" } && bo.node(Detail.loadEarlier) == nil)
        #expect(bo.text(Detail.showNewest, "label") == "Show Newest Messages")

        // A new message waits below: the screen does not show it above older ones.
        try await host.perform(.select, on: List.row(talk.id), in: ana)
        try await host.perform(.send, on: Detail.composer, value: "new", in: ana)
        try await host.waitUntil("the new message in Ana's window") { messageTexts(ana).last == "new" }
        #expect(messageTexts(bo).last == "m150")
        try await host.tap(Detail.showNewest, in: bo)
        #expect(messageTexts(bo) == (202...total).map { "m\($0)" } + ["new"], "the newest page again")
        #expect(bo.node(Detail.showNewest) == nil && bo.node(Detail.messages)?.children.first?.id == Detail.loadEarlier)
        try await host.perform(.send, on: Detail.composer, value: "newer", in: ana)
        try await host.waitUntil("the next message in Bo's window") { messageTexts(bo).last == "newer" }
        #expect(bo.patchFailures.isEmpty && ana.patchFailures.isEmpty)
    }
}
