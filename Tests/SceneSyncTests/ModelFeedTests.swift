import Foundation
import Logging
import SceneSyncSQLite
@testable import SceneSyncUI
@testable import SceneSync
import Testing

/// Screens on one node that follow one model controller share one subscription to it, and each
/// still gets every event after its own snapshot, once and in order.
@MainActor
@Suite struct ModelFeedTests {
    /// What one follower was given.
    final class Received {
        var sequences: [UInt64] = []
        var fellBehind = 0
    }

    func open() async throws -> ModelController<Journal> {
        try await ModelController(app: "feed", storage: try SQLiteStorage.inMemory(), logger: Logger(label: "feed"))
    }

    func follow(_ controller: ModelController<Journal>, after snapshot: UInt64) -> (ModelFeed<Journal>, ModelFeed<Journal>.Follower, Received) {
        let received = Received()
        let feed = ModelFeed.shared(for: controller, startingAfter: snapshot)
        let follower = feed.add(after: snapshot, handler: { received.sequences.append($0.sequence) },
                                fellBehind: { received.fellBehind += 1 })
        return (feed, follower, received)
    }

    func waitUntil(_ what: @autoclosure () -> String, _ condition: @MainActor () -> Bool) async throws {
        let started = ContinuousClock.now
        while !condition() {
            guard ContinuousClock.now - started < .seconds(30) else { throw WaitTimeout(what: what()) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    struct WaitTimeout: Error { let what: String }

    @Test func manyFollowersShareOneSubscriptionAndEachGetsEveryEventInOrder() async throws {
        let controller = try await open()
        let followers = (0..<50).map { _ in follow(controller, after: 0) }
        #expect(followers.allSatisfy { $0.0 === followers[0].0 })
        for index in 0..<20 { try await controller.append("line \(index)") }
        try await waitUntil("every follower has every event") { followers.allSatisfy { $0.2.sequences.count == 20 } }
        #expect(controller.subscriberCount == 1)
        #expect(followers.allSatisfy { $0.2.sequences == Array(1...20) })

        for (feed, follower, _) in followers { feed.remove(follower) }
        try await waitUntil("the subscription to end with the last follower") { controller.subscriberCount == 0 }
    }

    @Test func followingThroughTheControllerSharesTheFeedAndEndsWhenCancelledReleasedOrClosed() async throws {
        let controller = try await open()
        let kept = Received(), cancelled = Received(), released = Received()
        var finished = 0
        let keeping = controller.follow(after: 0, { kept.sequences.append($0.sequence) },
                                        fellBehind: { kept.fellBehind += 1 }, finished: { finished += 1 })
        let cancelling = controller.follow(after: 0, { cancelled.sequences.append($0.sequence) }, fellBehind: {})
        var releasing: ModelFollowing? = controller.follow(after: 0, { released.sequences.append($0.sequence) }, fellBehind: {})
        #expect(controller.followerCount == 3)
        try await controller.append("one")
        try await waitUntil("all three have it") { [kept, cancelled, released].allSatisfy { $0.sequences == [1] } }
        #expect(controller.subscriberCount == 1)

        cancelling.cancel()
        #expect(!cancelling.isActive && controller.followerCount == 2, "cancelling ends it at once")
        releasing = nil
        try await waitUntil("the released one to end") { controller.followerCount == 1 }
        try await controller.append("two")
        try await waitUntil("the kept one has it") { kept.sequences == [1, 2] }
        #expect(cancelled.sequences == [1] && released.sequences == [1])

        await controller.close()
        try await waitUntil("the kept one to hear the controller closed") { finished == 1 }
        #expect(!keeping.isActive && kept.fellBehind == 0 && controller.followerCount == 0)
        _ = releasing
    }

    @Test func aFollowerWhoseSnapshotIsBehindTheFeedIsGivenWhatItMissedFirst() async throws {
        let controller = try await open()
        let (_, first, early) = follow(controller, after: 0)
        for index in 0..<5 { try await controller.append("line \(index)") }
        try await waitUntil("the first follower is at 5") { early.sequences.count == 5 }

        // Loaded at 2, joins once the feed is at 5: 3, 4 and 5 come from the feed's recent events.
        let (feed, _, late) = follow(controller, after: 2)
        try await controller.append("line 5")
        try await waitUntil("both at 6") { early.sequences.last == 6 && late.sequences.last == 6 }
        #expect(late.sequences == [3, 4, 5, 6])
        #expect(early.sequences == Array(1...6))
        #expect(controller.subscriberCount == 1)
        feed.remove(first)
    }

    @Test func aFollowerAheadOfTheFeedSkipsWhatItsSnapshotHolds() async throws {
        let controller = try await open()
        let (_, _, early) = follow(controller, after: 0)
        for index in 0..<3 { try await controller.append("line \(index)") }
        // A snapshot at 3 that may reach the feed before the feed hands out 1 to 3.
        let (_, _, ahead) = follow(controller, after: 3)
        try await controller.append("line 3")
        try await waitUntil("both at 4") { early.sequences.last == 4 && ahead.sequences.last == 4 }
        #expect(ahead.sequences == [4])
        #expect(early.sequences == [1, 2, 3, 4])
    }

    @Test func aFollowerBehindTheFeedsRecentEventsReadsTheLogUntilItCatchesUp() async throws {
        let controller = try await open()
        let count = ModelFeed<Journal>.recentLimit + 40
        try await controller.perform(origin: nil) { _ in (0..<count).map { .appended("line \($0)", index: $0) } }
        // The feed starts at the head, so it holds none of the events before it.
        let (_, _, current) = follow(controller, after: UInt64(count))
        let (_, _, late) = follow(controller, after: 1)
        try await waitUntil("the late follower caught up from the log: \(late.sequences.count)") { late.sequences.last == UInt64(count) }
        try await controller.append("after")
        try await waitUntil("both have the next one") { current.sequences.last == UInt64(count + 1) && late.sequences.last == UInt64(count + 1) }
        #expect(late.sequences == Array(2...UInt64(count + 1)))
        #expect(current.sequences == [UInt64(count + 1)])
        #expect(late.fellBehind == 0 && current.fellBehind == 0)
    }

    /// A follower that admits only some events is handed those alone, whether live, from the
    /// feed's recent events or from the log, and is not handed the others again later.
    @Test func aFollowerIsHandedOnlyTheEventsItAdmitsLiveFromRecentEventsAndFromTheLog() async throws {
        let controller = try await open()
        let feed = ModelFeed.shared(for: controller, startingAfter: 0)
        var asked: [String: [UInt64]] = [:]
        func follow(_ name: String, after snapshot: UInt64) -> Received {
            let received = Received()
            _ = feed.add(after: snapshot, admits: { envelope in
                asked[name, default: []].append(envelope.sequence)
                return envelope.sequence.isMultiple(of: 2)
            }, handler: { received.sequences.append($0.sequence) }, fellBehind: { received.fellBehind += 1 })
            return received
        }
        let live = follow("live", after: 0)
        let count = ModelFeed<Journal>.recentLimit + 40
        try await controller.perform(origin: nil) { _ in (0..<count).map { .appended("line \($0)", index: $0) } }
        try await waitUntil("the live follower at \(count)") { asked["live"]?.last == UInt64(count) }
        // Behind by a few: from the feed's recent events. Behind by more than it keeps: from the log.
        let recent = follow("recent", after: UInt64(count - 5))
        let fromLog = follow("log", after: 1)
        try await controller.append("after")
        let last = UInt64(count + 1)
        try await waitUntil("everyone asked about the last event") { ["live", "recent", "log"].allSatisfy { asked[$0]?.last == last } }
        #expect(asked["live"] == Array(1...last))
        #expect(asked["recent"] == Array(UInt64(count - 4)...last))
        #expect(asked["log"] == Array(2...last))
        #expect(live.sequences == Array(1...last).filter { $0.isMultiple(of: 2) })
        #expect(recent.sequences == Array(UInt64(count - 4)...last).filter { $0.isMultiple(of: 2) })
        #expect(fromLog.sequences == Array(2...last).filter { $0.isMultiple(of: 2) })
        #expect([live, recent, fromLog].allSatisfy { $0.fellBehind == 0 })
    }

    @Test func aRemovedFollowerIsGivenNothingMore() async throws {
        let controller = try await open()
        let (feed, gone, removed) = follow(controller, after: 0)
        let (_, _, stays) = follow(controller, after: 0)
        try await controller.append("one")
        try await waitUntil("both at 1") { removed.sequences == [1] && stays.sequences == [1] }
        feed.remove(gone)
        try await controller.append("two")
        try await waitUntil("the other at 2") { stays.sequences == [1, 2] }
        #expect(removed.sequences == [1])
    }

    @Test func screensSharingTheStateHoldOneCopyAppliedOncePerEventAndWorkOutSharedValuesOnce() async throws {
        let controller = try await open()
        try await controller.append("before")
        let feed = await ModelFeed.sharingState(of: controller)
        #expect(await ModelFeed.sharingState(of: controller) === feed)
        #expect(feed.state?.lines == ["before"] && feed.stateSequence == 1)

        var made: [UInt64: Int] = [:]
        var seen: [[String]] = []
        let followers = (0..<20).map { _ in
            feed.add(after: feed.stateSequence, handler: { envelope in
                let lines = feed.once("lines") {
                    made[envelope.sequence, default: 0] += 1
                    return feed.state?.lines ?? []
                }
                seen.append(lines)
            }, fellBehind: {})
        }
        for index in 0..<5 { try await controller.append("line \(index)") }
        try await waitUntil("every follower has every event: \(seen.count)") { seen.count == 100 }
        #expect(feed.state == (await controller.snapshot()).state)
        #expect(feed.stateSequence == 6)
        #expect(made == [2: 1, 3: 1, 4: 1, 5: 1, 6: 1], "each event's value worked out once, for twenty followers")
        #expect(seen.last == ["before", "line 0", "line 1", "line 2", "line 3", "line 4"])
        for follower in followers { feed.remove(follower) }
        #expect(feed.state == nil, "a feed with no followers lets go of the state")
    }

    /// A value worked out once per state is shared until the next event changes the state, not
    /// only while one event is handed out: what windows opening between changes draw alike.
    @Test func aValueWorkedOutOncePerStateIsSharedUntilTheStateChanges() async throws {
        let controller = try await open()
        try await controller.append("before")
        let feed = await ModelFeed.sharingState(of: controller)
        var made = 0
        func lines() -> [String] {
            feed.oncePerState("lines") {
                made += 1
                return feed.state?.lines ?? []
            }
        }
        var seen: [[String]] = []
        let follower = feed.add(after: feed.stateSequence, handler: { _ in seen.append(lines()) }, fellBehind: {})
        #expect((0..<10).map { _ in lines() }.allSatisfy { $0 == ["before"] })
        #expect(made == 1, "ten windows drawing the same state between changes work it out once")
        try await controller.append("after")
        try await waitUntil("the event") { seen.count == 1 }
        #expect(seen == [["before", "after"]])
        #expect(lines() == ["before", "after"])
        #expect(made == 2, "the change lets go of the value worked out for the state before it")
        feed.remove(follower)
    }

    @Test func aStateLoadedWhileEventsAreHandedOutIsInStepWithThem() async throws {
        let controller = try await open()
        let (feed, follower, early) = follow(controller, after: 0)
        let writing = Task { for index in 0..<50 { try await controller.append("line \(index)") } }
        try await waitUntil("some events out") { early.sequences.count >= 5 }
        let shared = await ModelFeed.sharingState(of: controller)
        #expect(shared === feed)
        var applied: [UInt64] = []
        let late = feed.add(after: feed.stateSequence, handler: { applied.append($0.sequence) }, fellBehind: {})
        let joinedAt = feed.stateSequence
        try await writing.value
        try await waitUntil("all fifty out") { early.sequences.last == 50 && (applied.last ?? joinedAt) == 50 }
        #expect(feed.state == (await controller.snapshot()).state)
        #expect(applied == (joinedAt < 50 ? Array((joinedAt + 1)...50) : []))
        feed.remove(follower)
        feed.remove(late)
    }
}
