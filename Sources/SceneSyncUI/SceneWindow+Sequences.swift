/// The sequence numbers a window's screens applied, which every message it is sent carries:
/// shared between the node's windows that reach the same numbers.
extension SceneWindow {
    /// Notes that one of the window's screens applied `app`'s events through `sequence`.
    func noteSequence(_ sequence: UInt64, for app: String) {
        // The node's windows go through the same numbers in turn, one after another: a window
        // that held what the last one to move held moves to what that one moved to, without
        // reading either dictionary.
        if let last = Self.lastNoted, last.from == sequencesID, last.sequence == sequence, last.app == app {
            sequences = last.values
            sequencesID = last.id
            return
        }
        // A number not seen yet is noted even at 0 (a model with no events yet), as before.
        if let current = sequences[app], current >= sequence { return }
        let from = sequencesID
        // The last message sent holds these numbers too, so writing a new one would copy them,
        // in every window at every change: the first window to reach them makes the
        // dictionary, and the others share it.
        if let shared = Self.lastNoted, shared.values[app] == sequence,
           shared.values.count == sequences.count + (sequences[app] == nil ? 1 : 0),
           sequences.allSatisfy({ $0.key == app || shared.values[$0.key] == $0.value }) {
            sequences = shared.values
            sequencesID = shared.id
        } else {
            sequences[app] = sequence
            Self.lastSequencesID &+= 1
            sequencesID = Self.lastSequencesID
        }
        Self.lastNoted = NotedSequences(from: from, app: app, sequence: sequence, values: sequences, id: sequencesID)
    }

    /// A window's move to a new sequence number: from the numbers it held (by id) to those it
    /// holds since, for the next window that makes the same move.
    private struct NotedSequences {
        let from: Int
        let app: String
        let sequence: UInt64
        let values: [String: UInt64]
        let id: Int
    }

    /// The last move to a new sequence number any window made.
    private static var lastNoted: NotedSequences?
    /// The id last given to a dictionary of sequence numbers; 0 is the empty one.
    private static var lastSequencesID = 0
}
