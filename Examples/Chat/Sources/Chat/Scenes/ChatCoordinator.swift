public import Foundation
import SceneSync
public import SceneSyncUI

/// Owns a Chat window's navigation. The root is the sign-in screen until the window's device is
/// signed in, then the person's conversations; a conversation, or New Conversation, goes on top.
/// In a wide window the list and the conversation show side by side.
@MainActor
public final class ChatCoordinator: Coordinator, ChatScreenDelegate, NewConversationScreenDelegate {
    /// The shared chat.
    public let chat: ChatController
    /// The window it navigates.
    public unowned let window: SceneWindow
    /// The window's device: who signs in here signs in every window of it.
    public let device: String
    /// Who connected the window (its network address; see ``ConnectionOptions/client``), whose
    /// sign-ups and new conversations are counted against ``ChatSettings``' bounds per client.
    public let client: String?
    /// The window's one navigation stack.
    public let navigation = NavigationController()
    /// Who the window acts for, once signed in.
    public private(set) var person: Person?
    /// Counts changes of `person`: what was decided before an `await` is dropped if it changed.
    private var personChanges = 0

    /// Creates the coordinator.
    public init(chat: ChatController, window: SceneWindow, device: String, client: String? = nil) {
        self.chat = chat
        self.window = window
        self.device = device
        self.client = client
        super.init()
        window.coordinator = self
    }

    /// A conversation, or New Conversation, beside the list: `/chat/conversation/<id>`,
    /// `/chat/newConversation`.
    public override var routes: [any RouteKind] { [ConversationScreen.route, NewConversationScreen.route] }

    /// Shows the sign-in screen or the person's conversations, restoring the path in `state` as
    /// far as it still makes sense (a conversation the person is in).
    public override func start(restoring state: NavigationState?) async {
        let snapshot = await chat.snapshot()
        person = snapshot.state.person(on: device)
        personChanges += 1
        await navigation.setScreens(screens(for: state?.paths["main"] ?? [], in: snapshot.state))
        await window.setRoot(navigation)
    }

    /// Shows `conversation` beside the list, as a window opened for it does.
    public func start(showing conversation: UUID) async {
        await start(restoring: NavigationState(
            paths: ["main": [ConversationsScreen.route(), ConversationScreen.route(conversation)]],
            selectedTab: "main"))
        if person != nil, !(navigation.topScreen is ConversationScreen) {
            window.showNotice("This conversation does not exist, or you are not in it.")
        }
    }

    /// The scene became active: the conversation on screen is read now.
    public func sceneDidBecomeActive() async {
        guard let screen = navigation.topScreen as? ConversationScreen else { return }
        screen.refreshRow(screen.conversation)
        await screen.markReadIfActive()
    }

    /// The scene is no longer active: unread messages show their count again.
    public func sceneWillResignActive() {
        guard let screen = navigation.topScreen as? ConversationScreen else { return }
        screen.refreshRow(screen.conversation)
    }

    // MARK: - ChatScreenDelegate

    public func chatScreen(_ screen: ScreenController, didSelect conversation: UUID) async {
        guard let person, navigation.screens.contains(where: { $0 === screen }) else { return }
        if let current = navigation.topScreen as? ConversationScreen, current.conversation == conversation { return }
        let changes = personChanges
        let state = await chat.controller.state
        // The device may have signed out, or in as someone else, while the state was read.
        guard changes == personChanges, let root = navigation.screens.first as? ConversationsScreen,
              let found = state.conversations[conversation], found.participants.contains(person.id) else { return }
        await navigation.setScreens([root, makeConversationScreen(found, person: person)])
        await (navigation.topScreen as? ConversationScreen)?.markReadIfActive()
    }

    public func chatScreen(_ screen: ScreenController, openInNewWindow conversation: UUID) {
        guard let activity = try? SceneActivity(type: ChatSceneDelegate.conversationActivityType, payload: conversation) else { return }
        window.requestNewWindow(with: activity)
    }

    public func chatScreenWantsNewConversation(_ screen: ScreenController) async {
        guard let person, let root = navigation.screens.first as? ConversationsScreen,
              !(navigation.topScreen is NewConversationScreen) else { return }
        let new = NewConversationScreen(chat: chat, person: person, client: client)
        new.delegate = self
        await navigation.setScreens([root, new])
    }

    /// Shows who the device is signed in as now, whatever `person` the screen saw: several
    /// screens and windows may say so at once, and the state is read afresh.
    public func chatScreen(_ screen: ScreenController, deviceSignedIn person: Person?) async {
        let state = await chat.controller.state
        let current = state.person(on: device)
        // `self.person` is whom the root shows, or is being set to show.
        guard current?.id != self.person?.id else { return }
        self.person = current
        personChanges += 1
        await navigation.setScreens(screens(for: [], in: state))
    }

    // MARK: - NewConversationScreenDelegate

    public func newConversationScreen(_ screen: NewConversationScreen, didStart conversation: Conversation) async {
        guard let person, conversation.participants.contains(person.id), navigation.topScreen === screen,
              let root = navigation.screens.first as? ConversationsScreen else { return }
        await navigation.setScreens([root, makeConversationScreen(conversation, person: person)])
    }

    public func newConversationScreenDidCancel(_ screen: NewConversationScreen) {
        guard navigation.topScreen === screen else { return }
        navigation.pop()
    }

    // MARK: - Screens

    private func screens(for path: [Route], in state: ChatState) -> [ScreenController] {
        guard let person, state.people[person.id] != nil else {
            let screen = SignInScreen(chat: chat, device: device, client: client)
            screen.delegate = self
            return [screen]
        }
        let list = ConversationsScreen(chat: chat, person: person, device: device)
        list.delegate = self
        guard let top = path.dropFirst().first else { return [list] }
        if let id = ConversationScreen.route.argument(of: top),
           let conversation = state.conversations[id], conversation.participants.contains(person.id) {
            return [list, makeConversationScreen(conversation, person: person)]
        }
        if NewConversationScreen.route.matches(top) {
            let new = NewConversationScreen(chat: chat, person: person, client: client)
            new.delegate = self
            return [list, new]
        }
        return [list]
    }

    private func makeConversationScreen(_ conversation: Conversation, person: Person) -> ConversationScreen {
        let screen = ConversationScreen(chat: chat, person: person, device: device, conversation: conversation.id, title: conversation.title)
        screen.delegate = self
        return screen
    }
}
