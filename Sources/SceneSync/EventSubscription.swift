import Foundation

/// A model controller's update events as an `AsyncSequence`: first those after a given sequence
/// number from the log, then live ones as they are committed, with no gap and no duplicate.
///
/// Iteration ends when the iterating task is cancelled, when the iterator is released, or when the
/// model controller closes. A subscriber that falls far behind is caught up from the log; if the
/// log no longer holds what it missed, iteration throws ``SubscriptionError/tooOld(requested:oldestAvailable:)``
/// and the subscriber should start again from a fresh snapshot.
///
/// ```swift
/// for try await envelope in store.events(after: lastSeen) {
///     render(envelope.event, skipAnimation: envelope.origin == scene.session.id)
/// }
/// ```
public struct EventSubscription<Event: UpdateEvent>: AsyncSequence, Sendable {
    public typealias Element = EventEnvelope<Event>
    public typealias Failure = SubscriptionError

    let after: UInt64
    let log: EventLogReader<Event>
    let broadcaster: Broadcaster<Event>
    let bufferLimit: Int

    /// Registers with the model controller and starts reading.
    public func makeAsyncIterator() -> Iterator {
        let (stream, startsAfter) = broadcaster.subscribe(bufferLimit: bufferLimit)
        return Iterator(live: stream.makeAsyncIterator(), liveStartsAfter: startsAfter, last: after, log: log)
    }

    /// Reads envelopes in sequence order.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = EventEnvelope<Event>
        public typealias Failure = SubscriptionError

        private var live: AsyncStream<Element>.Iterator
        private let liveStartsAfter: UInt64
        private var last: UInt64
        private let log: EventLogReader<Event>
        private var backlog: [Element] = []
        private var backlogIndex = 0
        private var held: Element?
        private var isAheadOfLive: Bool

        init(live: AsyncStream<Element>.Iterator, liveStartsAfter: UInt64, last: UInt64, log: EventLogReader<Event>) {
            self.live = live
            self.liveStartsAfter = liveStartsAfter
            self.last = last
            self.log = log
            // A number past what this node has published may come from another node that has
            // committed further than this one has yet heard: the log tells.
            isAheadOfLive = last > liveStartsAfter
        }

        /// The next envelope, or `nil` when the subscription has ended.
        public mutating func next() async throws(SubscriptionError) -> Element? {
            try await next(isolation: nil)
        }

        /// The next envelope, or `nil` when the subscription has ended.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(SubscriptionError) -> Element? {
            if isAheadOfLive {
                isAheadOfLive = false
                if try await !log.contains(last) {
                    // Nothing with this number has happened: the caller's number is from another
                    // database, or from before a reset.
                    let requested = last
                    last = liveStartsAfter
                    throw .notYetReached(requested: requested, latest: liveStartsAfter)
                }
                // Live envelopes up to `last` are skipped as they come.
            }
            while true {
                if Task.isCancelled { return nil }
                if backlogIndex < backlog.count {
                    let envelope = backlog[backlogIndex]
                    backlogIndex += 1
                    last = envelope.sequence
                    return envelope
                }
                if last < liveStartsAfter {
                    backlog = try await log.read(after: last, through: liveStartsAfter)
                    backlogIndex = 0
                    continue
                }
                let candidate: Element
                if let held {
                    candidate = held
                    self.held = nil
                } else {
                    guard let received = await live.next(isolation: actor) else { return nil }
                    candidate = received
                }
                if candidate.sequence <= last { continue }
                if candidate.sequence > last + 1 {
                    // The live buffer overflowed and dropped the oldest envelopes: fetch them.
                    held = candidate
                    backlog = try await log.read(after: last, through: candidate.sequence - 1)
                    backlogIndex = 0
                    continue
                }
                last = candidate.sequence
                return candidate
            }
        }
    }
}

/// Reads an app's logged events back as typed envelopes.
struct EventLogReader<Event: UpdateEvent>: Sendable {
    let app: String
    let storage: any SceneSyncStorage
    static var pageSize: Int { 512 }

    /// Whether the log holds the event numbered `sequence`.
    func contains(_ sequence: UInt64) async throws(SubscriptionError) -> Bool {
        guard sequence > 0 else { return true }
        do {
            return try await storage.events(app: app, after: sequence - 1, limit: 1).first?.sequence == sequence
        } catch {
            throw .logUnavailable(reason: "\(error)")
        }
    }

    /// Events `after + 1 ... through`, at most one page, starting exactly at `after + 1`.
    func read(after: UInt64, through end: UInt64) async throws(SubscriptionError) -> [EventEnvelope<Event>] {
        let stored: [StoredEvent]
        do {
            stored = try await storage.events(app: app, after: after, limit: min(Self.pageSize, Int(end - after)))
        } catch {
            throw .logUnavailable(reason: "\(error)")
        }
        guard let first = stored.first, first.sequence == after + 1 else {
            throw .tooOld(requested: after, oldestAvailable: stored.first?.sequence ?? end + 1)
        }
        return try Self.decode(stored.filter { $0.sequence <= end })
    }

    /// One page of the log after `sequence`, decoded, as it is: it may start after `sequence + 1`
    /// if the log was trimmed. `reachedEnd` is true when the page is the log's last.
    func page(after sequence: UInt64) async throws -> (envelopes: [EventEnvelope<Event>], reachedEnd: Bool) {
        let stored = try await storage.events(app: app, after: sequence, limit: Self.pageSize)
        return (try Self.decode(stored), stored.count < Self.pageSize)
    }

    /// Decodes logged events as this app's event type.
    static func decode(_ stored: [StoredEvent]) throws(SubscriptionError) -> [EventEnvelope<Event>] {
        let decoder = JSONDecoder()
        var envelopes: [EventEnvelope<Event>] = []
        envelopes.reserveCapacity(stored.count)
        for event in stored {
            do {
                let decoded = try decoder.decode(Event.self, from: event.payload)
                envelopes.append(EventEnvelope(sequence: event.sequence, origin: event.origin, timestamp: event.timestamp, event: decoded))
            } catch {
                throw .undecodableEvent(sequence: event.sequence, reason: "\(error)")
            }
        }
        return envelopes
    }
}

/// Why a subscription could not go on.
public enum SubscriptionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The log no longer holds the events after `requested`: it starts at `oldestAvailable`.
    /// Take a fresh snapshot and subscribe after its sequence number.
    case tooOld(requested: UInt64, oldestAvailable: UInt64)
    /// The app has not yet reached sequence number `requested`: its latest is `latest`. The
    /// caller's number comes from elsewhere; take a fresh snapshot.
    case notYetReached(requested: UInt64, latest: UInt64)
    /// The log could not be read.
    case logUnavailable(reason: String)
    /// A logged event could not be decoded as this app's event type.
    case undecodableEvent(sequence: UInt64, reason: String)

    public var description: String {
        switch self {
        case let .tooOld(requested, oldest):
            "Events after \(requested) are no longer kept (the log starts at \(oldest)); start from a snapshot."
        case let .notYetReached(requested, latest):
            "Event \(requested) has not happened here (the latest is \(latest)); start from a snapshot."
        case let .logUnavailable(reason): "The event log could not be read: \(reason)"
        case let .undecodableEvent(sequence, reason): "Logged event \(sequence) could not be read: \(reason)"
        }
    }
}
