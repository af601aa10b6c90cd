import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// A Combine subscription fed by a producer on the main actor: it delivers what the producer
/// sends (waiting for demand) or offers (keeping the latest until there is demand), no more than
/// the subscriber asked for, and stops the producer when cancelled.
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
    /// The latest value ``offer(_:)`` could not deliver for want of demand.
    private var pending: Output?
    /// A completion that came while a value was pending: sent once the value is delivered.
    private var pendingCompletion: Subscribers.Completion<Failure>?

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

    /// Delivers `value` at once if the subscriber wants one; otherwise keeps it, in place of any
    /// value kept before, until the subscriber asks. For values where only the latest matters.
    @MainActor
    func offer(_ value: Output) {
        let state: (subscriber: AnySubscriber<Output, Failure>?, hasDemand: Bool) = lock.withLock {
            guard demand > 0 else {
                if subscriber != nil { pending = value }
                return (nil, false)
            }
            demand -= 1
            pending = nil
            return (subscriber, true)
        }
        guard state.hasDemand, let subscriber = state.subscriber else { return }
        let more = subscriber.receive(value)
        lock.withLock { demand += more }
    }

    /// Delivers the value kept by ``offer(_:)``, if any, now that the subscriber asked for more.
    @MainActor
    private func deliverPending() {
        let kept: Output? = lock.withLock {
            guard subscriber != nil, demand > 0 else { return nil }
            defer { pending = nil }
            return pending
        }
        if let kept { offer(kept) }
        // The producer finished while the value waited: the subscriber has it now.
        let completion: Subscribers.Completion<Failure>? = lock.withLock {
            guard pending == nil else { return nil }
            defer { pendingCompletion = nil }
            return pendingCompletion
        }
        if let completion { finish(completion) }
    }

    /// Ends the subscription with `completion`, unless it was cancelled.
    @MainActor
    func finish(_ completion: Subscribers.Completion<Failure>) {
        let subscriber: AnySubscriber<Output, Failure>? = lock.withLock {
            // A value offered and not yet asked for goes first (see ``deliverPending()``).
            guard pending == nil else {
                pendingCompletion = completion
                return nil
            }
            defer { self.subscriber = nil }
            return self.subscriber
        }
        subscriber?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        let (waiter, hasPending) = lock.withLock {
            self.demand += demand
            defer { self.waiter = nil }
            return (self.waiter, pending != nil)
        }
        waiter?.resume()
        if hasPending { Task { @MainActor in self.deliverPending() } }
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
