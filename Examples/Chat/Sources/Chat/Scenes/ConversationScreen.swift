public import Foundation
import SceneSync
public import SceneSyncUI

/// One conversation beside the list: its newest messages (older ones load on scroll, as far back
/// as the server holds them; see ``ChatSettings/messagesKeptPerConversation``), who is typing, and
/// a composer whose unsent text is the window's own draft.
///
/// The screen holds at most ``ChatLimits/maximumMessagesShown`` messages: as new ones arrive the
/// oldest shown leave, and as earlier pages load the newest shown leave, until "Show Newest
/// Messages" (below the list) brings the newest page back.
///
/// Sending is an intent: the message shows when its event comes back, in every window showing the
/// conversation, and the sending window (the event's origin) draws it as sent from here. While the
/// screen shows in an active window, the person has read the conversation.
@MainActor
public final class ConversationScreen: ConversationListScreen {
    /// The screen's kind of route.
    public static let route = RoutePattern<UUID>("conversation")
    /// How long "… is typing" shows after the last sign of typing.
    public static let typingTimeout: Duration = .seconds(5)
    /// How often at most a window says its person is typing.
    public static let typingInterval: TimeInterval = 2

    /// Node ids of the detail pane.
    public enum DetailID {
        /// The message list.
        public static let messages = "messages"
        /// The Load Earlier button.
        public static let loadEarlier = "load-earlier"
        /// The line that says older messages are not shown, in place of Load Earlier once the
        /// oldest message the server holds is shown and it is not the conversation's first.
        public static let earlierNotKept = "earlier-not-kept"
        /// The Show Newest Messages button, below the list while the newest messages are not shown.
        public static let showNewest = "show-newest"
        /// Who is typing.
        public static let typing = "typing"
        /// The composer.
        public static let composer = "composer"
        /// The Open in New Window bar button.
        public static let openInNewWindow = "open-in-new-window"
        /// The message numbered `number`.
        public static func message(_ number: Int) -> String { "message-\(number)" }
    }

    /// The conversation shown.
    public let conversation: UUID
    /// The messages shown, oldest first: the newest page, pages loaded since, and new messages;
    /// at most ``ChatLimits/maximumMessagesShown``.
    public private(set) var shown: [Message] = []
    /// Whether newer messages than those shown were let go of to load earlier ones: new messages
    /// do not show until "Show Newest Messages" is tapped.
    public private(set) var hasNewer = false
    private var typing: [UUID: Date] = [:]
    private var typingExpiry: Task<Void, Never>?
    private var lastTypingSent: Date?
    private var isAnnouncedTyping = false
    private var isLoadingEarlier = false
    /// The number of the oldest message the server holds, as last read: no earlier one can load.
    private var oldestKept = 1
    /// What the top of the message list shows now: Load Earlier, the line saying older messages
    /// are not shown, or neither.
    private var earlierShown: ViewNode?
    private var isFollowingTransients = false
    /// The keys a new message's node (sent from this window or not) and the read mark it calls for
    /// are shared under by the person's windows: spelled once, not per event and window.
    private let messageKeys: (fromHere: String, fromElsewhere: String, read: String)

    /// Creates the screen for `conversation`, shown to `person` on `device`.
    public init(chat: ChatController, person: Person, device: String, conversation: UUID, title: String) {
        self.conversation = conversation
        let personKey = person.id.uuidString
        messageKeys = ("chat.message.\(personKey).here", "chat.message.\(personKey).elsewhere", "chat.read.\(personKey)")
        super.init(chat: chat, person: person, device: device,
                   route: Self.route(conversation), title: title, focus: .secondary)
    }

    deinit { typingExpiry?.cancel() }

    /// Whether older messages are left to load.
    public var hasEarlier: Bool { (shown.first?.number ?? 1) > oldestKept }

    /// Whether the conversation has older messages than those shown that the server no longer holds.
    public var hasEarlierNotKept: Bool { !hasEarlier && (shown.first?.number ?? 1) > 1 }

    /// Whether the screen shows in the window the user is using.
    private var isShownInActiveWindow: Bool {
        isVisible && window?.scene?.activationState == .foregroundActive
    }

    /// Marks the conversation read if the screen shows in an active window and anything is unread.
    public func markReadIfActive() async {
        guard isShownInActiveWindow else { return }
        guard let entry = entries[conversation], read(conversation) < entry.count else { return }
        try? await chat.markRead(conversation, by: person.id, origin: origin)
    }

    override func loadDetail(_ state: ChatState) async {
        let log = state.messages(in: conversation)
        oldestKept = log.firstNumber
        shown = log.page(before: nil, limit: ChatLimits.pageSize)
        hasNewer = false
        typing = [:]
        guard !isFollowingTransients else { return }
        isFollowingTransients = true
        let transients = chat.controller.transients()
        task { [weak self] in
            for await envelope in transients {
                guard let self else { return }
                self.applyTransient(envelope.event)
            }
        }
    }

    override var selectedConversation: UUID? { conversation }

    override func makeDetailBar() -> ViewNode {
        .paneBar(id: NodeID.detailBar, title: title, back: backTitle, buttons: [
            .barButton(id: DetailID.openInNewWindow, label: "Open in New Window", side: .trailing, icon: .newWindow) { [weak self] in
                guard let self else { return }
                delegate?.chatScreen(self, openInNewWindow: conversation)
            },
        ])
    }

    override func makeDetail() -> [ViewNode] {
        var nodes = [messageList()]
        if hasNewer { nodes.append(showNewestButton) }
        if let text = typingText { nodes.append(.text(id: DetailID.typing, text, style: .footnote)) }
        nodes.append(composer(value: draft(for: draftField) ?? ""))
        return nodes
    }

    override func showsBadge(for conversation: UUID) -> Bool {
        conversation != self.conversation || window?.scene?.activationState != .foregroundActive
    }

    override func applyToDetail(_ envelope: EventEnvelope<ChatEvent>) -> [Patch] {
        guard case let .messageSent(conversation, message) = envelope.event, conversation == self.conversation else { return [] }
        guard message.number > (shown.last?.number ?? 0) else { return [] }
        // The server now holds messages from this one back as far as it keeps.
        oldestKept = max(oldestKept, message.number - chat.settings.messagesKeptPerConversation + 1)
        var patches: [Patch] = []
        if !hasNewer {
            shown.append(message)
            let fromHere = envelope.origin != nil && envelope.origin == origin
            let node: ViewNode = once(fromHere ? messageKeys.fromHere : messageKeys.fromElsewhere) { self.node(for: message, fromHere: fromHere) }
            patches.append(.insert(parent: DetailID.messages, index: (earlierShown != nil ? 1 : 0) + shown.count - 1, node: node))
            // The oldest shown leave: the window holds a bounded number (the browser regroups the rest).
            let excess = shown.count - ChatLimits.maximumMessagesShown
            if excess > 0 {
                patches += shown.prefix(excess).map { .remove(id: DetailID.message($0.number)) }
                shown.removeFirst(excess)
            }
        }
        patches += earlierPatches()
        if typing.removeValue(forKey: message.sender) != nil { patches += typingPatches(wasShown: true) }
        if message.sender != person.id, isShownInActiveWindow {
            // Once per person and message on the node, however many of the person's windows show it.
            once(messageKeys.read) { chat.requestRead(conversation, by: person.id, through: message.number) }
        }
        return patches
    }

    /// The composer's draft is the window's, and the person's: another person signed in on the
    /// same browser does not find it.
    private var draftField: String { "\(DetailID.composer)-\(person.id.uuidString)" }

    // MARK: - Nodes

    /// The message list as the screen holds it, with what its top should show.
    private func messageList() -> ViewNode {
        earlierShown = earlierNode
        return .messageList(id: DetailID.messages, label: "Messages", earlier: earlierShown,
                            messages: shown.map { node(for: $0, fromHere: false) })
    }

    private var showNewestButton: ViewNode {
        .button(id: DetailID.showNewest, label: "Show Newest Messages") { [weak self] in await self?.showNewest() }
    }

    /// What the top of the message list should show: Load Earlier while older messages can load;
    /// once they cannot and the conversation has older ones, a line that says so.
    private var earlierNode: ViewNode? {
        if hasEarlier {
            return .button(id: DetailID.loadEarlier, label: "Load Earlier") { [weak self] in await self?.loadEarlier() }
        }
        guard hasEarlierNotKept else { return nil }
        return .text(id: DetailID.earlierNotKept,
                     "Older messages are not shown: a conversation keeps its newest \(chat.settings.messagesKeptPerConversation).",
                     style: .footnote)
    }

    /// The id of what the top of the message list should show (see ``earlierNode``).
    private var earlierID: String? {
        hasEarlier ? DetailID.loadEarlier : hasEarlierNotKept ? DetailID.earlierNotKept : nil
    }

    /// Patches from the top of the list as shown to as it should be.
    private func earlierPatches() -> [Patch] {
        guard earlierID != earlierShown?.id else { return [] }
        let wanted = earlierNode
        var patches: [Patch] = []
        if let shown = earlierShown { patches.append(.remove(id: shown.id)) }
        if let wanted { patches.append(.insert(parent: DetailID.messages, index: 0, node: wanted)) }
        earlierShown = wanted
        return patches
    }

    private func composer(value: String) -> ViewNode {
        .composer(id: DetailID.composer, label: "Message", value: value, button: "Send",
                  onDraft: { [weak self] text in try await self?.draftChanged(text) },
                  onSend: { [weak self] text in try await self?.send(text) })
    }

    private func node(for message: Message, fromHere: Bool) -> ViewNode {
        .message(id: DetailID.message(message.number), sender: message.sender == person.id ? person.name : names[message.sender] ?? "Someone",
                 text: message.text, time: message.sentAt, mine: message.sender == person.id, fromHere: fromHere)
    }

    private var typingText: String? {
        let typists = typing.keys.map { names[$0] ?? "Someone" }.sorted()
        switch typists.count {
        case 0: return nil
        case 1: return "\(typists[0]) is typing…"
        case 2: return "\(typists[0]) and \(typists[1]) are typing…"
        default: return "\(typists.count) people are typing…"
        }
    }

    // MARK: - Intents

    private func send(_ text: String) async throws {
        try await chat.send(text, in: conversation, from: person.id, origin: origin)
        lastTypingSent = nil
        isAnnouncedTyping = false
        try? await setDraft("", for: draftField)
        update([.set(DetailID.composer, [.value: "", .error: .null])])
    }

    private func draftChanged(_ text: String) async throws {
        try await setDraft(text, for: draftField)
        // At most one announcement per interval, of typing or of stopping: a window that stops and
        // starts again at once is not heard of again until the interval is over (the other
        // windows' "is typing" lasts longer than the interval).
        let isTyping = !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        guard isTyping || isAnnouncedTyping else { return }
        if let last = lastTypingSent, Date().timeIntervalSince(last) < Self.typingInterval { return }
        lastTypingSent = Date()
        isAnnouncedTyping = isTyping
        try await chat.setTyping(isTyping, in: conversation, by: person.id, origin: origin)
    }

    private func loadEarlier() async {
        guard !isLoadingEarlier, let first = shown.first, first.number > oldestKept else { return }
        isLoadingEarlier = true
        defer { isLoadingEarlier = false }
        let log = await chat.controller.state.messages(in: conversation)
        // A reload meanwhile started over from another page.
        guard shown.first == first else { return }
        oldestKept = max(oldestKept, log.firstNumber)
        let page = log.page(before: first.number, limit: ChatLimits.pageSize)
        shown.insert(contentsOf: page, at: 0)
        // Below Load Earlier, which shows while a page loads.
        var patches = page.enumerated().map { index, message in
            Patch.insert(parent: DetailID.messages, index: 1 + index, node: node(for: message, fromHere: false))
        }
        // The newest shown leave, and new messages wait for Show Newest Messages.
        let excess = shown.count - ChatLimits.maximumMessagesShown
        if excess > 0 {
            patches += shown.suffix(excess).map { .remove(id: DetailID.message($0.number)) }
            shown.removeLast(excess)
            if !hasNewer {
                hasNewer = true
                patches.append(.insert(parent: NodeID.detailPane, index: 2, node: showNewestButton))
            }
        }
        update(patches + earlierPatches())
    }

    /// Shows the newest page again, in place of the messages shown.
    private func showNewest() async {
        guard hasNewer else { return }
        // The controller applies an event to its state before it hands the event out, so every
        // message this screen has heard of is in the page read here.
        let log = await chat.controller.state.messages(in: conversation)
        guard hasNewer else { return }
        oldestKept = log.firstNumber
        shown = log.page(before: nil, limit: ChatLimits.pageSize)
        hasNewer = false
        // A list drawn anew (with a transition, not updated in place, which would keep the scroll
        // near the top, where Load Earlier would tap itself): at the bottom, as when first opened.
        update([.replace(id: DetailID.messages, node: messageList(), transition: .pop), .remove(id: DetailID.showNewest)])
        await markReadIfActive()
    }

    // MARK: - Typing

    private func applyTransient(_ event: ChatTransient) {
        let wasShown = typingText != nil
        switch event {
        case let .typing(conversation, person) where conversation == self.conversation && person != self.person.id:
            let isNew = typing[person] == nil
            typing[person] = Date().addingTimeInterval(Double(Self.typingTimeout.components.seconds))
            scheduleTypingExpiry()
            if isNew { update(typingPatches(wasShown: wasShown)) }
        case let .stoppedTyping(conversation, person) where conversation == self.conversation:
            guard typing.removeValue(forKey: person) != nil else { return }
            update(typingPatches(wasShown: wasShown))
        default:
            break
        }
    }

    /// Patches from the typing line as it was (`wasShown`) to as it is now.
    private func typingPatches(wasShown: Bool) -> [Patch] {
        switch (wasShown, typingText) {
        case (false, let text?): [.insert(parent: NodeID.detailPane, index: hasNewer ? 3 : 2, node: .text(id: DetailID.typing, text, style: .footnote))]
        case (true, let text?): [.set(DetailID.typing, [.text: .string(text)])]
        case (true, nil): [.remove(id: DetailID.typing)]
        case (false, nil): []
        }
    }

    private func scheduleTypingExpiry() {
        typingExpiry?.cancel()
        guard let next = typing.values.min() else { return }
        typingExpiry = Task { [weak self] in
            try? await Task.sleep(for: .seconds(max(0, next.timeIntervalSinceNow)))
            guard !Task.isCancelled, let self else { return }
            let wasShown = typingText != nil
            let now = Date()
            typing = typing.filter { $0.value > now }
            update(typingPatches(wasShown: wasShown))
            scheduleTypingExpiry()
        }
    }
}
