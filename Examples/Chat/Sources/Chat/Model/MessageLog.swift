/// A conversation's messages, oldest first, in chunks of a fixed size.
///
/// The chat state is a value that the model controller copies before it changes it. A flat array
/// of 100,000 messages would be copied whole for each new message; here only the list of chunks
/// (one reference per ``chunkSize`` messages) and the last chunk are, so a new message costs about
/// the same in a long conversation as in a short one.
public struct MessageLog: Sendable, Equatable {
    /// Messages per chunk.
    public static let chunkSize = 256

    private var chunks: [[Message]] = []

    /// An empty log.
    public init() {}

    /// How many messages there are.
    public private(set) var count = 0

    /// The newest message.
    public var last: Message? { chunks.last?.last }

    /// Appends a message.
    public mutating func append(_ message: Message) {
        if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
            var chunk: [Message] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunk.append(message)
            chunks.append(chunk)
        } else {
            chunks[chunks.count - 1].append(message)
        }
        count += 1
    }

    /// The message at `index` (0 for the oldest).
    public subscript(index: Int) -> Message {
        chunks[index / Self.chunkSize][index % Self.chunkSize]
    }

    /// The messages at `range`, oldest first; indices outside the log are left out.
    public func messages(in range: Range<Int>) -> [Message] {
        let clamped = range.clamped(to: 0..<count)
        return clamped.map { self[$0] }
    }

    /// Up to `limit` messages before the message numbered `number` (all the newest, with `nil`),
    /// oldest first.
    public func page(before number: Int?, limit: Int) -> [Message] {
        let end = min(max((number ?? count + 1) - 1, 0), count)
        return messages(in: max(0, end - max(limit, 0))..<end)
    }
}
