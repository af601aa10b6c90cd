public import Foundation
import Synchronization

/// One transient event as subscribers receive it: who caused it and when, with no sequence number.
///
/// Transient events, such as "Ana is typing", reach every window following a model controller
/// the moment they are announced, but they are never written to the log or the app's records and
/// cost no commit: a window that was not listening misses them, and nothing replays them.
public struct TransientEnvelope<Event: Sendable>: Sendable {
    /// The scene whose intent announced the event, or `nil` for one from outside any scene.
    public let origin: SceneSession.ID?
    /// When the event was announced.
    public let timestamp: Date
    /// What happened.
    public let event: Event

    /// Creates an envelope; model controllers make these, tests may too.
    public init(origin: SceneSession.ID?, timestamp: Date, event: Event) {
        self.origin = origin
        self.timestamp = timestamp
        self.event = event
    }
}

extension TransientEnvelope: Equatable where Event: Equatable {}

/// Delivers transient envelopes to live subscribers; nothing is kept for later ones.
final class TransientBroadcaster<Event: Sendable>: Sendable {
    typealias Stream = AsyncStream<TransientEnvelope<Event>>

    private struct State {
        var subscribers: [UInt64: Stream.Continuation] = [:]
        var nextID: UInt64 = 0
        var isFinished = false
    }

    private let state = Mutex(State())

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A live stream of what is announced from now on; when more than `bufferLimit` wait unread,
    /// the oldest are dropped (a transient event that comes too late is of no use).
    func subscribe(bufferLimit: Int) -> Stream {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let (id, finished) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            if !state.isFinished { state.subscribers[id] = continuation }
            return (id, state.isFinished)
        }
        if finished {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
        }
        return stream
    }

    func publish(_ envelopes: [TransientEnvelope<Event>]) {
        guard !envelopes.isEmpty else { return }
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            for envelope in envelopes { subscriber.yield(envelope) }
        }
    }

    func finish() {
        let subscribers = state.withLock { state in
            state.isFinished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
