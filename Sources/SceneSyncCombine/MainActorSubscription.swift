import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// A Combine subscription fed by an async producer on the main actor: it delivers what the
/// producer sends, no more than the subscriber asked for, and stops the producer when cancelled.
///
/// It is `@unchecked Sendable` because Combine calls `request` and `cancel` from any thread: every
/// stored property is read and written under `lock`, and the subscriber is only called on the
/// main actor.
final class MainActorSubscription<Output: Sendable, Failure: Error>: Subscription, @unchecked Sendable {
    private let lock = NSLock()
    private var subscriber: AnySubscriber<Output, Failure>?
    private var demand = Subscribers.Demand.none
    private var waiter: CheckedContinuation<Void, Never>?
    private var producer: Task<Void, Never>?

    init(_ subscriber: AnySubscriber<Output, Failure>) {
        self.subscriber = subscriber
    }

    /// Hands the subscription to the subscriber, then starts `produce`, which sends values with
    /// ``send(_:)`` until it returns `false`, and may end with ``finish(_:)``.
    func start(_ produce: @escaping @MainActor @Sendable (MainActorSubscription) async -> Void) {
        let subscriber = lock.withLock { self.subscriber }
        subscriber?.receive(subscription: self)
        let task = Task { @MainActor in await produce(self) }
        let cancelled = lock.withLock {
            producer = task
            return self.subscriber == nil
        }
        if cancelled { task.cancel() }
    }

    /// Delivers `value` once the subscriber wants one; `false` if the subscription was cancelled.
    @MainActor
    func send(_ value: Output) async -> Bool {
        while true {
            let state: (subscriber: AnySubscriber<Output, Failure>?, hasDemand: Bool) = lock.withLock {
                guard let subscriber, demand > 0 else { return (subscriber, false) }
                demand -= 1
                return (subscriber, true)
            }
            guard let subscriber = state.subscriber else { return false }
            if state.hasDemand {
                let more = subscriber.receive(value)
                lock.withLock { demand += more }
                return true
            }
            await withCheckedContinuation { continuation in
                let wake = lock.withLock {
                    guard self.subscriber != nil, demand == .none else { return true }
                    waiter = continuation
                    return false
                }
                if wake { continuation.resume() }
            }
        }
    }

    /// Ends the subscription with `completion`, unless it was cancelled.
    @MainActor
    func finish(_ completion: Subscribers.Completion<Failure>) {
        let subscriber = lock.withLock {
            defer { self.subscriber = nil }
            return self.subscriber
        }
        subscriber?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        let waiter = lock.withLock {
            self.demand += demand
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }

    func cancel() {
        let (waiter, producer) = lock.withLock {
            subscriber = nil
            defer { self.waiter = nil }
            return (self.waiter, self.producer)
        }
        waiter?.resume()
        producer?.cancel()
    }
}
