public import SceneSync
import Synchronization

/// Records the envelopes of a subscription in the background, for tests to wait on and inspect.
///
/// ```swift
/// let recorder = EventRecorder(store.events(after: 0))
/// try await store.createRandomItem(origin: nil)
/// let received = try await recorder.waitForEvents(count: 1)
/// ```
public final class EventRecorder<Event: UpdateEvent>: Sendable {
    private struct State {
        var envelopes: [EventEnvelope<Event>] = []
        var error: SubscriptionError?
        var isFinished = false
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts recording `subscription`.
    public init(_ subscription: EventSubscription<Event>) {
        let started = Task { [shared] in
            do {
                for try await envelope in subscription {
                    shared.state.withLock { $0.envelopes.append(envelope) }
                }
            } catch {
                shared.state.withLock { $0.error = (error as? SubscriptionError) ?? .logUnavailable(reason: "\(error)") }
            }
            shared.state.withLock { $0.isFinished = true }
        }
        task.withLock { $0 = started }
    }

    deinit {
        task.withLock { $0?.cancel() }
    }

    /// Everything recorded so far.
    public var envelopes: [EventEnvelope<Event>] { shared.state.withLock { $0.envelopes } }
    /// The recorded events without their envelopes.
    public var events: [Event] { envelopes.map(\.event) }
    /// The error that ended the subscription, if any.
    public var error: SubscriptionError? { shared.state.withLock { $0.error } }
    /// Whether the subscription has ended.
    public var isFinished: Bool { shared.state.withLock { $0.isFinished } }

    /// Stops recording; the subscription ends.
    public func cancel() {
        task.withLock { $0?.cancel() }
    }

    /// Waits until at least `count` envelopes are recorded and returns them all.
    ///
    /// - Throws: ``RecorderTimeout`` if they do not arrive within `timeout`, or the subscription's
    ///   error if it ended first.
    @discardableResult
    public func waitForEvents(count: Int, timeout: Duration = .seconds(30)) async throws -> [EventEnvelope<Event>] {
        try await waitUntil(timeout: timeout, "\(count) events") { $0.envelopes.count >= count }
    }

    /// Waits until the subscription has ended.
    public func waitUntilFinished(timeout: Duration = .seconds(30)) async throws {
        _ = try await waitUntil(timeout: timeout, "the end of the subscription") { $0.isFinished }
    }

    private func waitUntil(
        timeout: Duration, _ what: String, _ condition: (State) -> Bool
    ) async throws -> [EventEnvelope<Event>] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let (met, envelopes, error, finished) = shared.state.withLock { (condition($0), $0.envelopes, $0.error, $0.isFinished) }
            if met { return envelopes }
            if let error { throw error }
            if finished { throw RecorderTimeout(waitingFor: what, received: envelopes.count, ended: true) }
            if clock.now >= deadline { throw RecorderTimeout(waitingFor: what, received: envelopes.count, ended: false) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// A recorder waited in vain.
public struct RecorderTimeout: Error, CustomStringConvertible {
    /// What it waited for.
    public let waitingFor: String
    /// How many envelopes had arrived.
    public let received: Int
    /// Whether the subscription ended instead.
    public let ended: Bool

    public var description: String {
        ended ? "The subscription ended after \(received) events, while waiting for \(waitingFor)."
              : "Timed out after \(received) events, while waiting for \(waitingFor)."
    }
}
