import Chat
import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import Synchronization
import Testing

/// What one person or one client can make Chat keep or do: how fast a person sends, how many
/// messages a conversation holds (in memory, in the records, after a restart), how many devices a
/// person is signed in on, how many conversations a person starts, and how many people and
/// conversations one client creates.
struct ChatBoundsTests {
    let device = "0123456789abcdef0123456789abcdef"
    let otherDevice = "fedcba9876543210fedcba9876543210"

    /// A clock the test moves by hand.
    final class Clock: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
        var now: Date { date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    func open(_ storage: any SceneSyncStorage, _ settings: ChatSettings = .init(), clock: Clock? = nil) async throws -> ChatController {
        if let clock {
            return try await ChatController(storage: storage, settings: settings, logger: Logger(label: "test"), now: { clock.now })
        }
        return try await ChatController(storage: storage, settings: settings, logger: Logger(label: "test"))
    }

    /// Ana and Bo, signed in on two devices, with a conversation between them.
    func twoPeople(_ chat: ChatController) async throws -> (Person, Person, Conversation) {
        let ana = try await chat.signIn(name: "Ana", device: device, origin: nil)
        let bo = try await chat.signIn(name: "Bo", device: otherDevice, origin: nil)
        let talk = try await chat.startConversation(title: "Lunch", with: ["Bo"], by: ana.id, origin: nil)
        return (ana, bo, talk)
    }

    /// Settings that let a test send as fast as it likes, with `kept` messages per conversation.
    static func unpaced(keeping kept: Int = ChatSettings.defaultMessagesKeptPerConversation) -> ChatSettings {
        ChatSettings(messageBurst: 100_000, messagesPerSecond: 100_000, messagesKeptPerConversation: kept)
    }

    /// The messages whose records are stored, by number.
    func storedMessageNumbers(_ storage: any SceneSyncStorage) async throws -> [Int] {
        try await storage.loadModel(app: ChatController.app).records.decode("messages", as: Message.self).values.map(\.number).sorted()
    }

    // MARK: - Sending pace

    @Test func theDefaultsLetAPersonTypeFreely() {
        let settings = ChatSettings()
        #expect(settings.messageBurst == 150 && settings.messagesPerSecond == 2)
        #expect(settings.messagesKeptPerConversation == 500 && settings.maximumDevicesPerPerson == 8)
        #expect(settings.maximumConversationsStartedPerPerson == 100)
        #expect(settings.maximumPeoplePerClient == 20 && settings.maximumConversationsPerClient == 200)
    }

    @Test func aPersonSendingFasterThanTheBurstAndRateIsRefusedUntilTheAllowanceComesBack() async throws {
        let clock = Clock()
        let chat = try await open(try SQLiteStorage.inMemory(), ChatSettings(messageBurst: 3, messagesPerSecond: 1), clock: clock)
        let (ana, bo, talk) = try await twoPeople(chat)
        for text in ["one", "two", "three"] { try await chat.send(text, in: talk.id, from: ana.id, origin: nil) }
        let before = await chat.controller.lastSequence
        await #expect(throws: ChatError.sendingTooFast(retryAfterSeconds: 1)) { try await chat.send("four", in: talk.id, from: ana.id, origin: nil) }
        #expect(ChatError.sendingTooFast(retryAfterSeconds: 1).description == "You are sending messages too fast; wait a second and send again.")
        try await chat.send("Bo's own allowance", in: talk.id, from: bo.id, origin: nil)
        clock.advance(0.5)
        await #expect(throws: ChatError.sendingTooFast(retryAfterSeconds: 1)) { try await chat.send("four", in: talk.id, from: ana.id, origin: nil) }
        clock.advance(0.5)
        try await chat.send("four", in: talk.id, from: ana.id, origin: nil)
        await #expect(throws: ChatError.sendingTooFast(retryAfterSeconds: 1)) { try await chat.send("five", in: talk.id, from: ana.id, origin: nil) }
        // Away for a long time, the allowance is the burst again, no more.
        clock.advance(3_600)
        for text in ["five", "six", "seven"] { try await chat.send(text, in: talk.id, from: ana.id, origin: nil) }
        await #expect(throws: ChatError.sendingTooFast(retryAfterSeconds: 1)) { try await chat.send("eight", in: talk.id, from: ana.id, origin: nil) }
        #expect(await chat.controller.lastSequence == before + 5, "Bo's message, then four, five, six and seven")
        #expect(await chat.controller.state.messages(in: talk.id).page(before: nil, limit: 10).map(\.text)
            == ["one", "two", "three", "Bo's own allowance", "four", "five", "six", "seven"])
    }

    @Test func aRefusedMessageSpendsNothing() async throws {
        let clock = Clock()
        let chat = try await open(try SQLiteStorage.inMemory(), ChatSettings(messageBurst: 1, messagesPerSecond: 1), clock: clock)
        let (ana, _, talk) = try await twoPeople(chat)
        await #expect(throws: ChatError.emptyMessage) { try await chat.send("  ", in: talk.id, from: ana.id, origin: nil) }
        await #expect(throws: ChatError.unshowableMessage(.showsNothing)) { try await chat.send("\u{2800}", in: talk.id, from: ana.id, origin: nil) }
        try await chat.send("Hi", in: talk.id, from: ana.id, origin: nil)
    }

    // MARK: - Messages held

    @Test func aConversationHoldsItsNewestMessagesInMemoryAndInItsRecordsAcrossRestarts() async throws {
        let path = TemporaryDirectory().path("chat.sqlite")
        var storage = try SQLiteStorage(path: path)
        var chat = try await open(storage, Self.unpaced(keeping: 5))
        let (ana, bo, talk) = try await twoPeople(chat)
        for number in 1...12 { try await chat.send("m\(number)", in: talk.id, from: ana.id, origin: nil) }
        var state = await chat.controller.state
        var log = state.messages(in: talk.id)
        #expect(log.keptCount == 5 && log.firstNumber == 8 && log.count == 12 && state.messageCount(in: talk.id) == 12)
        #expect(log.page(before: nil, limit: 50).map(\.text) == (8...12).map { "m\($0)" })
        #expect(state.unread(bo.id, in: talk.id) == 12 && state.unread(for: bo.id) == 12, "unread counts every message, held or not")
        #expect(try await storedMessageNumbers(storage) == Array(1...12), "every message stays in the records")
        await chat.controller.close()

        // Loaded again, the state holds what it held, and goes on from there.
        storage = try SQLiteStorage(path: path)
        chat = try await open(storage, Self.unpaced(keeping: 5))
        state = await chat.controller.state
        log = state.messages(in: talk.id)
        #expect(log.keptCount == 5 && log.firstNumber == 8 && state.messageCount(in: talk.id) == 12)
        #expect(state.unread(bo.id, in: talk.id) == 12 && state.latest?.message.text == "m12")
        let next = try await chat.send("m13", in: talk.id, from: ana.id, origin: nil)
        #expect(next.number == 13)
        #expect(await chat.controller.state.messages(in: talk.id).page(before: nil, limit: 50).map(\.number) == Array(9...13))
        #expect(try await storedMessageNumbers(storage) == Array(1...13))
        await chat.controller.close()

        // A larger window holds more of the stored messages again; a smaller one lets go at once.
        storage = try SQLiteStorage(path: path)
        chat = try await open(storage, Self.unpaced(keeping: 500))
        // The state was loaded under the old window; the launch after the one that changed it
        // loads the new one.
        #expect(await chat.controller.state.messages(in: talk.id).keptCount == 5)
        await chat.controller.close()
        storage = try SQLiteStorage(path: path)
        chat = try await open(storage, Self.unpaced(keeping: 500))
        #expect(await chat.controller.state.messages(in: talk.id).keptCount == 13)
        await chat.controller.close()
        storage = try SQLiteStorage(path: path)
        chat = try await open(storage, Self.unpaced(keeping: 3))
        #expect(await chat.controller.state.messages(in: talk.id).page(before: nil, limit: 50).map(\.number) == Array(11...13))
        #expect(try await storedMessageNumbers(storage) == Array(1...13))

        // Every message is still in the event log, and replaying it holds no more than the window.
        let events = try await storage.events(app: ChatController.app, after: 0, limit: 1_000)
        var replayed = ChatState()
        var sent = 0
        for stored in events {
            let event = try JSONDecoder().decode(ChatEvent.self, from: stored.payload)
            if case .messageSent = event { sent += 1 }
            _ = replayed.apply(event)
        }
        #expect(sent == 13)
        #expect(replayed.messages(in: talk.id).page(before: nil, limit: 50).map(\.number) == Array(11...13))
        #expect(replayed.messageCount(in: talk.id) == 13 && replayed.unread(bo.id, in: talk.id) == 13)
    }

    @Test func recordsBeyondTheWindowAreLetGoOfInMemoryAndKeptInStorage() throws {
        let conversation = UUID()
        let (ana, bo) = (Person(name: "Ana"), Person(name: "Bo"))
        let encoder = JSONEncoder()
        var messages: [String: Data] = [:]
        for number in 1...510 {
            messages["\(conversation.uuidString)/\(number)"] = try encoder.encode(Message(number: number, sender: ana.id, text: "m\(number)", sentAt: Date()))
        }
        // As stored before conversations were bounded: every message, and a device's person alone.
        let records = RecordSet(collections: [
            "people": [ana.id.uuidString: try encoder.encode(ana), bo.id.uuidString: try encoder.encode(bo)],
            "devices": [device: try encoder.encode(ana.id)],
            "conversations": [conversation.uuidString: try encoder.encode(Conversation(id: conversation, title: "Old", participants: [ana.id, bo.id], startedAt: Date()))],
            "messages": messages,
        ])
        var state = try ChatState(records: records)
        #expect(state.messages(in: conversation).keptCount == 500 && state.messages(in: conversation).firstNumber == 11)
        #expect(state.messageCount(in: conversation) == 510 && state.person(on: device) == ana)
        let changes = state.apply(.messageSent(conversation: conversation, message: Message(number: 511, sender: bo.id, text: "new", sentAt: Date())))
        let deleted = changes.compactMap { change -> Int? in
            guard case let .delete("messages", key) = change else { return nil }
            return Int(key.split(separator: "/").last ?? "")
        }
        #expect(deleted.isEmpty, "no message is deleted from the records: \(deleted)")
        #expect(state.messages(in: conversation).firstNumber == 12)
    }

    @Test func aLogLetsGoOfItsOldestMessagesAcrossChunks() {
        var log = MessageLog()
        let sender = UUID()
        for number in 1...600 { log.append(Message(number: number, sender: sender, text: "\(number)", sentAt: Date())) }
        #expect(log.dropOldest(keeping: 700) == nil)
        #expect(log.dropOldest(keeping: 300) == 1...300)
        #expect(log.count == 600 && log.keptCount == 300 && log.firstNumber == 301)
        #expect(log[300].number == 301 && log[511].number == 512 && log[599].number == 600)
        #expect(log.page(before: nil, limit: 50).map(\.number) == Array(551...600))
        #expect(log.page(before: 320, limit: 50).map(\.number) == Array(301...319))
        #expect(log.page(before: 301, limit: 50).isEmpty && log.messages(in: 0..<310).map(\.number) == Array(301...310))
        for number in 601...1_000 {
            log.append(Message(number: number, sender: sender, text: "\(number)", sentAt: Date()))
            log.dropOldest(keeping: 300)
        }
        #expect(log.keptCount == 300 && log.firstNumber == 701)
        #expect(log.messages(in: 0..<1_000).map(\.number) == Array(701...1_000))
        var late = MessageLog(startingAt: 700)
        for number in 700...800 { late.append(Message(number: number, sender: sender, text: "\(number)", sentAt: Date())) }
        #expect(late.count == 800 && late.firstNumber == 700 && late[767].number == 768 && late[768].number == 769)
    }

    // MARK: - What one person creates

    @Test func signingInOnOneDeviceTooManySignsOutTheOneSignedInLongestAgoEvenAfterARestart() async throws {
        let path = TemporaryDirectory().path("chat.sqlite")
        let settings = ChatSettings(maximumDevicesPerPerson: 2)
        var chat = try await open(try SQLiteStorage(path: path), settings)
        let devices = (1...4).map { String(format: "%032x", $0) }
        let ana = try await chat.signIn(name: "Ana", device: devices[0], origin: nil)
        try await chat.signIn(name: "ana", device: devices[1], origin: nil)
        try await chat.signIn(name: "Ana", device: devices[0], origin: nil)
        #expect(await chat.controller.state.devices(of: ana.id) == [devices[0], devices[1]], "signing in again where signed in changes nothing")
        try await chat.signIn(name: "Ana", device: devices[2], origin: nil)
        var state = await chat.controller.state
        #expect(state.devices(of: ana.id) == [devices[1], devices[2]] && state.person(on: devices[0]) == nil)
        await chat.controller.close()

        chat = try await open(try SQLiteStorage(path: path), settings)
        try await chat.signIn(name: "Ana", device: devices[3], origin: nil)
        state = await chat.controller.state
        #expect(state.devices(of: ana.id) == [devices[2], devices[3]] && state.person(on: devices[1]) == nil)
        #expect(state.devices.count == 2)
    }

    @Test func aPersonStartsAtMostSoManyConversationsEvenAfterARestart() async throws {
        let path = TemporaryDirectory().path("chat.sqlite")
        let settings = ChatSettings(maximumConversationsStartedPerPerson: 2)
        var chat = try await open(try SQLiteStorage(path: path), settings)
        let (ana, bo, _) = try await twoPeople(chat)
        try await chat.startConversation(title: "Dinner", with: ["Bo"], by: ana.id, origin: nil)
        let before = await chat.controller.lastSequence
        await #expect(throws: ChatError.tooManyConversationsStarted(limit: 2)) {
            try await chat.startConversation(title: "Breakfast", with: ["Bo"], by: ana.id, origin: nil)
        }
        #expect(await chat.controller.lastSequence == before)
        try await chat.startConversation(title: "Bo's", with: ["Ana"], by: bo.id, origin: nil)
        await chat.controller.close()

        chat = try await open(try SQLiteStorage(path: path), settings)
        #expect(await chat.controller.state.conversationsStarted(by: ana.id) == 2)
        await #expect(throws: ChatError.tooManyConversationsStarted(limit: 2)) {
            try await chat.startConversation(title: "Breakfast", with: ["Bo"], by: ana.id, origin: nil)
        }
    }

    // MARK: - What one client creates

    @Test func aClientCreatesAtMostSoManyPeopleAndMaySignInAsThoseThereAre() async throws {
        let chat = try await open(try SQLiteStorage.inMemory(), ChatSettings(maximumPeoplePerClient: 2))
        let client = "192.0.2.1"
        try await chat.signIn(name: "Ana", device: device, client: client, origin: nil)
        await #expect(throws: ChatError.unshowableName(.showsNothing)) {
            try await chat.signIn(name: "\u{3164}", device: device, client: client, origin: nil)
        }
        try await chat.signIn(name: "Bo", device: device, client: client, origin: nil)
        try await chat.signIn(name: "ANA", device: otherDevice, client: client, origin: nil)
        let before = await chat.controller.lastSequence
        await #expect(throws: ChatError.tooManyPeopleFromClient(limit: 2)) {
            try await chat.signIn(name: "Cy", device: device, client: client, origin: nil)
        }
        #expect(await chat.controller.lastSequence == before)
        #expect(await chat.controller.state.people.count == 2)
        try await chat.signIn(name: "Cy", device: device, client: "192.0.2.2", origin: nil)
        try await chat.signIn(name: "Di", device: device, origin: nil)
        #expect(await chat.controller.state.people.count == 4)
    }

    @Test func aClientStartsAtMostSoManyConversationsAndRefusedOnesDoNotCount() async throws {
        let chat = try await open(try SQLiteStorage.inMemory(), ChatSettings(maximumConversationsPerClient: 2))
        let (ana, bo, _) = try await twoPeople(chat)
        let client = "2001:db8::1"
        await #expect(throws: ChatError.unknownParticipant("Zed")) {
            try await chat.startConversation(title: "Nobody", with: ["Zed"], by: ana.id, client: client, origin: nil)
        }
        try await chat.startConversation(title: "One", with: ["Bo"], by: ana.id, client: client, origin: nil)
        try await chat.startConversation(title: "Two", with: ["Ana"], by: bo.id, client: client, origin: nil)
        await #expect(throws: ChatError.tooManyConversationsFromClient(limit: 2)) {
            try await chat.startConversation(title: "Three", with: ["Bo"], by: ana.id, client: client, origin: nil)
        }
        try await chat.startConversation(title: "Three", with: ["Bo"], by: ana.id, client: "2001:db8::2", origin: nil)
        #expect(await chat.controller.state.conversations.count == 4)
    }

    // MARK: - Text that shows nothing, or more than it says

    @Test(arguments: [
        ("\u{2800}", VisibleText.Refusal.showsNothing, "A name must show something."),
        ("\u{3164}", .showsNothing, "A name must show something."),
        ("\u{301}\u{302}", .showsNothing, "A name must show something."),
        ("An\u{1B}[2Ja", .controlCharacter(0x1B), "Names can't contain the control character U+001B."),
        ("Ana\nBo", .lineBreak(0x0A), "A name must be one line."),
        ("A\u{200B}na", .invisibleCharacter(0x200B), "Names can't contain the invisible character U+200B."),
        ("Ana\u{E000}", .privateUseCharacter(0xE000), "Names can't contain the private-use character U+E000."),
        ("Ana\u{202E}oB", .unpairedDirectionalControl(0x202E), "Names can't contain the direction control U+202E without its end."),
    ])
    func namesThatShowNothingOrHideSomethingAreRefused(name: String, refusal: VisibleText.Refusal, says: String) async throws {
        let chat = try await open(try SQLiteStorage.inMemory())
        await #expect(throws: ChatError.unshowableName(refusal)) { try await chat.signIn(name: name, device: device, origin: nil) }
        #expect(ChatError.unshowableName(refusal).description == says)
        #expect(await chat.controller.lastSequence == 0)
    }

    @Test(arguments: [
        ("\u{2800}\u{2800}", VisibleText.Refusal.showsNothing, "A title must show something."),
        ("Lunch\nat noon", .lineBreak(0x0A), "A title must be one line."),
        ("Lun\u{7}ch", .controlCharacter(0x07), "Titles can't contain the control character U+0007."),
        ("Lun\u{FEFF}ch", .invisibleCharacter(0xFEFF), "Titles can't contain the invisible character U+FEFF."),
        ("Lunch \u{2066}at noon", .unpairedDirectionalControl(0x2066), "Titles can't contain the direction control U+2066 without its end."),
    ])
    func titlesThatShowNothingOrHideSomethingAreRefused(title: String, refusal: VisibleText.Refusal, says: String) async throws {
        let chat = try await open(try SQLiteStorage.inMemory())
        let (ana, _, _) = try await twoPeople(chat)
        let before = await chat.controller.lastSequence
        await #expect(throws: ChatError.unshowableTitle(refusal)) { try await chat.startConversation(title: title, with: ["Bo"], by: ana.id, origin: nil) }
        #expect(ChatError.unshowableTitle(refusal).description == says)
        #expect(await chat.controller.lastSequence == before)
    }

    @Test(arguments: [
        ("\u{2800}", VisibleText.Refusal.showsNothing, "A message must show something."),
        ("\u{115F}\u{1160} \u{FFA0}", .showsNothing, "A message must show something."),
        ("ok\u{0}then", .controlCharacter(0x00), "Messages can't contain the control character U+0000."),
        ("see \u{202E}txt.exe", .unpairedDirectionalControl(0x202E), "Messages can't contain the direction control U+202E without its end."),
        ("\u{F8FF} logo", .privateUseCharacter(0xF8FF), "Messages can't contain the private-use character U+F8FF."),
    ])
    func messagesThatShowNothingOrHideSomethingAreRefused(text: String, refusal: VisibleText.Refusal, says: String) async throws {
        let chat = try await open(try SQLiteStorage.inMemory())
        let (ana, _, talk) = try await twoPeople(chat)
        let before = await chat.controller.lastSequence
        await #expect(throws: ChatError.unshowableMessage(refusal)) { try await chat.send(text, in: talk.id, from: ana.id, origin: nil) }
        #expect(ChatError.unshowableMessage(refusal).description == says)
        #expect(await chat.controller.lastSequence == before)
        let lines = try await chat.send("two\nlines", in: talk.id, from: ana.id, origin: nil)
        #expect(lines.text == "two\nlines", "a message may have several lines")
    }
}
