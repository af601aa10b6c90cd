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
    /// The bounds on what one person or client may do.
    public let settings: ChatSettings
    private let now: @Sendable () -> Date
    /// Each person's sending allowance: what is left of the burst, and when it was counted.
    private let allowances = Mutex<[UUID: Allowance]>([:])
    /// What each client (network address) has created since the server started.
    private let clients = Mutex<[String: ClientCounts]>([:])

    private struct Allowance {
        var messages: Double
        var countedAt: Date
    }

    private struct ClientCounts {
        var people = 0
        var conversations = 0

        subscript(creation: Creation) -> Int {
            get { creation == .person ? people : conversations }
            set { if creation == .person { people = newValue } else { conversations = newValue } }
        }
    }

    /// What a client creates.
    private enum Creation {
        case person, conversation
    }
    /// Read marks waiting to be committed, and who waits for them.
    private let pendingReads = Mutex(PendingReads())

    private struct PendingReads {
        var marks: Set<ReadKey> = []
        /// The newest message each waiting mark was asked for through by
        /// ``requestRead(_:by:through:)``, until its batch is committed.
        var requested: [ReadKey: Int] = [:]
        var waiters: [CheckedContinuation<ChatError?, Never>] = []
        var isFlushing = false
    }

    private struct ReadKey: Hashable {
        let person: UUID
        let conversation: UUID
    }

    /// Opens Chat on `storage` with `settings`; `now` dates messages and paces sending (the
    /// system clock by default).
    ///
    /// If the stored conversations hold a different number of messages than
    /// ``ChatSettings/messagesKeptPerConversation``, this records the new number
    /// (``ChatEvent/messagesKeptChanged(messagesPerConversation:)``), letting go of messages at once
    /// if it is smaller.
    public init(
        storage: any SceneSyncStorage, options: ModelController<ChatState>.Options = .init(), settings: ChatSettings = .init(),
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) async throws {
        controller = try await ModelController(app: Self.app, storage: storage, options: options, logger: logger)
        self.settings = settings
        self.now = now
        let kept = settings.messagesKeptPerConversation
        if await controller.state.messagesKept != kept {
            try await controller.perform(origin: nil) { state in
                state.messagesKept == kept ? [] : [.messagesKeptChanged(messagesPerConversation: kept)]
            }
        }
    }

    /// The committed state and its sequence number.
    public func snapshot() async -> ModelController<ChatState>.Snapshot {
        await controller.snapshot()
    }

    /// Signs `device` in as the person called `name`, who is created if no one has that name yet.
    /// A person signed in on ``ChatSettings/maximumDevicesPerPerson`` devices already is signed
    /// out of the one signed in longest ago. `client` is who asks, such as the window's network
    /// address (``ConnectionOptions/client``); it may create at most
    /// ``ChatSettings/maximumPeoplePerClient`` people while the server runs. `nil` (the server
    /// itself) is not counted.
    ///
    /// - Throws: ``ChatError/emptyName``, ``ChatError/nameTooLong(length:limit:)``,
    ///   ``ChatError/tooManyBytes(bytes:limit:)``, ``ChatError/unshowableName(_:)``,
    ///   ``ChatError/nameNotAllowed``, ``ChatError/tooManyPeople(limit:)``,
    ///   ``ChatError/tooManyPeopleFromClient(limit:)``.
    @discardableResult
    public func signIn(name typed: String, device: String, client: String? = nil, origin: SceneSession.ID?) async throws(ChatError) -> Person {
        let name = VisibleText.trimmed(typed)
        guard !name.isEmpty else { throw Self.isBlank(typed) ? .emptyName : .unshowableName(.showsNothing) }
        guard name.count <= ChatLimits.maximumNameLength else { throw .nameTooLong(length: name.count, limit: ChatLimits.maximumNameLength) }
        try Self.checkBytes(name, limit: ChatLimits.maximumNameBytes)
        do { try VisibleText.check(name) } catch { throw .unshowableName(error) }
        guard !name.contains(",") else { throw .nameNotAllowed }
        // Counted before the intent, so that one client's sign-ins at once cannot all pass; given
        // back if the intent created no one.
        let counted = await controller.state.person(named: name) == nil ? client : nil
        if let counted { try count(.person, for: counted, limit: settings.maximumPeoplePerClient) }
        let newcomer = Person(name: name)
        let devicesPerPerson = settings.maximumDevicesPerPerson
        let envelopes: [EventEnvelope<ChatEvent>]
        do {
            envelopes = try await perform(origin: origin) { state throws(ChatError) in
                if let person = state.person(named: name) {
                    guard state.devices[device] != person.id else { return [] }
                    let excess = state.devices(of: person.id).count + 1 - devicesPerPerson
                    return state.devices(of: person.id).prefix(max(0, excess)).map { .signedOut(device: $0) }
                        + [.signedIn(device: device, person: person.id)]
                }
                guard state.people.count < ChatLimits.maximumPeople else { throw .tooManyPeople(limit: ChatLimits.maximumPeople) }
                return [.personJoined(newcomer), .signedIn(device: device, person: newcomer.id)]
            }
        } catch {
            if let counted { uncount(.person, for: counted) }
            throw error
        }
        for envelope in envelopes { if case let .personJoined(person) = envelope.event { return person } }
        if let counted { uncount(.person, for: counted) }
        guard let person = await controller.state.person(on: device) else { throw .notSignedIn }
        return person
    }

    /// Signs `device` out; its windows show the sign-in screen.
    public func signOut(device: String, origin: SceneSession.ID?) async throws(ChatError) {
        try await perform(origin: origin) { state in state.devices[device] == nil ? [] : [.signedOut(device: device)] }
    }

    /// Starts a conversation called `title` between `person` and the people named `names`.
    /// A person may start at most ``ChatSettings/maximumConversationsStartedPerPerson``
    /// conversations; `client`, who asks (see ``signIn(name:device:client:origin:)``), at most
    /// ``ChatSettings/maximumConversationsPerClient`` while the server runs.
    ///
    /// - Throws: ``ChatError/emptyTitle``, ``ChatError/titleTooLong(length:limit:)``,
    ///   ``ChatError/tooManyBytes(bytes:limit:)``, ``ChatError/unshowableTitle(_:)``,
    ///   ``ChatError/unknownParticipant(_:)`` for the first name no one has,
    ///   ``ChatError/noOtherParticipants``, ``ChatError/tooManyParticipants(count:limit:)``,
    ///   ``ChatError/tooManyConversationsStarted(limit:)``, ``ChatError/tooManyConversations(limit:)``,
    ///   ``ChatError/tooManyConversationsFromClient(limit:)``.
    @discardableResult
    public func startConversation(
        title typed: String, with names: [String], by person: UUID, client: String? = nil, origin: SceneSession.ID?
    ) async throws(ChatError) -> Conversation {
        let title = try Self.conversationTitle(typed)
        let names = try Self.participantNames(names)
        let id = UUID()
        let startedAt = now()
        let perPerson = settings.maximumConversationsStartedPerPerson
        if let client { try count(.conversation, for: client, limit: settings.maximumConversationsPerClient) }
        let envelopes: [EventEnvelope<ChatEvent>]
        do {
            envelopes = try await perform(origin: origin) { state throws(ChatError) in
                let participants = try Self.participants(named: names, by: person, in: state)
                guard state.conversationsStarted(by: person) < perPerson else { throw .tooManyConversationsStarted(limit: perPerson) }
                guard state.conversations.count < ChatLimits.maximumConversations else {
                    throw .tooManyConversations(limit: ChatLimits.maximumConversations)
                }
                return [.conversationStarted(Conversation(id: id, title: title, participants: participants, startedAt: startedAt))]
            }
        } catch {
            if let client { uncount(.conversation, for: client) }
            throw error
        }
        guard case let .conversationStarted(conversation)? = envelopes.first?.event else { throw .notSaved(reason: "The conversation was not started.") }
        return conversation
    }

    /// The title ``startConversation(title:with:by:client:origin:)`` gives a conversation typed as
    /// `typed`: without the spaces around it.
    ///
    /// - Throws: What `startConversation` refuses the title for: ``ChatError/emptyTitle``,
    ///   ``ChatError/titleTooLong(length:limit:)``, ``ChatError/tooManyBytes(bytes:limit:)``,
    ///   ``ChatError/unshowableTitle(_:)``.
    public static func conversationTitle(_ typed: String) throws(ChatError) -> String {
        let title = VisibleText.trimmed(typed)
        guard !title.isEmpty else { throw isBlank(typed) ? .emptyTitle : .unshowableTitle(.showsNothing) }
        guard title.count <= ChatLimits.maximumTitleLength else { throw .titleTooLong(length: title.count, limit: ChatLimits.maximumTitleLength) }
        try checkBytes(title, limit: ChatLimits.maximumTitleBytes)
        do { try VisibleText.check(title) } catch { throw .unshowableTitle(error) }
        return title
    }

    /// Checks the people named `names` as ``startConversation(title:with:by:client:origin:)``
    /// would for `person`, against the state as it is now, and starts nothing: a form can say
    /// what is wrong with them beside what is wrong with the title. Starting checks them again.
    ///
    /// - Throws: ``ChatError/tooManyParticipants(count:limit:)``, ``ChatError/notSignedIn``,
    ///   ``ChatError/unknownParticipant(_:)`` for the first name no one has,
    ///   ``ChatError/noOtherParticipants``.
    public func checkParticipants(_ names: [String], by person: UUID) async throws(ChatError) {
        let names = try Self.participantNames(names)
        let state = await controller.state
        _ = try Self.participants(named: names, by: person, in: state)
    }

    /// The names typed, trimmed, without empty ones.
    private static func participantNames(_ typed: [String]) throws(ChatError) -> [String] {
        let names = typed.map { VisibleText.trimmed($0) }.filter { !$0.isEmpty }
        guard names.count < ChatLimits.maximumParticipants else {
            throw .tooManyParticipants(count: names.count + 1, limit: ChatLimits.maximumParticipants)
        }
        return names
    }

    /// `person` and the people named `names` in `state`, each once.
    private static func participants(named names: [String], by person: UUID, in state: ChatState) throws(ChatError) -> [UUID] {
        guard state.people[person] != nil else { throw .notSignedIn }
        var participants = [person]
        for name in names {
            guard let other = state.person(named: name) else { throw .unknownParticipant(name) }
            if !participants.contains(other.id) { participants.append(other.id) }
        }
        guard participants.count > 1 else { throw .noOtherParticipants }
        return participants
    }

    /// Sends `text` to `conversation` as `person`. The text is kept as typed, less the spaces and
    /// empty lines around it. A person may send ``ChatSettings/messageBurst`` messages at once,
    /// then ``ChatSettings/messagesPerSecond``.
    ///
    /// - Throws: ``ChatError/emptyMessage``, ``ChatError/messageTooLong(length:limit:)``,
    ///   ``ChatError/tooManyBytes(bytes:limit:)``, ``ChatError/unshowableMessage(_:)``,
    ///   ``ChatError/sendingTooFast(retryAfterSeconds:)``, ``ChatError/unknownConversation(_:)``,
    ///   ``ChatError/notAParticipant``.
    @discardableResult
    public func send(_ typed: String, in conversation: UUID, from person: UUID, origin: SceneSession.ID?) async throws(ChatError) -> Message {
        let text = VisibleText.trimmed(typed)
        guard !text.isEmpty else { throw Self.isBlank(typed) ? .emptyMessage : .unshowableMessage(.showsNothing) }
        guard text.count <= ChatLimits.maximumMessageLength else {
            throw .messageTooLong(length: text.count, limit: ChatLimits.maximumMessageLength)
        }
        try Self.checkBytes(text, limit: ChatLimits.maximumMessageBytes)
        do { try VisibleText.check(text, allowsLineBreaks: true) } catch { throw .unshowableMessage(error) }
        let sentAt = now()
        try spendAllowance(of: person, at: sentAt)
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
            // Detached: the flush commits for everyone waiting, not as part of the action that started it.
            if startsFlush { Task.detached { await self.flushReads(afterTheTurn: false) } }
        }
        if let result { throw result }
    }

    /// Asks for `conversation` to be marked read by `person` through its newest message, without
    /// waiting, as a window does when the message numbered `number` arrives while the
    /// conversation is on screen.
    ///
    /// Every window of a person that shows the conversation asks at once; a mark asked for
    /// through that message or a later one is not asked for again, so a node commits one mark
    /// for all of them, and no window waits on it. A mark that does not apply (the person is not in
    /// the conversation, or has read it) is dropped when it is committed.
    public nonisolated func requestRead(_ conversation: UUID, by person: UUID, through number: Int) {
        let key = ReadKey(person: person, conversation: conversation)
        let startsFlush = pendingReads.withLock { pending -> Bool in
            // Asked for through this message already, by another window: waiting or committed.
            guard pending.requested[key, default: 0] < number else { return false }
            pending.requested[key] = number
            guard pending.marks.insert(key).inserted else { return false }
            defer { pending.isFlushing = true }
            return !pending.isFlushing
        }
        if startsFlush { Task.detached { await self.flushReads(afterTheTurn: true) } }
    }

    /// Commits the marks waiting, and then those that came meanwhile, until none wait.
    ///
    /// With `afterTheTurn`, the first commit waits for the main actor's turn to end: windows ask
    /// (``requestRead(_:by:through:)``) as a message is handed to each of them, in one turn, and
    /// every reader's mark then goes in one commit (one event to hand to every window again)
    /// rather than the first alone and the rest after. ``markRead(_:by:origin:)``, which a user's
    /// action awaits, does not wait for the turn.
    private func flushReads(afterTheTurn: Bool) async {
        if afterTheTurn { await MainActor.run {} }
        while true {
            let (marks, waiters, requested) = pendingReads.withLock { pending in
                defer { pending.marks = []; pending.waiters = [] }
                if pending.marks.isEmpty { pending.isFlushing = false }
                return (pending.marks, pending.waiters, pending.marks.map { ($0, pending.requested[$0]) })
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
            // Committed or failed, what was asked through these messages may be asked again
            // (a failed mark, by the next window; a committed one is then a no-op), and the
            // record of it does not outlive the batch.
            pendingReads.withLock { pending in
                for (key, number) in requested where number != nil && pending.requested[key] == number {
                    pending.requested[key] = nil
                }
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

    /// Up to `limit` messages of `conversation` before the message numbered `number`, oldest
    /// first: of those held (see ``ChatSettings/messagesKeptPerConversation``).
    public func messages(in conversation: UUID, before number: Int, limit: Int = ChatLimits.pageSize) async -> [Message] {
        await controller.state.messages(in: conversation).page(before: number, limit: limit)
    }

    /// Whether `text` is empty or white space only: left blank, rather than filled with
    /// something that shows nothing.
    private static func isBlank(_ text: String) -> Bool {
        text.allSatisfy(\.isWhitespace)
    }

    private static func checkBytes(_ text: String, limit: Int) throws(ChatError) {
        guard text.utf8.count <= limit else { throw .tooManyBytes(bytes: text.utf8.count, limit: limit) }
    }

    /// Takes one message from `person`'s allowance (a token bucket), or refuses.
    private func spendAllowance(of person: UUID, at date: Date) throws(ChatError) {
        let (burst, rate) = (Double(settings.messageBurst), settings.messagesPerSecond)
        let wait: Double? = allowances.withLock { allowances in
            var allowance = allowances[person] ?? Allowance(messages: burst, countedAt: date)
            // A clock set back gives nothing back, and takes nothing away.
            let elapsed = max(0, date.timeIntervalSince(allowance.countedAt))
            allowance.messages = min(burst, allowance.messages + elapsed * rate)
            allowance.countedAt = max(date, allowance.countedAt)
            defer { allowances[person] = allowance }
            guard allowance.messages >= 1 else { return (1 - allowance.messages) / rate }
            allowance.messages -= 1
            return nil
        }
        if let wait { throw .sendingTooFast(retryAfterSeconds: max(1, Int(wait.rounded(.up)))) }
    }

    /// Counts one more `creation` by `client`, or refuses at `limit`.
    private func count(_ creation: Creation, for client: String, limit: Int) throws(ChatError) {
        let allowed = clients.withLock { clients in
            guard clients[client, default: ClientCounts()][creation] < limit else { return false }
            clients[client, default: ClientCounts()][creation] += 1
            return true
        }
        guard allowed else {
            throw creation == .person ? .tooManyPeopleFromClient(limit: limit) : .tooManyConversationsFromClient(limit: limit)
        }
    }

    /// Gives back a `creation` counted for `client` that did not happen.
    private func uncount(_ creation: Creation, for client: String) {
        clients.withLock { clients in clients[client]?[creation] -= 1 }
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
