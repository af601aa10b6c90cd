import Foundation
import SceneSync
public import SceneSyncUI

/// What the New Conversation screen asks of its coordinator.
@MainActor
public protocol NewConversationScreenDelegate: AnyObject {
    /// A conversation was started from the screen.
    func newConversationScreen(_ screen: NewConversationScreen, didStart conversation: Conversation) async
    /// The user cancelled.
    func newConversationScreenDidCancel(_ screen: NewConversationScreen)
}

/// Starts a conversation: a title and the names of the people to talk to. What is typed is the
/// window's draft until the conversation starts. Start checks both fields at once: what is wrong
/// with each shows under it, until its text changes.
@MainActor
public final class NewConversationScreen: ScreenController {
    /// The screen's kind of route.
    public static let route = RouteName("newConversation")
    /// Node ids.
    public enum NodeID {
        /// The title field.
        public static let title = "title"
        /// The participants field.
        public static let participants = "participants"
        /// The Start bar button.
        public static let start = "start"
        /// The Cancel bar button.
        public static let cancel = "cancel"
    }

    /// Who to tell.
    public weak var delegate: (any NewConversationScreenDelegate)?
    private let chat: ChatController
    private let person: Person
    private let client: String?
    private var known: [String] = []
    /// Each field's error, by node id.
    private var errors: [String: String] = [:]
    /// The text each field with an error had when it was refused.
    private var refused: [String: String] = [:]

    /// Creates the screen for `person`, in a window connected by `client` (see
    /// ``ChatCoordinator/client``).
    public init(chat: ChatController, person: Person, client: String? = nil) {
        self.chat = chat
        self.person = person
        self.client = client
        super.init(route: Self.route(), title: "New Conversation")
        setBarButtons([
            .barButton(id: NodeID.cancel, label: "Cancel", side: .leading, role: .cancel) { [weak self] in
                guard let self else { return }
                await clearDrafts()
                delegate?.newConversationScreenDidCancel(self)
            },
            .barButton(id: NodeID.start, label: "Start", side: .trailing, role: .primary) { [weak self] in try await self?.start() },
        ])
    }

    public override func load() async {
        let state = await chat.controller.state
        known = state.people.values.filter { $0.id != person.id }.map(\.name).sorted()
    }

    public override func makeContent() -> [ViewNode] {
        let others = known.isEmpty ? "No one else has signed in yet." : "People here: \(known.prefix(12).joined(separator: ", "))\(known.count > 12 ? ", …" : "")."
        return [.form(id: "new-conversation-form", sections: [
            .section(id: "new-conversation-fields", footer: "Separate names with commas. \(others)", children: [
                .textField(id: NodeID.title, label: "Title", value: "", draft: draft(for: NodeID.title), placeholder: "Weekend plans")
                    .error(errors[NodeID.title])
                    .staged()
                    .onCommit { [weak self] text in try await self?.commit(text, in: NodeID.title) },
                .textField(id: NodeID.participants, label: "Participants", value: "", draft: draft(for: NodeID.participants),
                           placeholder: "Names, separated by commas")
                    .error(errors[NodeID.participants])
                    .staged()
                    .onCommit { [weak self] text in try await self?.commit(text, in: NodeID.participants) },
            ]),
        ])]
    }

    /// Keeps what was typed as the field's draft. Other text than the field's refused text takes
    /// its error away; the refused text typed again keeps it.
    private func commit(_ text: String, in field: String) async throws {
        try await setDraft(text, for: field)
        guard errors[field] != nil, text != refused[field] else { return }
        errors[field] = nil
        refused[field] = nil
        update([errorPatch(of: field)])
    }

    private func start() async throws {
        let title = draft(for: NodeID.title) ?? ""
        let names = (draft(for: NodeID.participants) ?? "").split(separator: ",").map(String.init)
        // Both fields are checked before starting, so that both say what is wrong at once;
        // starting checks them again.
        var refusals: [ChatError] = []
        do { _ = try ChatController.conversationTitle(title) } catch { refusals.append(error) }
        do { try await chat.checkParticipants(names, by: person.id) } catch { refusals.append(error) }
        if refusals.isEmpty {
            do {
                let conversation = try await chat.startConversation(title: title, with: names, by: person.id, client: client, origin: origin)
                await clearDrafts()
                await delegate?.newConversationScreen(self, didStart: conversation)
                return
            } catch {
                refusals = [error]
            }
        }
        try show(refusals)
    }

    /// Shows each refusal under its field and takes away the errors of the fields it no longer
    /// finds wrong; a refusal of neither field is thrown, for the window to show as a notice.
    private func show(_ refusals: [ChatError]) throws {
        var found: [String: String] = [:]
        var elsewhere: ChatError?
        for refusal in refusals {
            if let field = Self.field(of: refusal) {
                found[field] = found[field] ?? refusal.description
            } else {
                elsewhere = elsewhere ?? refusal
            }
        }
        let changed = [NodeID.title, NodeID.participants].filter { errors[$0] != found[$0] }
        for field in [NodeID.title, NodeID.participants] {
            refused[field] = found[field] == nil ? nil : draft(for: field) ?? ""
        }
        errors = found
        update(changed.map(errorPatch(of:)))
        if let elsewhere { throw elsewhere }
    }

    /// The field's error as it is now, with its draft: a field not being typed in shows the draft
    /// its node carries, which is otherwise the one it was drawn with.
    private func errorPatch(of field: String) -> Patch {
        .set(field, [.error: errors[field].map(ViewValue.string) ?? .null, .draft: draft(for: field).map(ViewValue.string) ?? .null])
    }

    /// The field a refusal of ``ChatController/startConversation(title:with:by:client:origin:)`` is
    /// about, or `nil` for one about neither.
    private static func field(of refusal: ChatError) -> String? {
        switch refusal {
        // The title is the only text whose bytes starting a conversation counts.
        case .emptyTitle, .titleTooLong, .tooManyBytes, .unshowableTitle: NodeID.title
        case .unknownParticipant, .noOtherParticipants, .tooManyParticipants: NodeID.participants
        default: nil
        }
    }

    private func clearDrafts() async {
        await clearDraft(for: NodeID.title)
        await clearDraft(for: NodeID.participants)
    }
}
