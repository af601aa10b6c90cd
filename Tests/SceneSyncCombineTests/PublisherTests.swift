#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import Foundation
import Logging
import SceneSync
import SceneSyncCombine
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

/// A model small enough to count with: a list of words.
struct Words: ModelState, Equatable {
    enum Event: UpdateEvent { case added(String) }
    private(set) var words: [String] = []
    init() {}
    init(records: RecordSet) throws {
        words = try records.decode("words", as: [String].self)["all"] ?? []
    }
    mutating func apply(_ event: Event) -> [RecordChange] {
        guard case let .added(word) = event else { return [] }
        words.append(word)
        return [.save(collection: "words", key: "all", value: words)]
    }
}

extension ModelController where State == Words {
    func add(_ word: String, origin: SceneSession.ID? = nil) async throws {
        try await perform(origin: origin) { _ in [.added(word)] }
    }
}

/// Collects what a publisher delivers, on the main actor.
@MainActor
final class Collected<Value> {
    var values: [Value] = []
    var completions = 0
}

@MainActor
struct PublisherTests {
    private func open() async throws -> ModelController<Words> {
        try await ModelController(app: "words", storage: try StorageKind.inMemory.make(), logger: Logger(label: "test"))
    }

    /// A subscriber to the controller's words, joined by commas, that asks for one state at a time.
    private func subscribeOneAtATime(to controller: ModelController<Words>) -> (OneAtATime, Collected<String>) {
        let collected = Collected<String>()
        let subscriber = OneAtATime(collected)
        controller.statePublisher().map { $0.words.joined(separator: ",") }
            .setFailureType(to: SubscriptionError.self).subscribe(subscriber)
        return (subscriber, collected)
    }

    @Test func statePublisherSendsTheCommittedStateThenEachNewOne() async throws {
        let controller = try await open()
        try await controller.add("one")
        let collected = Collected<[String]>()
        let cancellable = controller.statePublisher().map(\.words).sink { words in
            // Traps unless the value arrives on the main actor, as the publishers promise.
            MainActor.assumeIsolated { collected.values.append(words) }
        }
        try await waitUntil("the committed state") { collected.values == [["one"]] }
        try await controller.add("two")
        try await controller.add("three")
        try await waitUntil("each new state") { collected.values.count == 3 }
        #expect(collected.values == [["one"], ["one", "two"], ["one", "two", "three"]])
        cancellable.cancel()
    }

    @Test func eventPublisherSendsEventsAfterASequenceWithTheirOrigin() async throws {
        let controller = try await open()
        try await controller.add("before")
        let after = await controller.snapshot().sequence
        let scene = SceneSession.ID("scene-a")
        let collected = Collected<EventEnvelope<Words.Event>>()
        let cancellable = controller.eventPublisher(after: after).sink(
            receiveCompletion: { _ in collected.completions += 1 },
            receiveValue: { collected.values.append($0) })
        try await controller.add("from a scene", origin: scene)
        try await controller.add("from elsewhere")
        try await waitUntil("two events") { collected.values.count == 2 }
        #expect(collected.values.map(\.event) == [.added("from a scene"), .added("from elsewhere")])
        #expect(collected.values.map(\.origin) == [scene, nil])
        #expect(collected.values.map(\.sequence) == [after + 1, after + 2])
        cancellable.cancel()
    }

    @Test func statePublishersShareOneSubscriptionAndCancellingEndsOnlyItsOwn() async throws {
        let controller = try await open()
        let collected = Collected<Int>()
        let witnessed = Collected<Int>()
        var cancellable: AnyCancellable? = controller.statePublisher().map(\.words.count).sink { collected.values.append($0) }
        let witness = controller.statePublisher().map(\.words.count).sink { witnessed.values.append($0) }
        try await waitUntil("both to have the state") { collected.values == [0] && witnessed.values == [0] }
        // Every state publisher shares one subscription, which the feed starts reading from shortly.
        try await waitUntil("one subscription for both") { controller.subscriberCount == 1 && controller.followerCount == 2 }
        cancellable = nil
        try await waitUntil("its following to end") { controller.followerCount == 1 }
        try await controller.add("unseen")
        // A subscriber still there has the new state: the cancelled one was not given it.
        try await waitUntil("the new state to reach the other subscriber") { witnessed.values == [0, 1] }
        #expect(collected.values == [0])
        witness.cancel()
        try await waitUntil("the shared subscription to end with the last") { controller.subscriberCount == 0 }
        _ = cancellable
    }

    @Test func aStateSubscriberThatAsksLaterIsGivenTheLatestState() async throws {
        let controller = try await open()
        let (subscriber, collected) = subscribeOneAtATime(to: controller)
        let everything = Collected<Int>()
        let witness = controller.statePublisher().sink { everything.values.append($0.words.count) }
        try await waitUntil("the committed state") { collected.values == [""] }
        for word in ["a", "b", "c"] { try await controller.add(word) }
        try await waitUntil("every state to reach the other subscriber") { everything.values == [0, 1, 2, 3] }
        #expect(collected.values == [""], "it asked for one")
        subscriber.requestOneMore()
        try await waitUntil("the next state") { collected.values.count >= 2 }
        #expect(collected.values == ["", "a,b,c"], "the latest, not the ones it did not ask for")
        try await controller.add("d")
        try await waitUntil("the other subscriber to have it") { everything.values.last == 4 }
        #expect(collected.values.count == 2, "no more than it asked for")
        subscriber.subscription?.cancel()
        witness.cancel()
    }

    @Test func aStatePublisherCancelledAsItSubscribesLeavesNoFeedBehind() async throws {
        let controller = try await open()
        // The model is busy with an intent, so the publisher is still reading its state when it
        // is cancelled.
        let busy = Task.detached {
            try await controller.perform(origin: nil) { _ in
                Thread.sleep(forTimeInterval: 0.3)
                return [.added("slow")]
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        let cancellable = controller.statePublisher().sink { _ in }
        try await Task.sleep(for: .milliseconds(50))
        cancellable.cancel()
        _ = try await busy.value
        try await waitUntil("nothing to follow the controller") { controller.subscriberCount == 0 && controller.followerCount == 0 }
        // And it stays so: no feed was left reading for no one.
        try await Task.sleep(for: .milliseconds(50))
        #expect(controller.subscriberCount == 0 && controller.followerCount == 0)
    }

    @Test func aStateWaitingForDemandIsDeliveredBeforeTheFinish() async throws {
        let controller = try await open()
        let (subscriber, collected) = subscribeOneAtATime(to: controller)
        try await waitUntil("the committed state") { collected.values == [""] }
        try await controller.add("last")
        await controller.close()
        try await Task.sleep(for: .milliseconds(50))
        #expect(collected.values == [""] && collected.completions == 0, "the finish waits behind the state not yet asked for")
        subscriber.requestOneMore()
        try await waitUntil("the last state, then the finish") { collected.completions == 1 }
        #expect(collected.values == ["", "last"])
    }

    @Test func aSubscriberGetsNoMoreThanItAskedFor() async throws {
        let controller = try await open()
        let collected = Collected<String>()
        let subscriber = OneAtATime(collected)
        controller.eventPublisher(after: 0).map { envelope -> String in
            guard case let .added(word) = envelope.event else { return "" }
            return word
        }.subscribe(subscriber)
        let everything = Collected<String>()
        let witness = controller.eventPublisher(after: 0).sink(receiveCompletion: { _ in }, receiveValue: { envelope in
            guard case let .added(word) = envelope.event else { return }
            everything.values.append(word)
        })
        for word in ["a", "b", "c"] { try await controller.add(word) }
        // A subscriber that asked for everything has it all.
        try await waitUntil("every event to reach the other subscriber") { everything.values == ["a", "b", "c"] }
        try await waitUntil("the first event") { !collected.values.isEmpty }
        #expect(collected.values == ["a"], "it asked for one")
        subscriber.requestOneMore()
        try await waitUntil("the second event") { collected.values.count >= 2 }
        #expect(collected.values == ["a", "b"], "one more, the next one")
        subscriber.subscription?.cancel()
        witness.cancel()
    }

    @Test func publishersFinishWhenTheControllerCloses() async throws {
        let controller = try await open()
        let states = Collected<Int>()
        let events = Collected<Int>()
        let stateCancellable = controller.statePublisher().sink(receiveCompletion: { _ in states.completions += 1 }, receiveValue: { _ in })
        let eventCancellable = controller.eventPublisher(after: 0).sink(receiveCompletion: { _ in events.completions += 1 }, receiveValue: { _ in })
        try await waitUntil("both subscriptions") { controller.subscriberCount == 2 }
        await controller.close()
        try await waitUntil("both to finish") { states.completions == 1 && events.completions == 1 }
        _ = (stateCancellable, eventCancellable)
    }
}

/// A subscriber that asks for one value at first, and one more each time it is told to. Values
/// arrive on the main actor, as the publishers promise.
final class OneAtATime: Subscriber, @unchecked Sendable {
    typealias Input = String
    typealias Failure = SubscriptionError
    let combineIdentifier = CombineIdentifier()
    let collected: Collected<String>
    private(set) var subscription: (any Subscription)?

    init(_ collected: Collected<String>) { self.collected = collected }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: String) -> Subscribers.Demand {
        MainActor.assumeIsolated { collected.values.append(input) }
        return .none
    }

    func receive(completion: Subscribers.Completion<SubscriptionError>) {
        MainActor.assumeIsolated { collected.completions += 1 }
    }

    func requestOneMore() { subscription?.request(.max(1)) }
}
