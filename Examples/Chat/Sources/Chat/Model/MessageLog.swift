/// A conversation's newest messages, oldest first, in chunks of a fixed size.
///
/// The chat state is a value that the model controller copies before it changes it. A flat array
/// of messages would be copied whole for each new message; here only the list of chunks (one
/// reference per ``chunkSize`` messages) and the chunk that changes are, so a new message costs
/// about the same in a long conversation as in a short one.
///
/// A log need not start at the conversation's first message: ``dropOldest(keeping:)`` lets go of
/// the oldest, so that a conversation holds a bounded window of its history in memory (see
/// ``ChatSettings/messagesKeptPerConversation``). Messages are still counted from the first
/// ever, so that ``count`` is the number of the newest and ``firstNumber`` that of the oldest kept.
public struct MessageLog: Sendable, Equatable {
    /// Messages per chunk.
    public static let chunkSize = 256

    /// Chunks aligned on multiples of ``chunkSize`` in the conversation: the first chunk may miss
    /// its front (messages let go of), the last its end.
    private var chunks: [[Message]] = []
    /// How many of the oldest messages are not held: numbers 1 through `dropped`.
    private var dropped = 0

    /// An empty log of a conversation without messages.
    public init() {}

    /// An empty log whose first message will be numbered `firstNumber`: the conversation's older
    /// messages are not held.
    public init(startingAt firstNumber: Int) {
        dropped = max(0, firstNumber - 1)
        count = dropped
    }

    /// How many messages the conversation has had: the number of the newest, held or not.
    public private(set) var count = 0

    /// The number of the oldest message held (``count`` + 1 when none is).
    public var firstNumber: Int { dropped + 1 }

    /// How many messages are held.
    public var keptCount: Int { count - dropped }

    /// The newest message.
    public var last: Message? { chunks.last?.last }

    /// Appends a message.
    public mutating func append(_ message: Message) {
        if chunks.isEmpty || count % Self.chunkSize == 0 {
            var chunk: [Message] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunk.append(message)
            chunks.append(chunk)
        } else {
            chunks[chunks.count - 1].append(message)
        }
        count += 1
    }

    /// Lets go of the oldest messages until at most `limit` are held; returns the numbers of those
    /// let go of, oldest first.
    @discardableResult
    public mutating func dropOldest(keeping limit: Int) -> ClosedRange<Int>? {
        let excess = keptCount - max(0, limit)
        guard excess > 0 else { return nil }
        let first = firstNumber
        var left = excess
        while left > 0 {
            let head = chunks[0].count
            if left >= head {
                chunks.removeFirst()
                left -= head
            } else {
                chunks[0].removeFirst(left)
                left = 0
            }
        }
        dropped += excess
        return first...(first + excess - 1)
    }

    /// The message at `index` (0 for the conversation's first); it must be held
    /// (`firstNumber - 1 ..< count`).
    public subscript(index: Int) -> Message {
        let chunk = index / Self.chunkSize - dropped / Self.chunkSize
        let offset = index % Self.chunkSize - (chunk == 0 ? dropped % Self.chunkSize : 0)
        return chunks[chunk][offset]
    }

    /// The messages at `range`, oldest first; indices outside those held are left out.
    public func messages(in range: Range<Int>) -> [Message] {
        let clamped = range.clamped(to: dropped..<max(dropped, count))
        return clamped.map { self[$0] }
    }

    /// Up to `limit` held messages before the message numbered `number` (all the newest, with
    /// `nil`), oldest first.
    public func page(before number: Int?, limit: Int) -> [Message] {
        let end = min(max((number ?? count + 1) - 1, 0), count)
        return messages(in: max(dropped, end - max(limit, 0))..<max(dropped, end))
    }
}
