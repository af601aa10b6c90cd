public import Foundation
public import Logging
public import SceneSync
import Synchronization

/// Chat's model controller: people, sign-ins per device, conversations, messages and reads.
///
/// Windows send intents here and draw the ``ChatEvent``s that come back; typing goes out as a
/// ``ChatTransient``, which is announced to every window and never stored.
///
/// ```swift
/// let chat = try await ChatController(storage: storage, logger: logger)
/// let ana = try await chat.signIn(name: "Ana", device: device, origin: scene.session.id)
/// let talk = try await chat.startConversation(title: "Lunch", with: ["Bo"], by: ana.id, origin: nil)
/// try await chat.send("Noodles?", in: talk.id, from: ana.id, origin: scene.session.id)
/// ```
public final class ChatController: Sendable {
    /// The app name that keys Chat's records and log.
    public static let app = "chat"

    /// The underlying model controller.
    public let controller: ModelController<ChatState>
    private let now: @Sendable () -> Date
    /// Read marks waiting to be committed, and who waits for them.
    private let pendingReads = Mutex(PendingReads())

    private struct PendingReads {
        var marks: Set<ReadKey> = []
        var waiters: [CheckedContinuation<ChatError?, Never>] = []
        var isFlushing = false
    }

    private struct ReadKey: Hashable {
        let person: UUID
        let conversation: UUID
    }

    /// Opens Chat on `storage`; `now` dates messages (the system clock by default).
    public init(
        storage: any SceneSyncStorage, options: ModelController<ChatState>.Options = .init(), logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws {
        controller = try await ModelController(app: Self.app, storage: storage, options: options, logger: logger)
        self.now = now
    }

    /// The committed state and its sequence number.
    public func snapshot() async -> ModelController<ChatState>.Snapshot {
        await controller.snapshot()
    }

    /// Signs `device` in as the person called `name`, who is created if no one has that name yet.
    ///
    /// - Throws: ``ChatError/emptyName``, ``ChatError/nameTooLong(length:limit:)``,
    ///   ``ChatError/tooManyPeople(limit:)``.
    @discardableResult
    public func signIn(name: String, device: String, origin: SceneSession.ID?) async throws(ChatError) -> Person {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .emptyName }
        guard name.count <= ChatLimits.maximumNameLength else { throw .nameTooLong(length: name.count, limit: ChatLimits.maximumNameLength) }
        try Self.checkBytes(name, limit: ChatLimits.maximumNameBytes)
        guard !name.unicodeScalars.contains(where: { $0 == "," || Self.isInvisible($0) }) else { throw .nameNotAllowed }
        let newcomer = Person(name: name)
        let envelopes = try await perform(origin: origin) { state throws(ChatError) in
            if let person = state.person(named: name) {
                return state.devices[device] == person.id ? [] : [.signedIn(device: device, person: person.id)]
            }
            guard state.people.count < ChatLimits.maximumPeople else { throw .tooManyPeople(limit: ChatLimits.maximumPeople) }
            return [.personJoined(newcomer), .signedIn(device: device, person: newcomer.id)]
        }
        for envelope in envelopes { if case let .personJoined(person) = envelope.event { return person } }
        guard let person = await controller.state.person(on: device) else { throw .notSignedIn }
        return person
    }

    /// Signs `device` out; its windows show the sign-in screen.
    public func signOut(device: String, origin: SceneSession.ID?) async throws(ChatError) {
        try await perform(origin: origin) { state in state.devices[device] == nil ? [] : [.signedOut(device: device)] }
    }

    /// Starts a conversation called `title` between `person` and the people named `names`.
    ///
    /// - Throws: ``ChatError/emptyTitle``, ``ChatError/titleTooLong(length:limit:)``,
    ///   ``ChatError/unknownParticipant(_:)`` for the first name no one has,
    ///   ``ChatError/noOtherParticipants``, ``ChatError/tooManyParticipants(count:limit:)``,
    ///   ``ChatError/tooManyConversations(limit:)``.
    @discardableResult
    public func startConversation(title: String, with names: [String], by person: UUID, origin: SceneSession.ID?) async throws(ChatError) -> Conversation {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw .emptyTitle }
        guard title.count <= ChatLimits.maximumTitleLength else { throw .titleTooLong(length: title.count, limit: ChatLimits.maximumTitleLength) }
        try Self.checkBytes(title, limit: ChatLimits.maximumTitleBytes)
        let names = names.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        guard names.count < ChatLimits.maximumParticipants else {
            throw .tooManyParticipants(count: names.count + 1, limit: ChatLimits.maximumParticipants)
        }
        let id = UUID()
        let startedAt = now()
        let envelopes = try await perform(origin: origin) { state throws(ChatError) in
            guard state.people[person] != nil else { throw .notSignedIn }
            var participants = [person]
            for name in names {
                guard let other = state.person(named: name) else { throw .unknownParticipant(name) }
                if !participants.contains(other.id) { participants.append(other.id) }
            }
            guard participants.count > 1 else { throw .noOtherParticipants }
            guard state.conversations.count < ChatLimits.maximumConversations else {
                throw .tooManyConversations(limit: ChatLimits.maximumConversations)
            }
            return [.conversationStarted(Conversation(id: id, title: title, participants: participants, startedAt: startedAt))]
        }
        guard case let .conversationStarted(conversation)? = envelopes.first?.event else { throw .notSaved(reason: "The conversation was not started.") }
        return conversation
    }

    /// Sends `text` to `conversation` as `person`. The text is kept as typed, less the spaces and
    /// empty lines around it.
    ///
    /// - Throws: ``ChatError/emptyMessage``, ``ChatError/messageTooLong(length:limit:)``,
    ///   ``ChatError/unknownConversation(_:)``, ``ChatError/notAParticipant``.
    @discardableResult
    public func send(_ text: String, in conversation: UUID, from person: UUID, origin: SceneSession.ID?) async throws(ChatError) -> Message {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .emptyMessage }
        guard text.count <= ChatLimits.maximumMessageLength else {
            throw .messageTooLong(length: text.count, limit: ChatLimits.maximumMessageLength)
        }
        try Self.checkBytes(text, limit: ChatLimits.maximumMessageBytes)
        let sentAt = now()
        let envelopes = try await perform(origin: origin) { state throws(ChatError) in
            try Self.check(person, in: conversation, state)
            return [.messageSent(conversation: conversation, message: Message(
                number: state.messageCount(in: conversation) + 1, sender: person, text: text, sentAt: sentAt))]
        }
        guard case let .messageSent(_, message)? = envelopes.first?.event else { throw .notSaved(reason: "The message was not sent.") }
        return message
    }

    /// Marks `conversation` read by `person` through its newest message; nothing happens if it is.
    ///
    /// When a message arrives, the windows of everyone with the conversation on screen ask at
    /// once. Marks asked for while one is being committed are committed together, as one
    /// ``ChatEvent/conversationsRead(_:)``, so that every window is woken by one event rather than
    /// one per person.
    ///
    /// - Throws: ``ChatError/unknownConversation(_:)``, ``ChatError/notAParticipant``, or
    ///   ``ChatError/notSaved(reason:)``.
    public func markRead(_ conversation: UUID, by person: UUID, origin: SceneSession.ID?) async throws(ChatError) {
        let state = await controller.state
        try Self.check(person, in: conversation, state)
        guard state.readThrough(person, in: conversation) < state.messageCount(in: conversation) else { return }
        let key = ReadKey(person: person, conversation: conversation)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<ChatError?, Never>) in
            let startsFlush = pendingReads.withLock { pending in
                pending.marks.insert(key)
                pending.waiters.append(continuation)
                defer { pending.isFlushing = true }
                return !pending.isFlushing
            }
            if startsFlush { Task { await self.flushReads() } }
        }
        if let result { throw result }
    }

    /// Commits the marks waiting, and then those that came meanwhile, until none wait.
    private func flushReads() async {
        while true {
            let (marks, waiters) = pendingReads.withLock { pending in
                defer { pending.marks = []; pending.waiters = [] }
                if pending.marks.isEmpty { pending.isFlushing = false }
                return (pending.marks, pending.waiters)
            }
            guard !marks.isEmpty else { return }
            var failure: ChatError?
            do {
                try await perform(origin: nil) { state in
                    let due = marks.compactMap { key -> ReadMark? in
                        let count = state.messageCount(in: key.conversation)
                        guard state.conversations[key.conversation]?.participants.contains(key.person) == true,
                              state.readThrough(key.person, in: key.conversation) < count else { return nil }
                        return ReadMark(conversation: key.conversation, person: key.person, through: count)
                    }
                    return due.isEmpty ? [] : [.conversationsRead(due.sorted { ($0.person.uuidString, $0.conversation.uuidString) < ($1.person.uuidString, $1.conversation.uuidString) })]
                }
            } catch {
                failure = error
            }
            for waiter in waiters { waiter.resume(returning: failure) }
        }
    }

    /// Tells the conversation's windows that `person` is typing, or has stopped. Nothing is stored.
    public func setTyping(_ typing: Bool, in conversation: UUID, by person: UUID, origin: SceneSession.ID?) async throws(ChatError) {
        do {
            try await controller.announce(origin: origin) { state in
                try Self.check(person, in: conversation, state)
                return [typing ? .typing(conversation: conversation, person: person) : .stoppedTyping(conversation: conversation, person: person)]
            }
        } catch let error as ChatError {
            throw error
        } catch {
            throw .notSaved(reason: "\(error)")
        }
    }

    /// Up to `limit` messages of `conversation` before the message numbered `number`, oldest first.
    public func messages(in conversation: UUID, before number: Int, limit: Int = ChatLimits.pageSize) async -> [Message] {
        await controller.state.messages(in: conversation).page(before: number, limit: limit)
    }

    private static func checkBytes(_ text: String, limit: Int) throws(ChatError) {
        guard text.utf8.count <= limit else { throw .tooManyBytes(bytes: text.utf8.count, limit: limit) }
    }

    /// Line breaks, controls, and characters that show nothing (format characters such as joiners).
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate: true
        default: false
        }
    }

    private static func check(_ person: UUID, in conversation: UUID, _ state: ChatState) throws(ChatError) {
        guard let found = state.conversations[conversation] else { throw .unknownConversation(conversation) }
        guard found.participants.contains(person) else { throw .notAParticipant }
    }

    @discardableResult
    private func perform(
        origin: SceneSession.ID?,
        _ decide: @escaping @Sendable (ChatState) throws(ChatError) -> [ChatEvent]
    ) async throws(ChatError) -> [EventEnvelope<ChatEvent>] {
        do {
            return try await controller.perform(origin: origin) { state in try decide(state) }
        } catch let error as ChatError {
            throw error
        } catch {
            throw .notSaved(reason: "\(error)")
        }
    }
}
