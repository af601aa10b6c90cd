import Foundation
import Synchronization

/// Why a batch did not commit.
enum CommitFailure: Error {
    /// Another writer committed first; the log's head is `head`.
    case conflict(head: UInt64)
    /// Actions of the batch were committed by other attempts: their intents are not kept.
    case actionsCommitted(Set<SceneActionID>)
    /// Anything else: nothing of the batch was kept.
    case failed(ModelControllerError)
}

/// Why a model controller did not carry out an intent that its app accepted.
public enum ModelControllerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The transaction did not commit; nothing of the intent was kept.
    case commitFailed(reason: String)
    /// An event or record could not be encoded; nothing of the intent was kept.
    case unencodable(reason: String)
    /// The controller was closed.
    case closed
    /// The intent was part of a window's action that another attempt (another node's) committed
    /// first: nothing of it was kept, and ``SceneActionID/carryOut(resent:isolation:_:)`` answers
    /// ``SceneActionID/AttemptOutcome/carriedOutElsewhere``.
    case carriedOutElsewhere(SceneActionID)

    public var description: String {
        switch self {
        case let .commitFailed(reason): "The change could not be saved: \(reason)"
        case let .unencodable(reason): "The change could not be encoded: \(reason)"
        case .closed: "The model is closed."
        case let .carriedOutElsewhere(action): "The action \(action) was carried out already."
        }
    }
}

/// An intent that a model controller accepted, from its acceptance to its commit: its sender or
/// the commit encodes it, whichever comes first. Checked again after another writer's commit, an
/// intent becomes a new one with the same ``Sender``, whose outcome wakes the sender.
final class AcceptedIntent<State: ModelState>: Sendable {
    /// What stays the same however often the intent is checked: who sent it, as part of which
    /// window's action, its check, and its outcome.
    final class Sender: Sendable {
        let origin: SceneSession.ID?
        let attempt: ActionAttempt?
        var action: SceneActionID? { attempt?.action }
        let decide: @Sendable (State) throws -> [State.Event]
        /// The committed envelopes, or why the intent was refused.
        let outcome = Handoff<Result<[EventEnvelope<State.Event>], any Error>>()

        init(origin: SceneSession.ID?, attempt: ActionAttempt? = nil, decide: @escaping @Sendable (State) throws -> [State.Event]) {
            self.origin = origin
            self.attempt = attempt
            self.decide = decide
        }
    }

    let sender: Sender
    let envelopes: [EventEnvelope<State.Event>]
    let changes: [RecordChange]
    let encoded = Handoff<Result<(events: [StoredEvent], changes: [EncodedRecordChange]), ModelControllerError>>()
    private let claimed = Atomic(false)

    init(sender: Sender, envelopes: [EventEnvelope<State.Event>], changes: [RecordChange]) {
        self.sender = sender
        self.envelopes = envelopes
        self.changes = changes
    }

    var lastSequence: UInt64 { envelopes[envelopes.count - 1].sequence }

    /// Encodes the events and record changes and gives them to `encoded`, unless another task
    /// has already started to. They are written in one pass each, `fallback` taking any value
    /// that a single pass cannot follow (see ``StreamingJSONEncoder``).
    func encodeUnlessClaimed(fallback: JSONEncoder) {
        guard claimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let encoder = StreamingJSONEncoder(fallback: fallback)
        do {
            let events = try envelopes.map { envelope in
                StoredEvent(sequence: envelope.sequence, origin: envelope.origin, timestamp: envelope.timestamp,
                            payload: try encoder.encode(envelope.event))
            }
            let records = try changes.map { change in
                switch change {
                case let .save(collection, key, value):
                    EncodedRecordChange(collection: collection, key: key, value: try encoder.encode(value))
                case let .delete(collection, key):
                    EncodedRecordChange(collection: collection, key: key, value: nil)
                }
            }
            encoded.give(.success((events, records)))
        } catch {
            encoded.give(.failure(.unencodable(reason: "\(error)")))
        }
    }
}

/// A value one task gives another, which may start waiting for it before it is there.
///
/// The value waits in a ``HandoffSlot``, which is not generic: storage of the value's own type
/// (an optional value and an optional continuation, under a lock) is laid out at run time in
/// unspecialised generic code, such as a model controller's, and had its type metadata looked up
/// each time a handoff was made, read and freed; twice an intent, that cost more than the rest of
/// the handoff.
struct Handoff<Value: Sendable>: Sendable {
    private let slot = HandoffSlot()

    /// Gives the value, once, and wakes the task waiting for it, if any.
    func give(_ value: Value) {
        slot.give(value)
    }

    /// The value, once given.
    var value: Value {
        get async {
            // Only ``give(_:)`` fills the slot, with a `Value`.
            await slot.value as! Value
        }
    }
}

/// Where a ``Handoff``'s value waits for the task that reads it, or that task for the value.
final class HandoffSlot: Sendable {
    private let slot = Mutex<(value: (any Sendable)?, waiter: CheckedContinuation<any Sendable, Never>?)>((nil, nil))

    /// Gives the value, once, and wakes the task waiting for it, if any.
    func give(_ value: any Sendable) {
        let waiter = slot.withLock { slot in
            slot.value = value
            return slot.waiter.take()
        }
        waiter?.resume(returning: value)
    }

    /// The value, once given.
    var value: any Sendable {
        get async {
            if let value = slot.withLock({ $0.value }) { return value }
            return await withCheckedContinuation { continuation in
                let value = slot.withLock { slot in
                    if slot.value == nil { slot.waiter = continuation }
                    return slot.value
                }
                if let value { continuation.resume(returning: value) }
            }
        }
    }
}

extension ModelController {
    /// Commits the batch in one transaction, off the actor, which meanwhile goes on checking the
    /// next intents. Intents whose senders have not started encoding them yet are encoded here
    /// rather than waited for, so a sender that is slow to be scheduled holds up no one else.
    @concurrent
    nonisolated static func commit(
        _ batch: [AcceptedIntent<State>], app: String, trimThrough: UInt64?,
        storage: any SceneSyncStorage, encoder: JSONEncoder
    ) async throws(CommitFailure) {
        var events: [StoredEvent] = []
        var changes: [EncodedRecordChange] = []
        for intent in batch {
            intent.encodeUnlessClaimed(fallback: encoder)
            switch await intent.encoded.value {
            case let .success(encoded):
                events += encoded.events
                changes += encoded.changes
            case let .failure(error):
                throw .failed(error)
            }
        }
        var actions: [CommittedAction] = []
        var recorded: Set<SceneActionID> = []
        for intent in batch {
            guard let attempt = intent.sender.attempt, recorded.insert(attempt.action).inserted else { continue }
            actions.append(CommittedAction(
                action: attempt.action, sequence: intent.envelopes[0].sequence, attempt: attempt.number, resent: attempt.resent))
        }
        do {
            try await storage.commit(CommitBatch(
                app: app, events: events, changes: changes, trimThrough: trimThrough, actions: actions))
        } catch let StorageError.sequenceConflict(_, expected, _) {
            throw .conflict(head: expected - 1)
        } catch let StorageError.actionsCommitted(_, committed) {
            throw .actionsCommitted(Set(committed))
        } catch {
            throw .failed(.commitFailed(reason: "\(error)"))
        }
    }
}
