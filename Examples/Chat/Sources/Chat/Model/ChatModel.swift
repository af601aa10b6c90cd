public import Foundation
public import SceneSync

/// Someone who chats: a display name, signed in from one or more browsers.
public struct Person: Codable, Sendable, Equatable, Identifiable {
    /// The person's key.
    public let id: UUID
    /// The name others see.
    public let name: String

    /// Creates a person.
    public init(id: UUID = UUID(), name: String) {
        self.id = id
        self.name = name
    }
}

/// A conversation between some people.
public struct Conversation: Codable, Sendable, Equatable, Identifiable {
    /// The conversation's key.
    public let id: UUID
    /// Its title.
    public let title: String
    /// Who takes part, the one who started it first.
    public let participants: [UUID]
    /// When it was started.
    public let startedAt: Date

    /// Creates a conversation.
    public init(id: UUID = UUID(), title: String, participants: [UUID], startedAt: Date) {
        self.id = id
        self.title = title
        self.participants = participants
        self.startedAt = startedAt
    }
}

/// One message of a conversation.
public struct Message: Codable, Sendable, Equatable {
    /// Its place in the conversation: 1 for the first message, and so on without gaps.
    public let number: Int
    /// Who sent it.
    public let sender: UUID
    /// What it says.
    public let text: String
    /// When it was sent.
    public let sentAt: Date

    /// Creates a message.
    public init(number: Int, sender: UUID, text: String, sentAt: Date) {
        self.number = number
        self.sender = sender
        self.text = text
        self.sentAt = sentAt
    }
}

/// What changes in Chat, broadcast to every window.
public enum ChatEvent: UpdateEvent {
    /// Someone signed in with a name no one had.
    case personJoined(Person)
    /// A device (a browser profile) signed in as `person`: every window on it acts for them.
    case signedIn(device: String, person: UUID)
    /// A device signed out.
    case signedOut(device: String)
    /// A conversation was started.
    case conversationStarted(Conversation)
    /// A message was sent; for its sender, the conversation is read through it.
    case messageSent(conversation: UUID, message: Message)
    /// People have read conversations: each mark says who read which through which message.
    /// Marks made at about the same time (everyone's windows on a conversation, when a message
    /// arrives) come as one event.
    case conversationsRead([ReadMark])
    /// From now on each conversation holds its newest `messagesPerConversation` messages (see
    /// ``ChatSettings/messagesKeptPerConversation``); older ones are let go of at once.
    case messagesKeptChanged(messagesPerConversation: Int)
}

/// That `person` has read `conversation` through message `through`.
public struct ReadMark: Codable, Sendable, Equatable {
    /// The conversation.
    public let conversation: UUID
    /// Who read it.
    public let person: UUID
    /// The number of the last message read.
    public let through: Int

    /// Creates a mark.
    public init(conversation: UUID, person: UUID, through: Int) {
        self.conversation = conversation
        self.person = person
        self.through = through
    }
}

/// What Chat announces without keeping it.
public enum ChatTransient: Codable, Sendable, Equatable {
    /// `person` is typing in `conversation`.
    case typing(conversation: UUID, person: UUID)
    /// `person` stopped typing in `conversation` (cleared what they typed).
    case stoppedTyping(conversation: UUID, person: UUID)
}

/// Chat's fixed bounds: on what one message, name or conversation may hold, and on how many people
/// and conversations a server keeps. ``ChatSettings`` holds those that can be changed: how fast a
/// person may send, how many messages a conversation holds, and how much one person or client may
/// create.
public enum ChatLimits {
    /// The most characters in a message.
    public static let maximumMessageLength = 4_000
    /// The most characters in a display name.
    public static let maximumNameLength = 40
    /// The most characters in a conversation's title.
    public static let maximumTitleLength = 80
    /// The most people in one conversation.
    public static let maximumParticipants = 32
    /// The most people a server knows.
    public static let maximumPeople = 10_000
    /// The most conversations a server keeps.
    public static let maximumConversations = 10_000
    /// The most UTF-8 bytes in a message, a name and a title: a character may take many.
    public static let maximumMessageBytes = 16_000
    /// See ``maximumMessageBytes``.
    public static let maximumNameBytes = 160
    /// See ``maximumMessageBytes``.
    public static let maximumTitleBytes = 320
    /// How many messages a conversation shows at first, and how many more each "Load Earlier" loads.
    public static let pageSize = 50
    /// The most messages one conversation screen holds and shows at once: three pages. A window
    /// left open on a busy conversation keeps its newest 150 as new ones arrive (the oldest shown
    /// leave), and one that loads earlier pages keeps the 150 it loaded last (the newest shown
    /// leave, and "Show Newest Messages" brings them back), so that neither the server's memory
    /// per window nor the browser's page grows with the conversation. Three pages are several
    /// screens of scrolling back, while a window's view tree stays small.
    public static let maximumMessagesShown = 3 * pageSize
}
