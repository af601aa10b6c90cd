public import Foundation
public import SceneSync

/// Chat's whole state: people, who is signed in on which device, conversations, their messages,
/// and how far each person has read each conversation.
///
/// Records: `people/<id>`, `devices/<device>` (the person's id and the order of sign-ins),
/// `conversations/<id>`, `messages/<conversation>/<number>` (every message),
/// `reads/<person>/<conversation>` (the last message read) and `settings/messagesKept`.
///
/// In memory each conversation holds only its newest ``messagesKept`` messages, so that memory
/// does not grow with a conversation's history; every message stays in the records, and a window
/// larger after a restart holds more of them again.
public struct ChatState: ModelState {
    public typealias Event = ChatEvent
    public typealias Transient = ChatTransient

    /// Everyone, by key.
    public private(set) var people: [UUID: Person] = [:]
    /// Who each device is signed in as.
    public private(set) var devices: [String: UUID] = [:]
    /// Every conversation, by key.
    public private(set) var conversations: [UUID: Conversation] = [:]
    /// How many of its newest messages each conversation holds.
    public private(set) var messagesKept = ChatSettings.defaultMessagesKeptPerConversation
    /// The order of each device's sign-in (higher is later), to sign out the oldest first.
    private var deviceSignIns: [String: Int] = [:]
    /// The devices signed in as each person.
    private var devicesOfPerson: [UUID: Set<String>] = [:]
    private var nextSignIn = 1
    /// How many conversations each person has started.
    private var startedCounts: [UUID: Int] = [:]
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
        if let kept = try records.decode("settings", as: Int.self)["messagesKept"] { messagesKept = max(1, kept) }
        for (_, person) in try records.decode("people", as: Person.self) { addPerson(person) }
        for (device, record) in try records.decode("devices", as: DeviceRecord.self) {
            signIn(device, as: record.person, order: record.order)
        }
        for (key, conversation) in try records.decode("conversations", as: Conversation.self) {
            guard conversation.id.keyString == key else {
                throw StorageError.corruptRecord(collection: "conversations", key: key, reason: "The record is another conversation's.")
            }
            conversations[conversation.id] = conversation
            if let starter = conversation.participants.first { startedCounts[starter, default: 0] += 1 }
        }
        var loaded: [UUID: [Message]] = [:]
        for (key, message) in try records.decode("messages", as: Message.self) {
            guard let conversation = UUID(uuidString: String(key.prefix(while: { $0 != "/" }))) else {
                throw StorageError.corruptRecord(collection: "messages", key: key, reason: "The key does not name a conversation.")
            }
            loaded[conversation, default: []].append(message)
        }
        for (conversation, messages) in loaded {
            // The records hold the newest messages, without gaps: older ones were let go of.
            let sorted = messages.sorted(by: { $0.number < $1.number })
            let first = sorted[0].number
            var log = MessageLog(startingAt: first)
            for (index, message) in sorted.enumerated() {
                guard message.number == first + index else {
                    throw StorageError.corruptRecord(collection: "messages", key: "\(conversation)/\(first + index)", reason: "The message is missing.")
                }
                log.append(message)
            }
            log.dropOldest(keeping: messagesKept)
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
            return [.save(collection: "people", key: person.id.keyString, value: person)]
        case let .signedIn(device, person):
            let order = nextSignIn
            signIn(device, as: person, order: order)
            return [.save(collection: "devices", key: device, value: DeviceRecord(person: person, order: order))]
        case let .signedOut(device):
            signOut(device)
            return [.delete(collection: "devices", key: device)]
        case let .conversationStarted(conversation):
            conversations[conversation.id] = conversation
            if let starter = conversation.participants.first { startedCounts[starter, default: 0] += 1 }
            return [.save(collection: "conversations", key: conversation.id.keyString, value: conversation)]
        case let .messageSent(conversation, message):
            unreadTotals[message.sender, default: 0] -= unread(message.sender, in: conversation)
            for person in conversations[conversation]?.participants ?? [] where person != message.sender {
                unreadTotals[person, default: 0] += 1
            }
            logs[conversation, default: MessageLog()].append(message)
            logs[conversation]?.dropOldest(keeping: messagesKept)
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
        case let .messagesKeptChanged(kept):
            messagesKept = max(1, kept)
            for conversation in logs.keys { logs[conversation]?.dropOldest(keeping: messagesKept) }
            return [.save(collection: "settings", key: "messagesKept", value: messagesKept)]
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
            .sorted { (lastActivity(in: $0.id) ?? .distantPast, $0.id.keyString) > (lastActivity(in: $1.id) ?? .distantPast, $1.id.keyString) }
    }

    /// When the conversation last changed: its newest message, or its start.
    public func lastActivity(in conversation: UUID) -> Date? {
        logs[conversation]?.last?.sentAt ?? conversations[conversation]?.startedAt
    }

    /// The conversation's messages: its newest ``messagesKept``.
    public func messages(in conversation: UUID) -> MessageLog {
        logs[conversation] ?? MessageLog()
    }

    /// How many messages the conversation has had: the number of its newest, held or not.
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

    /// The devices signed in as `person`, the one signed in longest ago first.
    public func devices(of person: UUID) -> [String] {
        (devicesOfPerson[person] ?? []).sorted { (deviceSignIns[$0] ?? 0, $0) < (deviceSignIns[$1] ?? 0, $1) }
    }

    /// How many conversations `person` has started.
    public func conversationsStarted(by person: UUID) -> Int {
        startedCounts[person] ?? 0
    }

    /// The name of the person `id`, or a stand-in if there is none.
    public func name(of id: UUID) -> String {
        people[id]?.name ?? "Someone"
    }

    // MARK: - Internal

    static func fold(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    private mutating func signIn(_ device: String, as person: UUID, order: Int) {
        signOut(device)
        devices[device] = person
        deviceSignIns[device] = order
        devicesOfPerson[person, default: []].insert(device)
        nextSignIn = max(nextSignIn, order + 1)
    }

    private mutating func signOut(_ device: String) {
        guard let person = devices.removeValue(forKey: device) else { return }
        deviceSignIns[device] = nil
        devicesOfPerson[person]?.remove(device)
        if devicesOfPerson[person]?.isEmpty == true { devicesOfPerson[person] = nil }
    }

    private mutating func addPerson(_ person: Person) {
        people[person.id] = person
        peopleByName[Self.fold(person.name)] = person.id
    }

    static func messageKey(_ conversation: UUID, _ number: Int) -> String {
        "\(conversation.keyString)/\(number)"
    }

    static func readKey(_ person: UUID, _ conversation: UUID) -> String {
        "\(person.keyString)/\(conversation.keyString)"
    }
}

/// A signed-in device's record: who it is signed in as, and when among the sign-ins. Records
/// written before sign-ins were ordered hold the person's id alone, and come first.
struct DeviceRecord: Codable, Sendable {
    let person: UUID
    let order: Int

    init(person: UUID, order: Int) {
        self.person = person
        self.order = order
    }

    private enum CodingKeys: String, CodingKey { case person, order }

    init(from decoder: any Decoder) throws {
        if let person = try? decoder.singleValueContainer().decode(UUID.self) {
            self.init(person: person, order: 0)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(person: try container.decode(UUID.self, forKey: .person), order: try container.decode(Int.self, forKey: .order))
    }
}
