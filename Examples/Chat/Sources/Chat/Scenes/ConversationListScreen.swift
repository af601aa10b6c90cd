public import Foundation
import SceneSync
public import SceneSyncUI

/// What Chat's screens ask of their coordinator.
@MainActor
public protocol ChatScreenDelegate: AnyObject {
    /// The user chose a conversation.
    func chatScreen(_ screen: ScreenController, didSelect conversation: UUID) async
    /// The user wants a conversation in a window of its own.
    func chatScreen(_ screen: ScreenController, openInNewWindow conversation: UUID)
    /// The user wants to start a conversation.
    func chatScreenWantsNewConversation(_ screen: ScreenController) async
    /// The window's device signed in as `person`, or out with `nil`, possibly in another window.
    func chatScreen(_ screen: ScreenController, deviceSignedIn person: Person?) async
}

/// What Chat's two main screens share: a split view whose list pane shows the person's
/// conversations, the most recent first, with the last message, its time and an unread badge.
/// ``ConversationsScreen`` shows nothing selected beside it; ``ConversationScreen`` a conversation.
@MainActor
public class ConversationListScreen: ScreenController {
    /// Node ids.
    public enum NodeID {
        /// The split view.
        public static let split = "chat-split"
        /// The list pane.
        public static let listPane = "chat-list"
        /// The detail pane.
        public static let detailPane = "chat-detail"
        /// The list pane's bar: "Chats", Sign Out and New Conversation.
        public static let listBar = "chat-list-bar"
        /// The detail pane's bar.
        public static let detailBar = "chat-detail-bar"
        /// The Sign Out bar button.
        public static let signOut = "sign-out"
        /// The table of conversations.
        public static let table = "conversations-table"
        /// Its one section.
        public static let section = "conversations"
        /// What the list shows with no conversation.
        public static let empty = "conversations-empty"
        /// The New Conversation bar button, in the list pane's bar.
        public static let newConversation = "new-conversation"
        /// The row of the conversation `id`.
        public static func row(_ id: UUID) -> String { rows.id(for: id) }
    }

    /// The conversation rows, handled all at once by key.
    public nonisolated static let rows = KeyedRows<UUID>(prefix: "conversation-")
    /// The row action that opens a conversation in a window of its own.
    public static let openInNewWindow: ActionName = "openInNewWindow"

    /// Who to tell what the user wants.
    public weak var delegate: (any ChatScreenDelegate)?
    /// The shared chat.
    public let chat: ChatController
    /// Who the window acts for.
    public let person: Person
    /// The window's device.
    public let device: String

    struct Entry {
        let conversation: Conversation
        /// The id of the conversation's row, spelled once rather than per event.
        let rowID: String
        var last: Message?
        var lastSender: String?
        var count: Int

        init(conversation: Conversation, last: Message? = nil, lastSender: String? = nil, count: Int) {
            self.conversation = conversation
            rowID = NodeID.row(conversation.id)
            self.last = last
            self.lastSender = lastSender
            self.count = count
        }
    }

    /// The unread counts the window's rows show, as last drawn, by conversation (rows that show
    /// none are not here): what a read mark can change. Kept apart from the screen, for the
    /// events' check to read.
    @MainActor
    final class BadgedRows {
        var shown: [UUID: String] = [:]

        func note(_ id: UUID, _ badge: String?) {
            shown[id] = badge
        }
    }

    /// The listed conversations, in the order shown.
    private(set) var order: [UUID] = []
    private(set) var entries: [UUID: Entry] = [:]
    /// Everyone's name, to name senders.
    private(set) var names: [UUID: String] = [:]
    private let focus: ViewNode.SplitPane
    /// The chat's shared state, once loaded: what the screen's values worked out once per event
    /// for every window are kept by.
    private var model: SharedModel<ChatState>?
    /// The person's id as text, for the keys of values shared between a person's windows.
    let personKey: String
    /// The keys a row's properties are shared under, with its badge shown and without: spelled
    /// once, not per event and window.
    private let rowKeys: (badge: String, noBadge: String)
    /// Whether events went by while another screen covered this one (a conversation opened above
    /// the list): the list is then rebuilt from the shared state when the screen is drawn again,
    /// instead of being kept up, event by event, out of sight in every such window.
    private(set) var listIsStale = false
    /// The rows that show an unread count, for the events' check in ``load()``.
    private let badged = BadgedRows()

    init(chat: ChatController, person: Person, device: String, route: Route, title: String, focus: ViewNode.SplitPane) {
        self.chat = chat
        self.person = person
        self.device = device
        self.focus = focus
        personKey = person.id.uuidString
        rowKeys = ("chat.row.\(personKey).badge", "chat.row.\(personKey).noBadge")
        super.init(route: route, title: title)
        handleRows(
            Self.rows, shown: { [weak self] id in self?.entries[id] != nil },
            onSelect: { [weak self] id in
                guard let self else { return }
                await delegate?.chatScreen(self, didSelect: id)
            },
            actions: [Self.openInNewWindow: { [weak self] id in
                guard let self else { return }
                delegate?.chatScreen(self, openInNewWindow: id)
            }])
    }

    public override func load() async {
        // The chat's state as every screen on the node shares it, in step with what the screen
        // is handed from now on. Read marks come after every message, for everyone whose window
        // shows it, and change nothing in most windows: a mark only lowers an unread count, so it
        // changes a row of this person's that shows one, and nothing else. The list reads how far
        // the person has read from the shared state, not from the marks it is handed.
        let (personID, badged) = (person.id, badged)
        let model = await follow(sharing: chat.controller, only: { envelope in
            guard case let .conversationsRead(marks) = envelope.event else { return true }
            return marks.contains { $0.person == personID && badged.shown[$0.conversation] != nil }
        }) { [weak self] envelope in
            self?.apply(envelope)
        }
        self.model = model
        let state = model.state
        // Signed out, or in as someone else, before this screen could follow the events saying so.
        if state.person(on: device)?.id != person.id { Task { [weak self] in await self?.deviceChanged() } }
        resetList(state)
        await loadDetail(state)
    }

    /// `make()`'s value for the event being handled, worked out once for every screen on the node
    /// that asks under the same `key` (which names the person and whatever else it depends on).
    func once<Value>(_ key: String, _ make: () -> Value) -> Value {
        guard let model else { return make() }
        return model.once(key, make)
    }

    public override func makeContent() -> [ViewNode] {
        catchUpIfStale()
        badged.shown = [:]
        return [.split(id: NodeID.split, focus: focus,
                primary: .stack(id: NodeID.listPane, children: [
                    .paneBar(id: NodeID.listBar, title: Self.listTitle, buttons: listBarButtons),
                    .table(id: NodeID.table, label: "Conversations", sections: [
                        .section(id: NodeID.section, children: order.isEmpty ? [emptyState] : order.compactMap { row(for: $0) }),
                    ]),
                ]),
                secondary: .stack(id: NodeID.detailPane, children: [makeDetailBar()] + makeDetail()))]
    }

    /// The list pane's title.
    public static let listTitle = "Chats"

    /// The list pane's bar buttons: Sign Out and New Conversation.
    private var listBarButtons: [ViewNode] {
        [
            .barButton(id: NodeID.signOut, label: "Sign Out", side: .leading, icon: .signOut) { [weak self] in
                guard let self else { return }
                try await chat.signOut(device: device, origin: origin)
            },
            .barButton(id: NodeID.newConversation, label: "New Conversation", side: .trailing, role: .primary, icon: .compose) { [weak self] in
                guard let self else { return }
                await delegate?.chatScreenWantsNewConversation(self)
            },
        ]
    }

    // MARK: - For subclasses

    /// Loads what the detail pane shows, from the snapshot the list was loaded from.
    func loadDetail(_ state: ChatState) async {}

    /// The detail pane's bar: by default with no title and no buttons, as beside nothing selected.
    func makeDetailBar() -> ViewNode { .paneBar(id: NodeID.detailBar, title: "") }

    /// The detail pane's content, below its bar.
    func makeDetail() -> [ViewNode] { [] }

    /// The conversation the detail pane shows, whose row the list marks as selected.
    var selectedConversation: UUID? { nil }

    /// Turns an event into patches of the detail pane.
    func applyToDetail(_ envelope: EventEnvelope<ChatEvent>) -> [Patch] { [] }

    /// Whether the row of `conversation` shows its unread count.
    func showsBadge(for conversation: UUID) -> Bool { true }

    /// Sends the patches for the row of `conversation` again, such as after its badge rule changed.
    func refreshRow(_ conversation: UUID) {
        guard entries[conversation] != nil else { return }
        let props = rowProps(conversation)
        badged.note(conversation, props[.badge]?.string)
        update([.set(NodeID.row(conversation), props)])
    }

    // MARK: - Events

    private func apply(_ envelope: EventEnvelope<ChatEvent>) {
        switch envelope.event {
        case let .personJoined(joined):
            names[joined.id] = joined.name
        case let .signedIn(device, person) where device == self.device && person != self.person.id:
            Task { [weak self] in await self?.deviceChanged() }
        case let .signedOut(device) where device == self.device:
            Task { [weak self] in await self?.deviceChanged() }
        default:
            break
        }
        guard isVisible else {
            // Out of sight, the list waits to be drawn again; the detail pane keeps its page.
            listIsStale = true
            _ = applyToDetail(envelope)
            return
        }
        // Shown again without being drawn yet (a window in the background draws when it comes
        // back): the list catches up first, so that what it sends and shares is current.
        catchUpIfStale()
        var patches: [Patch] = []
        switch envelope.event {
        case let .conversationStarted(conversation) where conversation.participants.contains(person.id):
            guard entries[conversation.id] == nil else { break }
            entries[conversation.id] = Entry(conversation: conversation, count: 0)
            if order.isEmpty { patches.append(.remove(id: NodeID.empty)) }
            order.insert(conversation.id, at: 0)
            if let row = row(for: conversation.id) { patches.append(.insert(parent: NodeID.section, index: 0, node: row)) }
        case let .messageSent(conversation, message):
            // Changed where it is kept: the entry is not copied out and back, in every window.
            guard let index = entries.index(forKey: conversation) else { break }
            let rowID = entries.values[index].rowID
            entries.values[index].last = message
            entries.values[index].lastSender = senderName(message.sender)
            entries.values[index].count = message.number
            // Every window of the person shows the row alike, but for its badge beside the
            // conversation it has open.
            let props = once(showsBadge(for: conversation) ? rowKeys.badge : rowKeys.noBadge) { rowProps(conversation) }
            badged.note(conversation, props[.badge]?.string)
            patches.append(.set(rowID, props))
            if let position = order.firstIndex(of: conversation), position != 0 {
                order.remove(at: position)
                order.insert(conversation, at: 0)
                patches.append(.move(id: rowID, index: 0))
            }
        case let .conversationsRead(marks):
            // Handed only marks that may lower a count this window shows (see `load()`).
            for mark in marks where mark.person == person.id {
                guard let shown = badged.shown[mark.conversation], let entry = entries[mark.conversation] else { continue }
                let badge = badge(mark.conversation)
                guard badge != shown else { continue }
                badged.note(mark.conversation, badge)
                patches.append(.set(entry.rowID, [.badge: badge.map(ViewValue.string) ?? .null]))
            }
        default:
            break
        }
        update(patches + applyToDetail(envelope))
    }

    /// Rebuilds the list from the shared state if events went by while the screen was covered.
    private func catchUpIfStale() {
        guard listIsStale, let model else { return }
        listIsStale = false
        resetList(model.state)
    }

    private func deviceChanged() async {
        let state = await chat.controller.state
        await delegate?.chatScreen(self, deviceSignedIn: state.person(on: device))
    }

    private func resetList(_ state: ChatState) {
        order = state.conversations(for: person.id).map(\.id)
        names = state.people.mapValues(\.name)
        entries = [:]
        for id in order {
            guard let conversation = state.conversations[id] else { continue }
            let last = state.messages(in: id).last
            entries[id] = Entry(conversation: conversation, last: last,
                                lastSender: last.map { senderName($0.sender) },
                                count: state.messageCount(in: id))
        }
    }

    // MARK: - Nodes

    private var emptyState: ViewNode {
        .emptyState(id: NodeID.empty, title: "No Conversations", message: "Tap New Conversation to talk to someone.")
    }

    private func row(for id: UUID) -> ViewNode? {
        guard let entry = entries[id] else { return nil }
        let badge = badge(id)
        badged.note(id, badge)
        return .row(id: entry.rowID, title: entry.conversation.title, subtitle: subtitle(entry),
                    time: entry.last?.sentAt ?? entry.conversation.startedAt, badge: badge)
            .selected(id == selectedConversation)
            .rowActions([.init(Self.openInNewWindow, label: "Open in New Window")])
    }

    private func rowProps(_ id: UUID) -> [ViewNode.Property: ViewValue] {
        guard let entry = entries[id] else { return [:] }
        return [.subtitle: subtitle(entry).map(ViewValue.string) ?? .null,
                .time: .time(entry.last?.sentAt ?? entry.conversation.startedAt),
                .badge: badge(id).map(ViewValue.string) ?? .null]
    }

    private func subtitle(_ entry: Entry) -> String? {
        guard let last = entry.last else { return "No messages yet" }
        return Self.subtitle(entry.lastSender ?? senderName(last.sender), last.text)
    }

    private func badge(_ id: UUID) -> String? {
        guard let entry = entries[id], showsBadge(for: id) else { return nil }
        let unread = entry.count - read(id)
        return unread > 0 ? "\(unread)" : nil
    }

    /// How far the window's person has read the conversation `id`: from the shared state, which
    /// every mark reaches, whether or not the screen was handed it.
    func read(_ id: UUID) -> Int {
        model?.state.readThrough(person.id, in: id) ?? 0
    }

    /// How a message's sender is named to the window's person.
    func senderName(_ id: UUID) -> String {
        id == person.id ? "You" : names[id] ?? "Someone"
    }

    static func subtitle(_ sender: String, _ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
        return "\(sender): \(line.count > 80 ? String(line.prefix(79)) + "…" : line)"
    }
}
