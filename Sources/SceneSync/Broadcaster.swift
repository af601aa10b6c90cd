import Synchronization

/// Delivers committed envelopes to live subscribers. Registration and publication share one lock,
/// so a subscriber knows exactly which sequence number its live stream starts after.
final class Broadcaster<Event: UpdateEvent>: Sendable {
    typealias Stream = AsyncStream<EventEnvelope<Event>>

    private struct State {
        var subscribers: [UInt64: Stream.Continuation] = [:]
        var nextID: UInt64 = 0
        var lastPublished: UInt64
        var isFinished = false
    }

    private let state: Mutex<State>

    init(lastPublished: UInt64) {
        state = Mutex(State(lastPublished: lastPublished))
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Registers a live subscriber. Its stream carries every envelope published after `startsAfter`,
    /// except the oldest ones dropped when more than `bufferLimit` wait unread.
    func subscribe(bufferLimit: Int) -> (stream: Stream, startsAfter: UInt64) {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let (id, startsAfter, finished) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            if !state.isFinished { state.subscribers[id] = continuation }
            return (id, state.lastPublished, state.isFinished)
        }
        if finished {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        }
        return (stream, startsAfter)
    }

    /// Sends envelopes, already committed and in sequence order, to every subscriber.
    func publish(_ envelopes: [EventEnvelope<Event>]) {
        guard let last = envelopes.last else { return }
        let subscribers = state.withLock { state in
            state.lastPublished = last.sequence
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            for envelope in envelopes { subscriber.yield(envelope) }
        }
    }

    /// Ends every subscription; later subscriptions end at once.
    func finish() {
        let subscribers = state.withLock { state in
            state.isFinished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    private func unsubscribe(_ id: UInt64) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
}
