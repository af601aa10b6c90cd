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
/// window's draft until the conversation starts.
@MainActor
public final class NewConversationScreen: ScreenController {
    /// The route's name.
    public static let routeName = "newConversation"
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

    /// Creates the screen for `person`, in a window connected by `client` (see
    /// ``ChatCoordinator/client``).
    public init(chat: ChatController, person: Person, client: String? = nil) {
        self.chat = chat
        self.person = person
        self.client = client
        super.init(route: Route(Self.routeName), title: "New Conversation")
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
                .textField(id: NodeID.title, label: "Title", value: "", draft: draft(for: NodeID.title), placeholder: "Weekend plans",
                           onCommit: { [weak self] text in try await self?.setDraft(text, for: NodeID.title) }),
                .textField(id: NodeID.participants, label: "Participants", value: "", draft: draft(for: NodeID.participants),
                           placeholder: "Names, separated by commas",
                           onCommit: { [weak self] text in try await self?.setDraft(text, for: NodeID.participants) }),
            ]),
        ])]
    }

    private func start() async throws {
        let names = (draft(for: NodeID.participants) ?? "").split(separator: ",").map(String.init)
        let conversation = try await chat.startConversation(title: draft(for: NodeID.title) ?? "", with: names, by: person.id, client: client, origin: origin)
        await clearDrafts()
        await delegate?.newConversationScreen(self, didStart: conversation)
    }

    private func clearDrafts() async {
        await clearDraft(for: NodeID.title)
        await clearDraft(for: NodeID.participants)
    }
}
