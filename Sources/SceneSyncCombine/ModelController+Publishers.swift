#if canImport(Combine)
public import Combine
#else
public import OpenCombine
#endif
public import SceneSync
import Synchronization

extension ModelController {
    /// The app's update events after `sequence` as a Combine publisher: from the log first, then
    /// live, with no gap and no duplicate, as `events(after:)` gives them.
    ///
    /// Values arrive on the main actor, where scenes and screens live, so a sink can update a
    /// window directly. The publisher fails with `SubscriptionError` if the log no longer holds
    /// the events after `sequence`, and finishes when the model controller closes. Cancelling
    /// it, or releasing its cancellable, ends the subscription.
    ///
    /// ```swift
    /// cancellable = controller.eventPublisher(after: snapshot.sequence)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { [weak self] envelope in self?.apply(envelope) })
    /// ```
    public nonisolated func eventPublisher(after sequence: UInt64) -> EventPublisher {
        EventPublisher(controller: self, sequence: sequence)
    }

    /// The app's state as a Combine publisher: the committed state when subscribed, then the
    /// state after each committed event. It never fails: if it falls behind the log it starts
    /// again from the current state. It finishes when the model controller closes.
    ///
    /// Values arrive on the main actor. Every state publisher of a controller, in every window,
    /// shares one subscription and one copy of the state, applied once per event: a window's
    /// pipeline costs a call per change, not a subscription and a copy of the state of its own. A
    /// subscriber that has not asked for a value when the state changes is given the latest state
    /// once it asks. The seed's badge, as a pipeline:
    ///
    /// ```swift
    /// badgeSubscription = controller.statePublisher()
    ///     .map(\.order.count)
    ///     .removeDuplicates()
    ///     .sink { [weak self] count in self?.showBadge(count) }
    /// ```
    public nonisolated func statePublisher() -> StatePublisher {
        StatePublisher(controller: self)
    }

    /// A publisher of a model controller's update events; see ``ModelController/eventPublisher(after:)``.
    public struct EventPublisher: Publisher, Sendable {
        public typealias Output = EventEnvelope<State.Event>
        public typealias Failure = SubscriptionError

        /// The model controller whose events it publishes.
        public let controller: ModelController
        /// The sequence number after which it starts.
        public let sequence: UInt64

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let events = controller.events(after: sequence)
            MainActorSubscription<Output, Failure>(AnySubscriber<Output, Failure>(subscriber)).start { subscription in
                var iterator = events.makeAsyncIterator()
                do throws(SubscriptionError) {
                    while let envelope = try await iterator.next() {
                        guard await subscription.send(envelope) else { return }
                    }
                    if !Task.isCancelled { subscription.finish(.finished) }
                } catch {
                    subscription.finish(.failure(error))
                }
            }
        }
    }

    /// A publisher of a model controller's state; see ``ModelController/statePublisher()``.
    public struct StatePublisher: Publisher, Sendable {
        public typealias Output = State
        public typealias Failure = Never

        /// The model controller whose state it publishes.
        public let controller: ModelController

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let controller = controller
            MainActorSubscription<Output, Failure>(AnySubscriber<Output, Failure>(subscriber)).start { subscription in
                while !Task.isCancelled {
                    let feed = await ModelFeed.sharingState(of: controller)
                    let end = FollowingEnd()
                    // Joined before anything else, even if cancelled meanwhile: the feed may have
                    // been started for this subscriber, and removing its last follower stops it.
                    let follower = feed.add(after: feed.stateSequence, handler: { _ in
                        if let state = feed.state { subscription.offer(state) }
                    }, fellBehind: { end.end(.fellBehind) }, finished: { end.end(.finished) })
                    if let state = feed.state, !Task.isCancelled { subscription.offer(state) }
                    switch await end.wait() {
                    case .cancelled:
                        feed.remove(follower)
                        return
                    case .finished:
                        subscription.finish(.finished)
                        return
                    case .fellBehind:
                        // Fell behind a trimmed log: start again from what is committed now.
                        continue
                    }
                }
            }
        }
    }
}

/// How a follower of a model's feed stopped, and a way for a producer task to wait for it.
final class FollowingEnd: Sendable {
    enum Reason: Sendable { case cancelled, fellBehind, finished }

    private struct Waiting {
        var reason: Reason?
        var continuation: CheckedContinuation<Reason, Never>?
    }

    private let waiting = Mutex(Waiting())

    /// Ends the following, once: later reasons are ignored.
    func end(_ reason: Reason) {
        let continuation = waiting.withLock { waiting -> CheckedContinuation<Reason, Never>? in
            guard waiting.reason == nil else { return nil }
            waiting.reason = reason
            defer { waiting.continuation = nil }
            return waiting.continuation
        }
        continuation?.resume(returning: reason)
    }

    /// Waits until the following ends, or the task is cancelled.
    func wait() async -> Reason {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let reason = waiting.withLock { waiting -> Reason? in
                    if let reason = waiting.reason { return reason }
                    waiting.continuation = continuation
                    return nil
                }
                if let reason { continuation.resume(returning: reason) }
            }
        } onCancel: {
            end(.cancelled)
        }
    }
}
