@testable import Chat
import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import SceneSyncUI
import Testing

/// Chat's windows, driven headless: two people on two devices, each with windows of their own.
@MainActor
struct ChatSceneTests {
    typealias List = ConversationListScreen.NodeID
    typealias Detail = ConversationScreen.DetailID
    static let anaDevice = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let boDevice = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

    func launch(_ storage: any SceneSyncStorage, settings: ChatSettings = .init()) async throws -> (SceneHost, ChatController) {
        let delegate = ChatAppDelegate(settings: settings, logger: Logger(label: "test"))
        let host = try await SceneHost.launch(delegate: delegate, storage: storage)
        return (host, try #require(delegate.chat))
    }

    func signIn(_ name: String, in window: HostedWindow, host: SceneHost) async throws {
        try await host.perform(.commit, on: SignInScreen.field, value: .string(name), in: window)
        try await host.waitUntil("\(name)'s conversations") { window.route == "main:conversations" || window.node(List.table) != nil }
    }

    /// Ana's and Bo's windows, signed in, with a conversation "Lunch" that Ana started.
    func lunch(_ host: SceneHost, _ chat: ChatController) async throws -> (ana: HostedWindow, bo: HostedWindow, talk: Conversation) {
        let ana = try await host.openWindow(device: Self.anaDevice)
        try await signIn("Ana", in: ana, host: host)
        let bo = try await host.openWindow(device: Self.boDevice)
        try await signIn("Bo", in: bo, host: host)
        let anaPerson = try #require(await chat.controller.state.person(on: Self.anaDevice))
        let talk = try await chat.startConversation(title: "Lunch", with: ["Bo"], by: anaPerson.id, origin: nil)
        try await host.waitUntil("the conversation in both lists") { ana.node(List.row(talk.id)) != nil && bo.node(List.row(talk.id)) != nil }
        return (ana, bo, talk)
    }

    func messageTexts(_ window: HostedWindow) -> [String] {
        window.node(Detail.messages)?.children.filter { $0.kind == .message }.compactMap { $0.props["text"]?.string } ?? []
    }

    func inserts(of id: String, in window: HostedWindow) -> [ViewNode] {
        window.messages.flatMap { message -> [ViewNode] in
            guard case let .patch(ops, _) = message else { return [] }
            return ops.compactMap { if case let .insert(_, _, node) = $0, node.id == id { node } else { nil } }
        }
    }

    @Test func signingInInOneWindowSignsInEveryWindowOfThatBrowserOnly() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let first = try await host.openWindow(device: Self.anaDevice)
        let second = try await host.openWindow(device: Self.anaDevice)
        let elsewhere = try await host.openWindow(device: Self.boDevice)
        #expect(first.node(SignInScreen.field)?.kind == .textField && second.node(SignInScreen.field) != nil, "a name is one line")
        await #expect(throws: ChatError.emptyName) { try await host.perform(.commit, on: SignInScreen.field, value: "  ", in: first) }
        await #expect(throws: ChatError.emptyName) { try await host.tap(SignInScreen.button, in: first) }
        // The button signs in with what the field holds: the window's draft of it.
        try await host.perform(.draft, on: SignInScreen.field, value: "Ana", in: first)
        try await host.tap(SignInScreen.button, in: first)
        try await host.waitUntil("Ana's conversations") { first.node(List.table) != nil }
        try await host.waitUntil("the other window of the browser") { second.node(List.table) != nil }
        #expect(second.title == "Chats" && second.text(List.split, "focus") == "primary")
        #expect(elsewhere.node(SignInScreen.field) != nil, "another browser is another person")
        try await host.tap(ConversationsScreen.signOutButton, in: second)
        try await host.waitUntil("both windows signed out") { first.node(SignInScreen.field) != nil && second.node(SignInScreen.field) != nil }
        #expect(first.patchFailures.isEmpty && second.patchFailures.isEmpty)
    }

    @Test func aMessageShowsInEveryWindowOnceAndAsSentFromHereOnlyInTheSender() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory())
        let (ana, bo, talk) = try await lunch(host, chat)
        let anaSecond = try await host.openWindow(device: Self.anaDevice)
        for window in [ana, bo, anaSecond] {
            try await host.perform(.select, on: List.row(talk.id), in: window)
            #expect(window.title == "Lunch" && window.text(List.split, "focus") == "secondary")
        }
        try await host.perform(.send, on: Detail.composer, value: "  Noodles?\n", in: ana)
        try await host.waitUntil("the message in every window") { [ana, bo, anaSecond].allSatisfy { messageTexts($0) == ["Noodles?"] } }
        let id = Detail.message(1)
        #expect(inserts(of: id, in: ana).map { $0.props["fromHere"] } == [.bool(true)], "the sender animates it once, as sent")
        #expect(inserts(of: id, in: anaSecond).map { $0.props["fromHere"] } == [nil])
        #expect(inserts(of: id, in: bo).count == 1)
        #expect(ana.node(id)?.props["mine"] == .bool(true) && anaSecond.node(id)?.props["mine"] == .bool(true))
        #expect(bo.node(id)?.props["mine"] == nil && bo.text(id, "sender") == "Ana")
        #expect(ana.text(Detail.composer, "value") == "", "the sender's composer is emptied")
        #expect([ana, bo, anaSecond].allSatisfy { $0.text(List.row(talk.id), "subtitle")?.hasSuffix(": Noodles?") == true })
        #expect(ana.text(List.row(talk.id), "subtitle") == "You: Noodles?" && bo.text(List.row(talk.id), "subtitle") == "Ana: Noodles?")
        #expect([ana, bo, anaSecond].allSatisfy { $0.patchFailures.isEmpty })
    }

    /// The row badges a window was sent for the conversation `id`, in order.
    func sentBadges(_ id: UUID, in window: HostedWindow) -> [ViewValue?] {
        window.messages.flatMap { message -> [ViewValue?] in
            guard case let .patch(ops, _) = message else { return [] }
            return ops.compactMap { if case let .set(row, props) = $0, row == List.row(id), props.keys.contains("badge") { props["badge"] } else { nil } }
        }
    }

    /// Lunch, with a second window of Bo's, active, that has the conversation open; his first
    /// shows the list only, and Ana's has the conversation open.
    func lunchWithBoInTwoWindows(_ host: SceneHost, _ chat: ChatController)
        async throws -> (ana: HostedWindow, boList: HostedWindow, boOpen: HostedWindow, talk: Conversation) {
        let (ana, boList, talk) = try await lunch(host, chat)
        let boOpen = try await host.openWindow(device: Self.boDevice)
        try await host.waitUntil("Bo's second window's list") { boOpen.node(List.row(talk.id)) != nil }
        try await host.perform(.select, on: List.row(talk.id), in: boOpen)
        try await host.perform(.select, on: List.row(talk.id), in: ana)
        return (ana, boList, boOpen, talk)
    }

    @Test func aPersonsWindowsAreSentTheSameRowButEachItsOwnBadge() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory())
        let (ana, boList, boOpen, talk) = try await lunchWithBoInTwoWindows(host, chat)
        try await host.perform(.send, on: Detail.composer, value: "Noodles?", in: ana)
        try await host.waitUntil("the message in Bo's open window") { messageTexts(boOpen) == ["Noodles?"] }
        let bo = try #require(await chat.controller.state.person(on: Self.boDevice))
        // The open, active window reads it, and the list's badge goes.
        try await waitForUnread(0, of: bo.id, in: talk.id, chat)
        try await host.waitUntil("no badge in either window") { boList.text(List.row(talk.id), "badge") == nil && boOpen.text(List.row(talk.id), "badge") == nil }
        #expect(boList.text(List.row(talk.id), "subtitle") == "Ana: Noodles?" && boOpen.text(List.row(talk.id), "subtitle") == "Ana: Noodles?")
        #expect(sentBadges(talk.id, in: boList).contains(.string("1")), "the list showed it unread until it was read")
        #expect(!sentBadges(talk.id, in: boOpen).contains(.string("1")), "the window that had it on screen never showed it unread")
        #expect([ana, boList, boOpen].allSatisfy { $0.patchFailures.isEmpty })
    }

    /// A read mark only lowers a count, so a window whose rows show none is not handed it; when
    /// such a window later shows the row's count, it is the one the mark left.
    @Test func aReadMarkReachesOnlyWindowsWhoseCountsItLowersAndTheOthersStillShowWhatItLeft() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory())
        let (ana, boList, boOpen, talk) = try await lunchWithBoInTwoWindows(host, chat)
        let recorder = EventRecorder(chat.controller.events(after: await chat.controller.lastSequence))
        try await host.perform(.send, on: Detail.composer, value: "Noodles?", in: ana)
        let events = try await recorder.waitForEvents(count: 2)
        guard case .messageSent = events[0].event, case let .conversationsRead(marks) = events[1].event else {
            Issue.record("expected the message, then its read mark: \(events.map(\.event))")
            return
        }
        let bo = try #require(await chat.controller.state.person(on: Self.boDevice))
        #expect(marks.map(\.person) == [bo.id])
        let (message, mark) = (events[0].sequence, events[1].sequence)
        // Bo's list showed "1": it is handed the mark and its count goes. His open window showed
        // none beside the conversation it has on screen: it is handed the message, not the mark.
        try await host.waitUntil("no badge in Bo's list") { boList.text(List.row(talk.id), "badge") == nil }
        let sequence = { (window: HostedWindow) in window.scene?.window?.sequences[ChatController.app] ?? 0 }
        #expect(sequence(boList) == mark)
        #expect(sequence(boOpen) == message, "the window with the conversation open was handed its read mark")
        // Not active any more, the open window shows the row's count again: none, as the mark left it.
        try await host.application.move(try #require(boOpen.scene), to: .foregroundInactive)
        try await host.waitUntil("the open window's row drawn again") {
            boOpen.messages.count > 0 && sentBadges(talk.id, in: boOpen).count >= 2
        }
        #expect(boOpen.text(List.row(talk.id), "badge") == nil, "the open window's row showed a count the mark had cleared")
        // A message while it is inactive counts, and the list beside shows it.
        try await host.perform(.send, on: Detail.composer, value: "At noon?", in: ana)
        try await host.waitUntil("a count in the inactive window") { boOpen.text(List.row(talk.id), "badge") == "1" }
        #expect([ana, boList, boOpen].allSatisfy { $0.patchFailures.isEmpty })
    }

    @Test func badMessagesAreRefusedInTheWindowThatSentThemAndNothingIsStored() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory())
        let (ana, _, talk) = try await lunch(host, chat)
        try await host.perform(.select, on: List.row(talk.id), in: ana)
        let before = await chat.controller.lastSequence
        await #expect(throws: ChatError.emptyMessage) { try await host.perform(.send, on: Detail.composer, value: " \n ", in: ana) }
        await #expect(throws: ChatError.messageTooLong(length: 4_001, limit: 4_000)) {
            try await host.perform(.send, on: Detail.composer, value: .string(String(repeating: "x", count: 4_001)), in: ana)
        }
        await #expect(throws: ScreenError.invalidValue(node: Detail.composer, name: "send")) {
            try await host.perform(.send, on: Detail.composer, value: 42, in: ana)
        }
        #expect(await chat.controller.lastSequence == before && messageTexts(ana).isEmpty)
        let elsewhere = try await host.openWindow(activity: try SceneActivity(type: ChatSceneDelegate.conversationActivityType, payload: UUID()),
                                                  device: Self.anaDevice)
        #expect(elsewhere.noticeTexts == ["This conversation does not exist, or you are not in it."] && elsewhere.title == "Chats")
    }

    @Test func unreadCountsArePerPersonAndClearWhenTheConversationIsOnScreenInAnActiveWindow() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory())
        let (ana, bo, talk) = try await lunch(host, chat)
        try await host.perform(.select, on: List.row(talk.id), in: ana)
        for text in ["one", "two"] { try await host.perform(.send, on: Detail.composer, value: .string(text), in: ana) }
        try await host.waitUntil("Bo's badge") { bo.text(List.row(talk.id), "badge") == "2" }
        #expect(ana.text(List.row(talk.id), "badge") == nil, "Ana sent them")
        try await host.hide(bo)
        try await host.perform(.select, on: List.row(talk.id), in: bo)
        let recorder = EventRecorder(chat.controller.events(after: await chat.controller.lastSequence))
        try await host.perform(.send, on: Detail.composer, value: "three", in: ana)
        let bob = try #require(await chat.controller.state.person(on: Self.boDevice))
        // Bo's hidden window has the message on screen; the next event is one sent after that, so
        // no read came in between.
        let three = try await recorder.waitForEvents(count: 1)[0].sequence
        try await host.waitUntil("the message in Bo's hidden window") { (bo.scene?.window?.sequences[ChatController.app] ?? 0) >= three }
        let cy = try await chat.signIn(name: "Cy", device: "cy-device", origin: nil)
        #expect(try await recorder.waitForEvents(count: 2)[1].event == .personJoined(cy))
        #expect(await chat.controller.state.unread(bob.id, in: talk.id) == 3, "a hidden window reads nothing")
        try await host.show(bo)
        try await waitForUnread(0, of: bob.id, in: talk.id, chat)
        try await host.waitUntil("no badge") { bo.text(List.row(talk.id), "badge") == nil }
        try await host.perform(.send, on: Detail.composer, value: "four", in: ana)
        try await host.waitUntil("read as it comes") { messageTexts(bo).count == 4 }
        try await waitForUnread(0, of: bob.id, in: talk.id, chat)
    }

    @Test func eachPaneHasItsOwnBarAndTheOpenConversationsRowIsSelected() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory())
        let (ana, _, talk) = try await lunch(host, chat)
        let anaPerson = try #require(await chat.controller.state.person(on: Self.anaDevice))
        let other = try await chat.startConversation(title: "Book club", with: ["Bo"], by: anaPerson.id, origin: nil)
        try await host.waitUntil("the second conversation") { ana.node(List.row(other.id)) != nil }
        // Nothing open: no row selected; the list's bar "Chats" with Sign Out and New Conversation.
        #expect(ana.node(List.row(talk.id))?.props["selected"] == nil && ana.node(List.row(other.id))?.props["selected"] == nil)
        #expect(ana.text(List.listBar, "title") == "Chats" && ana.text(List.listBar, "back") == nil)
        #expect(ana.node(List.listBar)?.children.map(\.id) == [List.signOut, List.newConversation])
        #expect(ana.text(List.detailBar, "title") == "")

        try await host.perform(.select, on: List.row(talk.id), in: ana)
        try await host.waitUntil("Lunch open") { ana.node(Detail.composer) != nil }
        #expect(ana.node(List.row(talk.id))?.props["selected"] == true, "the open conversation's row")
        #expect(ana.node(List.row(other.id))?.props["selected"] == nil)
        #expect(ana.text(List.detailBar, "title") == "Lunch" && ana.text(List.detailBar, "back") == "Chats")
        #expect(ana.node(List.detailBar)?.children.map(\.id) == [Detail.openInNewWindow])
        #expect(ana.node(List.listBar)?.children.map(\.id) == [List.signOut, List.newConversation])

        // Another conversation: the mark moves with it. The detail bar's Back goes to the list.
        try await host.perform(.select, on: List.row(other.id), in: ana)
        try await host.waitUntil("Book club open") { ana.text(List.detailBar, "title") == "Book club" }
        #expect(ana.node(List.row(other.id))?.props["selected"] == true && ana.node(List.row(talk.id))?.props["selected"] == nil)
        try await host.perform(.back, on: List.detailBar, in: ana)
        try await host.waitUntil("back on the list") { ana.node(Detail.composer) == nil && ana.node(List.row(other.id)) != nil }
        #expect(ana.node(List.row(other.id))?.props["selected"] == nil)
        await #expect(throws: ScreenError.self) { try await host.perform(.back, on: List.listBar, in: ana) }
    }

    @Test func theListUnderAnOpenConversationIsRebuiltWhenItShowsAgainNotKeptUpMeanwhile() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory())
        let (ana, _, talk) = try await lunch(host, chat)
        let anaPerson = try #require(await chat.controller.state.person(on: Self.anaDevice))
        let boPerson = try #require(await chat.controller.state.person(on: Self.boDevice))
        let earlier = try await chat.startConversation(title: "Book club", with: ["Bo"], by: anaPerson.id, origin: nil)
        try await host.waitUntil("the second conversation") { ana.node(List.row(earlier.id)) != nil }
        try await host.perform(.select, on: List.row(talk.id), in: ana)
        try await host.waitUntil("Lunch open") { ana.node(Detail.composer) != nil }
        let root = try #require((ana.scene?.userInterface as? SceneWindow)?.navigation?.screens.first as? ConversationsScreen)

        // While Lunch covers the list, Bo writes in Book club and starts Dinner.
        _ = try await chat.send("See you at eight", in: earlier.id, from: boPerson.id, origin: nil)
        let dinner = try await chat.startConversation(title: "Dinner", with: ["Ana"], by: boPerson.id, origin: nil)
        _ = try await chat.send("Pasta?", in: dinner.id, from: boPerson.id, origin: nil)
        try await host.waitUntil("Dinner in the open conversation's list pane") { ana.node(List.row(dinner.id)) != nil }
        #expect(root.listIsStale, "the covered list waits to be drawn again")
        #expect(root.entries[dinner.id] == nil)

        try await host.perform(.back, on: List.detailBar, in: ana)
        try await host.waitUntil("back on the list") { ana.node(Detail.composer) == nil }
        let rows = ana.node(List.section)?.children.map(\.id)
        #expect(rows == [List.row(dinner.id), List.row(earlier.id), List.row(talk.id)], "the newest first")
        #expect(ana.text(List.row(dinner.id), "badge") == "1" && ana.text(List.row(earlier.id), "badge") == "1")
        #expect(ana.text(List.row(dinner.id), "subtitle") == "Bo: Pasta?")
        #expect(!root.listIsStale && ana.patchFailures.isEmpty)

        // Shown again, it is kept up event by event.
        _ = try await chat.send("Or pizza", in: dinner.id, from: boPerson.id, origin: nil)
        try await host.waitUntil("the new message in the list") { ana.text(List.row(dinner.id), "badge") == "2" }
        #expect(ana.text(List.row(dinner.id), "subtitle") == "Bo: Or pizza")
        #expect(ana.patchFailures.isEmpty)
    }

    @Test func typingShowsInOtherPeoplesWindowsAndClearsWhenTheMessageIsSent() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory())
        let (ana, bo, talk) = try await lunch(host, chat)
        let anaSecond = try await host.openWindow(device: Self.anaDevice)
        for window in [ana, bo, anaSecond] { try await host.perform(.select, on: List.row(talk.id), in: window) }
        let before = await chat.controller.lastSequence
        try await host.perform(.draft, on: Detail.composer, value: "Noo", in: ana)
        try await host.waitUntil("Bo sees Ana typing") { bo.text(Detail.typing, "text") == "Ana is typing…" }
        #expect(ana.node(Detail.typing) == nil && anaSecond.node(Detail.typing) == nil, "not in Ana's own windows")
        #expect(await chat.controller.lastSequence == before, "typing is not stored")
        try await host.perform(.send, on: Detail.composer, value: "Noodles?", in: ana)
        try await host.waitUntil("the typing line gone") { bo.node(Detail.typing) == nil && messageTexts(bo) == ["Noodles?"] }
        try await host.perform(.draft, on: Detail.composer, value: "Sure", in: bo)
        try await host.waitUntil("Ana sees Bo typing") { ana.text(Detail.typing, "text") == "Bo is typing…" }
        try await host.perform(.draft, on: Detail.composer, value: "", in: bo)
        try await host.waitUntil("cleared text stops typing") { ana.node(Detail.typing) == nil }
        #expect([ana, bo, anaSecond].allSatisfy { $0.patchFailures.isEmpty })
    }

    @Test func draftsBelongToTheWindowSurviveReloadAndRestartAndGoWithTheWindow() async throws {
        let path = TemporaryDirectory().path("chat.sqlite")
        var (host, chat) = try await launch(try SQLiteStorage(path: path))
        let (ana, _, talk) = try await lunch(host, chat)
        let anaSecond = try await host.openWindow(device: Self.anaDevice)
        for window in [ana, anaSecond] { try await host.perform(.select, on: List.row(talk.id), in: window) }
        try await host.perform(.draft, on: Detail.composer, value: "first window", in: ana)
        try await host.perform(.draft, on: Detail.composer, value: "second window", in: anaSecond)
        try await host.reload(ana)
        try await host.reload(anaSecond)
        #expect(ana.title == "Lunch" && ana.text(Detail.composer, "value") == "first window")
        #expect(anaSecond.text(Detail.composer, "value") == "second window", "each window its own draft")
        let secondSession = anaSecond.sessionID
        let firstSession = ana.sessionID
        await host.terminate()

        (host, chat) = try await launch(try SQLiteStorage(path: path))
        let restored = try await host.openWindow(session: firstSession, device: Self.anaDevice)
        #expect(restored.title == "Lunch" && restored.text(Detail.composer, "value") == "first window", "after a restart")
        let storage = host.application.storage
        #expect(try await storage.drafts(session: secondSession).keys.filter { !$0.hasPrefix(SceneDrafts.reservedPrefix) }.count == 1)
        let second = try await host.openWindow(session: secondSession, device: Self.anaDevice)
        try await host.close(second)
        #expect(try await storage.drafts(session: secondSession).isEmpty, "closed for good, its draft is gone")
        try await host.perform(.send, on: Detail.composer, value: "first window", in: restored)
        #expect(try await storage.drafts(session: firstSession).isEmpty, "sent, the draft is gone")
    }

    @Test func aLongConversationOpensOnItsNewestPageAndLoadsEarlierPages() async throws {
        let (host, chat) = try await launch(try SQLiteStorage.inMemory())
        let (ana, bo, talk) = try await lunch(host, chat)
        let anaPerson = try #require(await chat.controller.state.person(on: Self.anaDevice))
        for number in 1...120 { try await chat.send("m\(number)", in: talk.id, from: anaPerson.id, origin: nil) }
        try await host.perform(.select, on: List.row(talk.id), in: bo)
        #expect(messageTexts(bo) == (71...120).map { "m\($0)" })
        #expect(bo.node(Detail.messages)?.children.first?.id == Detail.loadEarlier)
        try await host.tap(Detail.loadEarlier, in: bo)
        #expect(messageTexts(bo) == (21...120).map { "m\($0)" })
        try await host.tap(Detail.loadEarlier, in: bo)
        #expect(messageTexts(bo) == (1...120).map { "m\($0)" })
        #expect(bo.node(Detail.loadEarlier) == nil, "nothing earlier")
        try await host.perform(.select, on: List.row(talk.id), in: ana)
        try await host.perform(.send, on: Detail.composer, value: "m121", in: ana)
        try await host.waitUntil("the new message last") { messageTexts(bo).last == "m121" }
        #expect(bo.patchFailures.isEmpty)
    }

    @Test func aConversationLongerThanTheServerHoldsSaysOlderMessagesAreNotShown() async throws {
        let settings = ChatSettings(messageBurst: 1_000, messagesKeptPerConversation: 60)
        let (host, chat) = try await launch(try SQLiteStorage.inMemory(), settings: settings)
        let (ana, bo, talk) = try await lunch(host, chat)
        let anaPerson = try #require(await chat.controller.state.person(on: Self.anaDevice))
        for number in 1...100 { try await chat.send("m\(number)", in: talk.id, from: anaPerson.id, origin: nil) }
        try await host.perform(.select, on: List.row(talk.id), in: bo)
        #expect(messageTexts(bo) == (51...100).map { "m\($0)" })
        #expect(bo.node(Detail.messages)?.children.first?.id == Detail.loadEarlier && bo.node(Detail.earlierNotKept) == nil)
        try await host.tap(Detail.loadEarlier, in: bo)
        #expect(messageTexts(bo) == (41...100).map { "m\($0)" }, "as far back as the server holds")
        #expect(bo.node(Detail.loadEarlier) == nil)
        #expect(bo.node(Detail.messages)?.children.first?.id == Detail.earlierNotKept)
        #expect(bo.text(Detail.earlierNotKept, "text") == "Older messages are not shown: a conversation keeps its newest 60.")
        try await host.perform(.select, on: List.row(talk.id), in: ana)
        try await host.perform(.send, on: Detail.composer, value: "m101", in: ana)
        try await host.waitUntil("the new message last") { messageTexts(bo).last == "m101" }
        #expect(messageTexts(bo).count == 61 && bo.patchFailures.isEmpty && ana.patchFailures.isEmpty)
        #expect(ana.node(Detail.loadEarlier) != nil, "a window showing the newest page may still load the rest held")
    }

    @Test func theWindowsClientAddressCountsWhoItSignsUpAndSendingTooFastIsRefusedInTheWindow() async throws {
        let settings = ChatSettings(messageBurst: 1, messagesPerSecond: 0.001, maximumPeoplePerClient: 1)
        let (host, chat) = try await launch(try SQLiteStorage.inMemory(), settings: settings)
        let ana = try await host.openWindow(client: "192.0.2.7", device: Self.anaDevice)
        try await signIn("Ana", in: ana, host: host)
        let bo = try await host.openWindow(client: "192.0.2.7", device: Self.boDevice)
        await #expect(throws: ChatError.tooManyPeopleFromClient(limit: 1)) {
            try await host.perform(.commit, on: SignInScreen.field, value: "Bo", in: bo)
        }
        let elsewhere = try await host.openWindow(client: "192.0.2.8", device: Self.boDevice)
        try await signIn("Bo", in: elsewhere, host: host)
        let anaPerson = try #require(await chat.controller.state.person(on: Self.anaDevice))
        let talk = try await chat.startConversation(title: "Lunch", with: ["Bo"], by: anaPerson.id, origin: nil)
        try await host.waitUntil("the conversation in Ana's list") { ana.node(List.row(talk.id)) != nil }
        try await host.perform(.select, on: List.row(talk.id), in: ana)
        try await host.perform(.send, on: Detail.composer, value: "one", in: ana)
        await #expect(throws: ChatError.sendingTooFast(retryAfterSeconds: 1_000)) {
            try await host.perform(.send, on: Detail.composer, value: "two", in: ana)
        }
        #expect(messageTexts(ana) == ["one"])
    }

    @Test func startingAConversationOpensItAndRefusesUnknownPeople() async throws {
        let (host, _) = try await launch(try SQLiteStorage.inMemory())
        let ana = try await host.openWindow(device: Self.anaDevice)
        try await signIn("Ana", in: ana, host: host)
        let bo = try await host.openWindow(device: Self.boDevice)
        try await signIn("Bo", in: bo, host: host)
        try await host.tap(List.newConversation, in: ana)
        #expect(ana.title == "New Conversation")
        try await host.type("Weekend", into: NewConversationScreen.NodeID.title, in: ana)
        try await host.type("Bo, Cy", into: NewConversationScreen.NodeID.participants, in: ana)
        try await host.tap(NewConversationScreen.NodeID.start, in: ana)
        #expect(ana.text(NewConversationScreen.NodeID.participants, "error") == ChatError.unknownParticipant("Cy").description)
        #expect(ana.title == "New Conversation" && ana.noticeTexts.isEmpty)
        try await host.type("Bo", into: NewConversationScreen.NodeID.participants, in: ana)
        try await host.tap(NewConversationScreen.NodeID.start, in: ana)
        #expect(ana.title == "Weekend" && ana.node(Detail.composer) != nil && ana.patchFailures.isEmpty)
        try await host.waitUntil("the conversation in Bo's list") { bo.rowTitles == ["Weekend"] }
        try await host.perform(ConversationListScreen.openInNewWindow, on: try #require(bo.view?.nodes(of: .row).first?.id), in: bo)
        #expect(bo.openRequests.count == 1)
        guard let activity = bo.openRequests.first else { return }
        let opened = try await host.openWindow(activity: activity, device: Self.boDevice)
        #expect(opened.title == "Weekend" && opened.text(List.split, "focus") == "secondary")
    }
}

/// Waits until `person` has `count` unread messages in `conversation`, as the controller counts.
func waitForUnread(_ count: Int, of person: UUID, in conversation: UUID, _ chat: ChatController) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while await chat.controller.state.unread(person, in: conversation) != count {
        guard ContinuousClock.now < deadline else { throw HostTimeout(waitingFor: "\(count) unread") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
