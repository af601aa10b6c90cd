import Synchronization

/// A model controller's committed envelopes to its live subscribers; the mark is the last
/// sequence number published, so that a subscriber knows exactly where its live stream starts.
typealias Broadcaster<Event: UpdateEvent> = LiveSubscribers<EventEnvelope<Event>, UInt64>

/// Delivers elements to live subscribers, each through a stream of its own. Registration and
/// publication share one lock, and so does a mark that publication sets (such as the last sequence
/// number published), which a subscriber is given as it registers: it knows exactly what its
/// stream starts after. Nothing is kept for subscribers that come later.
final class LiveSubscribers<Element: Sendable, Mark: Sendable>: Sendable {
    typealias Stream = AsyncStream<Element>

    private struct State {
        var subscribers: [UInt64: Stream.Continuation] = [:]
        var nextID: UInt64 = 0
        var mark: Mark
        var isFinished = false
    }

    private let state: Mutex<State>

    init(mark: Mark) {
        state = Mutex(State(mark: mark))
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Registers a live subscriber. Its stream carries every element published after the mark it
    /// is given, except the oldest ones dropped when more than `bufferLimit` wait unread.
    func subscribe(bufferLimit: Int) -> (stream: Stream, mark: Mark) {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let (id, mark, finished) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            if !state.isFinished { state.subscribers[id] = continuation }
            return (id, state.mark, state.isFinished)
        }
        if finished {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        }
        return (stream, mark)
    }

    /// Sends elements, in order, to every subscriber, and sets the mark to `mark`.
    func publish(_ elements: [Element], mark: Mark) {
        guard !elements.isEmpty else { return }
        let subscribers = state.withLock { state in
            state.mark = mark
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            for element in elements { subscriber.yield(element) }
        }
    }

    /// Sets the mark without publishing: subscribers that register from now on start after it.
    func setMark(_ mark: Mark) {
        state.withLock { $0.mark = mark }
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

extension LiveSubscribers where Mark == UInt64 {
    /// Sends committed envelopes, already in sequence order, to every subscriber.
    func publish<Event>(_ envelopes: [EventEnvelope<Event>]) where Element == EventEnvelope<Event> {
        guard let last = envelopes.last else { return }
        publish(envelopes, mark: last.sequence)
    }
}

extension LiveSubscribers where Mark == Void {
    /// Sends elements to every subscriber.
    func publish(_ elements: [Element]) {
        publish(elements, mark: ())
    }
}
