public import Foundation
public import SceneSync

/// Chat's whole state: people, who is signed in on which device, conversations, their messages,
/// and how far each person has read each conversation.
///
/// Records: `people/<id>`, `devices/<device>` (the person's id), `conversations/<id>`,
/// `messages/<conversation>/<number>` and `reads/<person>/<conversation>` (the last message read).
public struct ChatState: ModelState {
    public typealias Event = ChatEvent
    public typealias Transient = ChatTransient

    /// Everyone, by key.
    public private(set) var people: [UUID: Person] = [:]
    /// Who each device is signed in as.
    public private(set) var devices: [String: UUID] = [:]
    /// Every conversation, by key.
    public private(set) var conversations: [UUID: Conversation] = [:]
    private var peopleByName: [String: UUID] = [:]
    private var logs: [UUID: MessageLog] = [:]
    /// The number of the last message each person has read, per conversation.
    private var reads: [UUID: [UUID: Int]] = [:]
    /// How many messages each person has not read, in all their conversations, kept as events come.
    private(set) var unreadTotals: [UUID: Int] = [:]
    /// The newest message of all, and its conversation.
    public private(set) var latest: (conversation: UUID, message: Message)?

    public init() {}

    public init(records: RecordSet) throws {
        for (_, person) in try records.decode("people", as: Person.self) { addPerson(person) }
        for (device, person) in try records.decode("devices", as: UUID.self) { devices[device] = person }
        for (key, conversation) in try records.decode("conversations", as: Conversation.self) {
            guard conversation.id.uuidString == key else {
                throw StorageError.corruptRecord(collection: "conversations", key: key, reason: "The record is another conversation's.")
            }
            conversations[conversation.id] = conversation
        }
        var loaded: [UUID: [Message]] = [:]
        for (key, message) in try records.decode("messages", as: Message.self) {
            guard let conversation = UUID(uuidString: String(key.prefix(while: { $0 != "/" }))) else {
                throw StorageError.corruptRecord(collection: "messages", key: key, reason: "The key does not name a conversation.")
            }
            loaded[conversation, default: []].append(message)
        }
        for (conversation, messages) in loaded {
            var log = MessageLog()
            for (index, message) in messages.sorted(by: { $0.number < $1.number }).enumerated() {
                guard message.number == index + 1 else {
                    throw StorageError.corruptRecord(collection: "messages", key: "\(conversation)/\(index + 1)", reason: "The message is missing.")
                }
                log.append(message)
            }
            logs[conversation] = log
        }
        for (key, through) in try records.decode("reads", as: Int.self) {
            let parts = key.split(separator: "/")
            guard parts.count == 2, let person = UUID(uuidString: String(parts[0])), let conversation = UUID(uuidString: String(parts[1])) else {
                throw StorageError.corruptRecord(collection: "reads", key: key, reason: "The key does not name a person and a conversation.")
            }
            reads[person, default: [:]][conversation] = through
        }
        for conversation in conversations.values {
            for person in conversation.participants { unreadTotals[person, default: 0] += unread(person, in: conversation.id) }
            if let last = logs[conversation.id]?.last, last.sentAt >= latest?.message.sentAt ?? .distantPast {
                latest = (conversation.id, last)
            }
        }
    }

    public mutating func apply(_ event: ChatEvent) -> [RecordChange] {
        switch event {
        case let .personJoined(person):
            addPerson(person)
            return [.save(collection: "people", key: person.id.uuidString, value: person)]
        case let .signedIn(device, person):
            devices[device] = person
            return [.save(collection: "devices", key: device, value: person)]
        case let .signedOut(device):
            devices[device] = nil
            return [.delete(collection: "devices", key: device)]
        case let .conversationStarted(conversation):
            conversations[conversation.id] = conversation
            return [.save(collection: "conversations", key: conversation.id.uuidString, value: conversation)]
        case let .messageSent(conversation, message):
            unreadTotals[message.sender, default: 0] -= unread(message.sender, in: conversation)
            for person in conversations[conversation]?.participants ?? [] where person != message.sender {
                unreadTotals[person, default: 0] += 1
            }
            logs[conversation, default: MessageLog()].append(message)
            latest = (conversation, message)
            reads[message.sender, default: [:]][conversation] = message.number
            return [
                .save(collection: "messages", key: Self.messageKey(conversation, message.number), value: message),
                .save(collection: "reads", key: Self.readKey(message.sender, conversation), value: message.number),
            ]
        case let .conversationsRead(marks):
            return marks.map { mark in
                let before = unread(mark.person, in: mark.conversation)
                reads[mark.person, default: [:]][mark.conversation] = mark.through
                unreadTotals[mark.person, default: 0] -= before - unread(mark.person, in: mark.conversation)
                return .save(collection: "reads", key: Self.readKey(mark.person, mark.conversation), value: mark.through)
            }
        }
    }

    // MARK: - Reading

    /// The person with `name`, compared without regard to case or surrounding spaces.
    public func person(named name: String) -> Person? {
        peopleByName[Self.fold(name)].flatMap { people[$0] }
    }

    /// The person `device` is signed in as.
    public func person(on device: String) -> Person? {
        devices[device].flatMap { people[$0] }
    }

    /// The conversations `person` takes part in, the most recently active first.
    public func conversations(for person: UUID) -> [Conversation] {
        conversations.values.filter { $0.participants.contains(person) }
            .sorted { (lastActivity(in: $0.id) ?? .distantPast, $0.id.uuidString) > (lastActivity(in: $1.id) ?? .distantPast, $1.id.uuidString) }
    }

    /// When the conversation last changed: its newest message, or its start.
    public func lastActivity(in conversation: UUID) -> Date? {
        logs[conversation]?.last?.sentAt ?? conversations[conversation]?.startedAt
    }

    /// The conversation's messages.
    public func messages(in conversation: UUID) -> MessageLog {
        logs[conversation] ?? MessageLog()
    }

    /// How many messages the conversation has.
    public func messageCount(in conversation: UUID) -> Int {
        logs[conversation]?.count ?? 0
    }

    /// The number of the last message `person` has read in `conversation`.
    public func readThrough(_ person: UUID, in conversation: UUID) -> Int {
        reads[person]?[conversation] ?? 0
    }

    /// How many messages `person` has not read in `conversation`.
    public func unread(_ person: UUID, in conversation: UUID) -> Int {
        max(0, messageCount(in: conversation) - readThrough(person, in: conversation))
    }

    /// How many messages `person` has not read, in all their conversations.
    public func unread(for person: UUID) -> Int {
        unreadTotals[person] ?? 0
    }

    /// The name of the person `id`, or a stand-in if there is none.
    public func name(of id: UUID) -> String {
        people[id]?.name ?? "Someone"
    }

    // MARK: - Internal

    static func fold(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    private mutating func addPerson(_ person: Person) {
        people[person.id] = person
        peopleByName[Self.fold(person.name)] = person.id
    }

    static func messageKey(_ conversation: UUID, _ number: Int) -> String {
        "\(conversation.uuidString)/\(number)"
    }

    static func readKey(_ person: UUID, _ conversation: UUID) -> String {
        "\(person.uuidString)/\(conversation.uuidString)"
    }
}
