public import Foundation
public import SceneSync

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
    /// The display name holds a comma, which separates names.
    case nameNotAllowed
    /// The display name breaks the text policy (see ``VisibleText/check(_:allowsLineBreaks:)``):
    /// it shows nothing, or holds a line break, a control, invisible or private-use character, or
    /// an unclosed direction control.
    case unshowableName(VisibleText.Refusal)
    /// The title breaks the text policy, as ``unshowableName(_:)``.
    case unshowableTitle(VisibleText.Refusal)
    /// The message breaks the text policy, as ``unshowableName(_:)``; line breaks are allowed.
    case unshowableMessage(VisibleText.Refusal)
    /// The person sent more than ``ChatSettings/messageBurst`` messages at once, or more than
    /// ``ChatSettings/messagesPerSecond`` since: the next can go in about `retryAfterSeconds`.
    case sendingTooFast(retryAfterSeconds: Int)
    /// The person has started ``ChatSettings/maximumConversationsStartedPerPerson`` conversations.
    case tooManyConversationsStarted(limit: Int)
    /// The client has created ``ChatSettings/maximumPeoplePerClient`` people since the server started.
    case tooManyPeopleFromClient(limit: Int)
    /// The client has started ``ChatSettings/maximumConversationsPerClient`` conversations since
    /// the server started.
    case tooManyConversationsFromClient(limit: Int)
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
        case .nameNotAllowed: "A name can't contain a comma: commas separate names."
        case let .unshowableName(refusal): Self.sentence(refusal, "A name", "Names")
        case let .unshowableTitle(refusal): Self.sentence(refusal, "A title", "Titles")
        case let .unshowableMessage(refusal): Self.sentence(refusal, "A message", "Messages")
        case let .sendingTooFast(seconds):
            "You are sending messages too fast; wait \(seconds == 1 ? "a second" : "\(seconds) seconds") and send again."
        case let .tooManyConversationsStarted(limit): "You have started \(limit) conversations, as many as one person may."
        case let .tooManyPeopleFromClient(limit): "\(limit) people have signed up from this network address already; sign in with one of their names."
        case let .tooManyConversationsFromClient(limit): "\(limit) conversations have been started from this network address already."
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

    /// What to say of text the policy refused: `one` ("A name") and `many` ("Names") begin it.
    private static func sentence(_ refusal: VisibleText.Refusal, _ one: String, _ many: String) -> String {
        let point = refusal.codePoint.map { String(format: "U+%04X", $0) } ?? ""
        return switch refusal {
        case .showsNothing: "\(one) must show something."
        case .lineBreak: "\(one) must be one line."
        case .controlCharacter: "\(many) can't contain the control character \(point)."
        case .invisibleCharacter: "\(many) can't contain the invisible character \(point)."
        case .privateUseCharacter: "\(many) can't contain the private-use character \(point)."
        case .unpairedDirectionalControl: "\(many) can't contain the direction control \(point) without its end."
        }
    }
}
