import Chat
import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncTesting
import SceneSyncUI
import Testing

/// New Conversation's refusals belong to their fields: each shows under its field, both at once,
/// and goes when that field's text changes. Only a refusal of neither field is thrown (a notice).
@MainActor
struct NewConversationErrorsTests {
    typealias Field = NewConversationScreen.NodeID
    static let anaDevice = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let boDevice = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

    func launch(settings: ChatSettings = .init()) async throws -> (SceneHost, ChatController) {
        let delegate = ChatAppDelegate(settings: settings, logger: Logger(label: "test"))
        let host = try await SceneHost.launch(delegate: delegate, storage: try SQLiteStorage.inMemory())
        return (host, try #require(delegate.chat))
    }

    /// Ana's window on the New Conversation screen, with Bo signed in elsewhere.
    func newConversation(_ host: SceneHost) async throws -> HostedWindow {
        let bo = try await host.openWindow(device: Self.boDevice)
        try await signIn("Bo", in: bo, host: host)
        let ana = try await host.openWindow(device: Self.anaDevice)
        try await signIn("Ana", in: ana, host: host)
        try await host.tap(ConversationListScreen.NodeID.newConversation, in: ana)
        #expect(ana.title == "New Conversation")
        return ana
    }

    func signIn(_ name: String, in window: HostedWindow, host: SceneHost) async throws {
        try await host.perform(.commit, on: SignInScreen.field, value: .string(name), in: window)
        try await host.waitUntil("\(name)'s conversations") { window.node(ConversationListScreen.NodeID.table) != nil }
    }

    func error(_ field: String, in window: HostedWindow) -> String? { window.text(field, "error") }

    @Test func startWithBothFieldsEmptyShowsEachFieldsErrorUnderItAndNoNotice() async throws {
        let (host, _) = try await launch()
        let ana = try await newConversation(host)
        try await host.tap(Field.start, in: ana)
        #expect(error(Field.title, in: ana) == ChatError.emptyTitle.description)
        #expect(error(Field.participants, in: ana) == ChatError.noOtherParticipants.description)
        #expect(ana.noticeTexts.isEmpty, "a field's error is no notice")
        #expect(ana.title == "New Conversation")

        // A title typed: its error goes, the other field's stays.
        try await host.type("Weekend", into: Field.title, in: ana)
        #expect(error(Field.title, in: ana) == nil && ana.text(Field.title, "draft") == "Weekend")
        #expect(error(Field.participants, in: ana) == ChatError.noOtherParticipants.description)

        // Someone no one has heard of: the Participants field says so, the title has nothing to say.
        try await host.type("Bo, Cy", into: Field.participants, in: ana)
        #expect(error(Field.participants, in: ana) == nil)
        try await host.tap(Field.start, in: ana)
        #expect(error(Field.participants, in: ana) == "No one here is called “Cy”.")
        #expect(error(Field.title, in: ana) == nil && ana.noticeTexts.isEmpty)
        // What was typed stays in both fields: a patch of a field carries its draft.
        #expect(ana.text(Field.title, "draft") == "Weekend" && ana.text(Field.participants, "draft") == "Bo, Cy")
        // The refused text committed again keeps its error; other text takes it away.
        try await host.type("Bo, Cy", into: Field.participants, in: ana)
        #expect(error(Field.participants, in: ana) == "No one here is called “Cy”.")
        try await host.type("Bo", into: Field.participants, in: ana)
        #expect(error(Field.participants, in: ana) == nil)

        try await host.tap(Field.start, in: ana)
        #expect(ana.title == "Weekend" && ana.noticeTexts.isEmpty && ana.patchFailures.isEmpty)
    }

    @Test func aRefusalOfNeitherFieldIsThrownAndClearsTheFieldsErrors() async throws {
        let (host, chat) = try await launch(settings: ChatSettings(maximumConversationsStartedPerPerson: 1))
        let ana = try await newConversation(host)
        let anaPerson = try #require(await chat.controller.state.person(on: Self.anaDevice))
        try await chat.startConversation(title: "First", with: ["Bo"], by: anaPerson.id, origin: nil)
        try await host.type("Second", into: Field.title, in: ana)
        try await host.type("Cy", into: Field.participants, in: ana)
        try await host.tap(Field.start, in: ana)
        #expect(error(Field.participants, in: ana) == "No one here is called “Cy”.")
        // Cy signs in meanwhile: Start, with the same text, gets past the fields to a refusal of neither.
        let cy = try await host.openWindow(device: "cccccccccccccccccccccccccccccccc")
        try await signIn("Cy", in: cy, host: host)
        await #expect(throws: ChatError.tooManyConversationsStarted(limit: 1)) { try await host.tap(Field.start, in: ana) }
        #expect(error(Field.title, in: ana) == nil && error(Field.participants, in: ana) == nil)
        #expect(ana.title == "New Conversation")
    }

    @Test func theModelStillChecksBothFields() async throws {
        let (host, chat) = try await launch()
        _ = try await newConversation(host)
        let ana = try #require(await chat.controller.state.person(on: Self.anaDevice))
        await #expect(throws: ChatError.emptyTitle) { try await chat.startConversation(title: " ", with: [], by: ana.id, origin: nil) }
        await #expect(throws: ChatError.unknownParticipant("Cy")) {
            try await chat.startConversation(title: "Lunch", with: ["Cy"], by: ana.id, origin: nil)
        }
        await #expect(throws: ChatError.noOtherParticipants) { try await chat.checkParticipants([" ", "Ana"], by: ana.id) }
        await #expect(throws: ChatError.unknownParticipant("Cy")) { try await chat.checkParticipants(["Bo", "Cy"], by: ana.id) }
        try await chat.checkParticipants(["Bo"], by: ana.id)
        #expect(try ChatController.conversationTitle("  Lunch ") == "Lunch")
        #expect(await chat.controller.state.conversations.isEmpty, "checking starts nothing")
    }
}
