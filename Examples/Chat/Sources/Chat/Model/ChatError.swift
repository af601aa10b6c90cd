public import Foundation

/// Why Chat refused something; each says so in words a window can show.
public enum ChatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message is empty or only spaces.
    case emptyMessage
    /// The message is longer than ``ChatLimits/maximumMessageLength``.
    case messageTooLong(length: Int, limit: Int)
    /// There is no conversation with this key.
    case unknownConversation(UUID)
    /// No one goes by this name.
    case unknownParticipant(String)
    /// The person does not take part in the conversation.
    case notAParticipant
    /// The window's device is not signed in.
    case notSignedIn
    /// The display name is empty.
    case emptyName
    /// The display name is longer than ``ChatLimits/maximumNameLength``.
    case nameTooLong(length: Int, limit: Int)
    /// The display name holds a comma (which separates names), a line break or another invisible
    /// or control character.
    case nameNotAllowed
    /// The text takes more bytes than its limit allows, however few characters it shows.
    case tooManyBytes(bytes: Int, limit: Int)
    /// The conversation's title is empty.
    case emptyTitle
    /// The title is longer than ``ChatLimits/maximumTitleLength``.
    case titleTooLong(length: Int, limit: Int)
    /// A conversation needs someone besides the one who starts it.
    case noOtherParticipants
    /// More people than ``ChatLimits/maximumParticipants``.
    case tooManyParticipants(count: Int, limit: Int)
    /// The server knows ``ChatLimits/maximumPeople`` people already.
    case tooManyPeople(limit: Int)
    /// The server keeps ``ChatLimits/maximumConversations`` conversations already.
    case tooManyConversations(limit: Int)
    /// The change could not be saved.
    case notSaved(reason: String)

    public var description: String {
        switch self {
        case .emptyMessage: "Type a message first."
        case let .messageTooLong(length, limit): "This message is \(length) characters long; at most \(limit) can be sent."
        case .unknownConversation: "This conversation does not exist."
        case let .unknownParticipant(name): "No one here is called “\(name)”."
        case .notAParticipant: "You are not in this conversation."
        case .notSignedIn: "Sign in first."
        case .emptyName: "Enter your name."
        case let .nameTooLong(length, limit): "This name is \(length) characters long; at most \(limit) are allowed."
        case .nameNotAllowed: "A name cannot hold commas, line breaks or invisible characters."
        case let .tooManyBytes(bytes, limit): "This text takes \(bytes) bytes; at most \(limit) are allowed."
        case .emptyTitle: "Give the conversation a title."
        case let .titleTooLong(length, limit): "This title is \(length) characters long; at most \(limit) are allowed."
        case .noOtherParticipants: "Add at least one other person."
        case let .tooManyParticipants(count, limit): "\(count) people were named; a conversation takes at most \(limit)."
        case let .tooManyPeople(limit): "This server already knows \(limit) people."
        case let .tooManyConversations(limit): "This server already keeps \(limit) conversations."
        case let .notSaved(reason): "The change could not be saved: \(reason)"
        }
    }
}
