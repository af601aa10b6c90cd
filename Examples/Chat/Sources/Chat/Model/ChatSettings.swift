/// Chat's adjustable bounds on what one person or one client can make the server keep or do,
/// with defaults a person chatting never meets. ``ChatLimits`` holds the fixed ones.
///
/// ```swift
/// let chat = try await ChatController(storage: storage, settings: ChatSettings(messagesKeptPerConversation: 1_000), logger: logger)
/// ```
public struct ChatSettings: Sendable, Equatable {
    /// How many messages one person may send at once before ``messagesPerSecond`` applies; more
    /// are refused with ``ChatError/sendingTooFast(retryAfterSeconds:)``. 150 by default.
    public var messageBurst: Int
    /// How many messages a second one person may go on sending once the burst is spent: the rate
    /// at which the burst comes back. 2 by default.
    public var messagesPerSecond: Double
    /// How many of a conversation's newest messages the server holds in memory and in its records,
    /// and windows can show; older messages are let go of (they stay only in the event log, until
    /// it is trimmed). 500 by default.
    public var messagesKeptPerConversation: Int
    /// How many devices (browser profiles) may be signed in as one person; signing in on one more
    /// signs out the device signed in longest ago. 8 by default.
    public var maximumDevicesPerPerson: Int
    /// How many conversations one person may start; more are refused with
    /// ``ChatError/tooManyConversationsStarted(limit:)``. 100 by default.
    public var maximumConversationsStartedPerPerson: Int
    /// How many new people one client (a network address) may create by signing in, while the
    /// server runs; more are refused with ``ChatError/tooManyPeopleFromClient(limit:)``. 20 by default.
    public var maximumPeoplePerClient: Int
    /// How many conversations one client (a network address) may start, while the server runs;
    /// more are refused with ``ChatError/tooManyConversationsFromClient(limit:)``. 200 by default.
    public var maximumConversationsPerClient: Int

    /// The number of messages a conversation holds when no setting says otherwise.
    public static let defaultMessagesKeptPerConversation = 500

    /// Creates settings; each value is at least 1 (the rate at least one message an hour).
    public init(
        messageBurst: Int = 150, messagesPerSecond: Double = 2,
        messagesKeptPerConversation: Int = Self.defaultMessagesKeptPerConversation,
        maximumDevicesPerPerson: Int = 8, maximumConversationsStartedPerPerson: Int = 100,
        maximumPeoplePerClient: Int = 20, maximumConversationsPerClient: Int = 200
    ) {
        self.messageBurst = max(1, messageBurst)
        self.messagesPerSecond = max(1.0 / 3_600, messagesPerSecond.isNaN ? 0 : min(messagesPerSecond, .greatestFiniteMagnitude))
        self.messagesKeptPerConversation = max(1, messagesKeptPerConversation)
        self.maximumDevicesPerPerson = max(1, maximumDevicesPerPerson)
        self.maximumConversationsStartedPerPerson = max(1, maximumConversationsStartedPerPerson)
        self.maximumPeoplePerClient = max(1, maximumPeoplePerClient)
        self.maximumConversationsPerClient = max(1, maximumConversationsPerClient)
    }
}
