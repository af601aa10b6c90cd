import Chat
import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import Testing

/// Chat's model: what it keeps, what it refuses, and what it announces without keeping.
struct ChatControllerTests {
    let device = "0123456789abcdef0123456789abcdef"
    let otherDevice = "fedcba9876543210fedcba9876543210"

    func open(_ storage: any SceneSyncStorage) async throws -> ChatController {
        try await ChatController(storage: storage, logger: Logger(label: "test"))
    }

    /// Ana and Bo, signed in on two devices, with a conversation between them.
    func twoPeople(_ chat: ChatController) async throws -> (Person, Person, Conversation) {
        let ana = try await chat.signIn(name: "Ana", device: device, origin: nil)
        let bo = try await chat.signIn(name: "Bo", device: otherDevice, origin: nil)
        let talk = try await chat.startConversation(title: "Lunch", with: ["bo "], by: ana.id, origin: nil)
        return (ana, bo, talk)
    }

    @Test func signingInWithAKnownNameIsThatPersonAndADeviceIsOnePerson() async throws {
        let chat = try await open(try SQLiteStorage.inMemory())
        let ana = try await chat.signIn(name: " Ana ", device: device, origin: nil)
        #expect(ana.name == "Ana")
        let again = try await chat.signIn(name: "ANA", device: otherDevice, origin: nil)
        #expect(again.id == ana.id, "a name is one person, whatever its case")
        let bo = try await chat.signIn(name: "Bo", device: device, origin: nil)
        let state = await chat.controller.state
        #expect(state.person(on: device) == bo && state.person(on: otherDevice) == ana)
        #expect(state.people.count == 2)
        try await chat.signOut(device: device, origin: nil)
        #expect(await chat.controller.state.person(on: device) == nil)
    }

    @Test func badNamesAndTitlesAreRefusedAndNothingIsStored() async throws {
        let chat = try await open(try SQLiteStorage.inMemory())
        await #expect(throws: ChatError.emptyName) { try await chat.signIn(name: " \n ", device: device, origin: nil) }
        await #expect(throws: ChatError.nameTooLong(length: 41, limit: 40)) {
            try await chat.signIn(name: String(repeating: "a", count: 41), device: device, origin: nil)
        }
        #expect(await chat.controller.lastSequence == 0)
        let ana = try await chat.signIn(name: "Ana", device: device, origin: nil)
        _ = try await chat.signIn(name: "Bo", device: otherDevice, origin: nil)
        let before = await chat.controller.lastSequence
        await #expect(throws: ChatError.emptyTitle) { try await chat.startConversation(title: "  ", with: ["Bo"], by: ana.id, origin: nil) }
        await #expect(throws: ChatError.unknownParticipant("Cy")) {
            try await chat.startConversation(title: "Lunch", with: ["Bo", "Cy"], by: ana.id, origin: nil)
        }
        await #expect(throws: ChatError.noOtherParticipants) { try await chat.startConversation(title: "Me", with: ["ana", ""], by: ana.id, origin: nil) }
        await #expect(throws: ChatError.titleTooLong(length: 81, limit: 80)) {
            try await chat.startConversation(title: String(repeating: "t", count: 81), with: ["Bo"], by: ana.id, origin: nil)
        }
        await #expect(throws: ChatError.notSignedIn) { try await chat.startConversation(title: "Lunch", with: ["Bo"], by: UUID(), origin: nil) }
        #expect(await chat.controller.lastSequence == before)
        #expect(await chat.controller.state.conversations.isEmpty)
    }

    @Test func badMessagesAreRefusedAndNothingIsStored() async throws {
        let storage = try SQLiteStorage.inMemory()
        let chat = try await open(storage)
        let (ana, _, talk) = try await twoPeople(chat)
        let before = await chat.controller.lastSequence
        await #expect(throws: ChatError.emptyMessage) { try await chat.send("", in: talk.id, from: ana.id, origin: nil) }
        await #expect(throws: ChatError.emptyMessage) { try await chat.send(" \n\t ", in: talk.id, from: ana.id, origin: nil) }
        await #expect(throws: ChatError.messageTooLong(length: 4_001, limit: 4_000)) {
            try await chat.send(String(repeating: "é", count: 4_001), in: talk.id, from: ana.id, origin: nil)
        }
        let unknown = UUID()
        await #expect(throws: ChatError.unknownConversation(unknown)) { try await chat.send("Hi", in: unknown, from: ana.id, origin: nil) }
        let stranger = try await chat.signIn(name: "Cy", device: "cccccccccccccccccccccccccccccccc", origin: nil)
        await #expect(throws: ChatError.notAParticipant) { try await chat.send("Hi", in: talk.id, from: stranger.id, origin: nil) }
        #expect(await chat.controller.lastSequence == before + 2, "only Cy's sign-in was kept")
        #expect(await chat.controller.state.messageCount(in: talk.id) == 0)
        let longest = try await chat.send(String(repeating: "é", count: 4_000), in: talk.id, from: ana.id, origin: nil)
        #expect(longest.text.count == 4_000 && longest.number == 1)
    }

    @Test func messagesReadsAndUnreadCountsSurviveARestart() async throws {
        let path = TemporaryDirectory().path("chat.sqlite")
        var chat = try await open(try SQLiteStorage(path: path))
        let (ana, bo, talk) = try await twoPeople(chat)
        for text in ["one", "two", "three"] { try await chat.send(text, in: talk.id, from: ana.id, origin: nil) }
        var state = await chat.controller.state
        #expect(state.unread(bo.id, in: talk.id) == 3 && state.unread(ana.id, in: talk.id) == 0, "a sender has read what they sent")
        try await chat.markRead(talk.id, by: bo.id, origin: nil)
        let sequence = await chat.controller.lastSequence
        try await chat.markRead(talk.id, by: bo.id, origin: nil)
        #expect(await chat.controller.lastSequence == sequence, "reading what is read stores nothing")
        try await chat.send("four", in: talk.id, from: ana.id, origin: nil)
        state = await chat.controller.state
        #expect(state.unread(for: bo.id) == 1 && state.unread(for: ana.id) == 0, "counted as the events came")
        await chat.controller.close()

        chat = try await open(try SQLiteStorage(path: path))
        state = await chat.controller.state
        #expect(state.messages(in: talk.id).page(before: nil, limit: 10).map(\.text) == ["one", "two", "three", "four"])
        #expect(state.unread(bo.id, in: talk.id) == 1 && state.unread(for: bo.id) == 1)
        #expect(state.person(on: device) == ana && state.conversations(for: bo.id).map(\.id) == [talk.id])
        #expect(state.widgetSummary.lines.map(\.text) == ["from Ana", "1 message"])
    }

    @Test func readsRequestedByManyWindowsAtOnceAreMarkedOnceAndOnlyForParticipants() async throws {
        let storage = try SQLiteStorage.inMemory()
        let chat = try await open(storage)
        let (ana, bo, talk) = try await twoPeople(chat)
        let cy = try await chat.signIn(name: "Cy", device: String(format: "%032x", 99), origin: nil)
        for text in ["one", "two"] { try await chat.send(text, in: talk.id, from: ana.id, origin: nil) }
        let before = await chat.controller.lastSequence
        // A hundred of Bo's windows have the conversation on screen; Cy is not in it.
        for _ in 0..<100 { chat.requestRead(talk.id, by: bo.id, through: 2) }
        chat.requestRead(talk.id, by: cy.id, through: 2)
        chat.requestRead(UUID(), by: bo.id, through: 1)
        try await waitForUnread(0, of: bo.id, in: talk.id, chat)
        // Anything after the mark would have been committed with it or right behind it.
        try await chat.send("three", in: talk.id, from: ana.id, origin: nil)
        let events = try await storage.events(app: ChatController.app, after: before, limit: 100)
        let decoded = try events.map { try JSONDecoder().decode(ChatEvent.self, from: $0.payload) }
        let marks = decoded.flatMap { event -> [ReadMark] in
            guard case let .conversationsRead(marks) = event else { return [] }
            return marks
        }
        #expect(marks == [ReadMark(conversation: talk.id, person: bo.id, through: 2)], "one mark, for Bo only")
        #expect(await chat.controller.state.unread(bo.id, in: talk.id) == 1, "the next message is unread again")
        // A later message is asked for again.
        chat.requestRead(talk.id, by: bo.id, through: 3)
        try await waitForUnread(0, of: bo.id, in: talk.id, chat)
    }

    /// A conversation "All" that the first of `count` people started with the others and wrote
    /// one message in, and the sequence number after it.
    func conversationWithOneMessage(among count: Int) async throws
        -> (storage: SQLiteStorage, chat: ChatController, people: [Person], talk: Conversation, before: UInt64)
    {
        let storage = try SQLiteStorage.inMemory()
        let chat = try await open(storage)
        var people: [Person] = []
        for index in 0..<count {
            people.append(try await chat.signIn(name: "P\(index)", device: String(format: "%032x", index + 1), origin: nil))
        }
        let talk = try await chat.startConversation(title: "All", with: people.dropFirst().map(\.name), by: people[0].id, origin: nil)
        try await chat.send("Hello", in: talk.id, from: people[0].id, origin: nil)
        return (storage, chat, people, talk, await chat.controller.lastSequence)
    }

    /// Blocks the calling thread, as handing an event to many windows does.
    func holdTheMainActor(for seconds: TimeInterval) {
        Thread.sleep(forTimeInterval: seconds)
    }

    @MainActor
    @Test func readMarksAskedForInOneTurnOfTheMainActorAreOneEvent() async throws {
        let (storage, chat, people, talk, before) = try await conversationWithOneMessage(among: 5)
        // As when a message is handed to every window: each reader's window asks in turn, and the
        // turn takes a while (a thousand windows).
        for person in people.dropFirst() {
            chat.requestRead(talk.id, by: person.id, through: 1)
            holdTheMainActor(for: 0.005)
        }
        for person in people.dropFirst() { try await waitForUnread(0, of: person.id, in: talk.id, chat) }
        let events = try await storage.events(app: ChatController.app, after: before, limit: 100)
        #expect(events.count == 1, "every reader's mark in one event")
    }

    @Test func readMarksAskedForTogetherAreCommittedTogether() async throws {
        let (storage, chat, people, talk, before) = try await conversationWithOneMessage(among: 6)
        // Every reader's windows ask at once, twice each.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for person in people.dropFirst() + people.dropFirst() {
                group.addTask { try await chat.markRead(talk.id, by: person.id, origin: nil) }
            }
            try await group.waitForAll()
        }
        let events = try await storage.events(app: ChatController.app, after: before, limit: 100)
        let marks = try events.flatMap { event -> [ReadMark] in
            guard case let .conversationsRead(marks) = try JSONDecoder().decode(ChatEvent.self, from: event.payload) else { return [] }
            return marks
        }
        #expect(Set(marks.map(\.person)) == Set(people.dropFirst().map(\.id)) && marks.count == 5, "each reader marked once")
        #expect(events.count < 5, "\(events.count) events for 10 asks by 5 readers")
        let state = await chat.controller.state
        #expect(people.allSatisfy { state.unread($0.id, in: talk.id) == 0 && state.unread(for: $0.id) == 0 })
        await #expect(throws: ChatError.unknownConversation(people[0].id)) { try await chat.markRead(people[0].id, by: people[1].id, origin: nil) }
    }

    @Test func namesWithCommasLineBreaksOrInvisibleCharactersOrTooManyBytesAreRefused() async throws {
        let chat = try await open(try SQLiteStorage.inMemory())
        await #expect(throws: ChatError.nameNotAllowed) { try await chat.signIn(name: "Ana, Bo", device: device, origin: nil) }
        let refused: [(String, VisibleText.Refusal)] = [("Ana\nBo", .lineBreak(0x0A)), ("A\u{200B}na", .invisibleCharacter(0x200B)), ("An\u{0007}a", .controlCharacter(0x07))]
        for (name, refusal) in refused {
            await #expect(throws: ChatError.unshowableName(refusal)) { try await chat.signIn(name: name, device: device, origin: nil) }
        }
        let heavy = String(repeating: "e\u{301}\u{301}\u{301}\u{301}\u{301}", count: 30)
        #expect(heavy.count == 30)
        await #expect(throws: ChatError.tooManyBytes(bytes: heavy.utf8.count, limit: ChatLimits.maximumNameBytes)) {
            try await chat.signIn(name: heavy, device: device, origin: nil)
        }
        #expect(await chat.controller.lastSequence == 0)
        #expect(try await chat.signIn(name: "Zoë Ñandú", device: device, origin: nil).name == "Zoë Ñandú")
    }

    @Test func pagesAreTakenFromTheNewestBackwards() async throws {
        var log = MessageLog()
        let sender = UUID()
        for number in 1...600 { log.append(Message(number: number, sender: sender, text: "\(number)", sentAt: Date())) }
        #expect(log.count == 600 && log.last?.number == 600)
        #expect(log.page(before: nil, limit: 50).map(\.number) == Array(551...600))
        #expect(log.page(before: 551, limit: 50).map(\.number) == Array(501...550))
        #expect(log.page(before: 30, limit: 50).map(\.number) == Array(1...29))
        #expect(log.page(before: 1, limit: 50).isEmpty)
        #expect(log[255].number == 256 && log[256].number == 257)
    }

    @Test func typingIsAnnouncedToEveryListenerAndNeverStored() async throws {
        let storage = try SQLiteStorage.inMemory()
        let chat = try await open(storage)
        let (ana, bo, talk) = try await twoPeople(chat)
        let before = await chat.controller.lastSequence
        let first = chat.controller.transients()
        let second = chat.controller.transients()
        #expect(chat.controller.transientSubscriberCount == 2)
        let origin = SceneSession.ID()
        try await chat.setTyping(true, in: talk.id, by: ana.id, origin: origin)
        try await chat.setTyping(false, in: talk.id, by: bo.id, origin: nil)
        var iterator = first.makeAsyncIterator()
        let typing = await iterator.next()
        #expect(typing?.event == .typing(conversation: talk.id, person: ana.id) && typing?.origin == origin)
        #expect(await iterator.next()?.event == .stoppedTyping(conversation: talk.id, person: bo.id))
        var other = second.makeAsyncIterator()
        #expect(await other.next()?.event == .typing(conversation: talk.id, person: ana.id))
        await #expect(throws: ChatError.unknownConversation(bo.id)) { try await chat.setTyping(true, in: bo.id, by: ana.id, origin: nil) }
        #expect(await chat.controller.lastSequence == before)
        #expect(try await storage.events(app: ChatController.app, after: before, limit: 10).isEmpty)
        await chat.controller.close()
        #expect(await iterator.next() == nil, "closing ends the stream")
        await #expect(throws: ChatError.notSaved(reason: "The model is closed.")) { try await chat.setTyping(true, in: talk.id, by: ana.id, origin: nil) }
    }
}
