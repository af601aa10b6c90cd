import Foundation
import SceneSync
public import SceneSyncUI

/// Asks who is chatting. Signing in signs in the window's device (its browser profile), so every
/// window of it follows; another browser is another person.
@MainActor
public final class SignInScreen: ScreenController {
    /// The screen's kind of route.
    public static let route = RouteName("signIn")
    /// The name field: one line, and Enter signs in.
    public static let field = "sign-in"
    /// The Sign In button, which signs in with what the field holds.
    public static let button = "sign-in-button"

    /// Who to tell once the device is signed in.
    public weak var delegate: (any ChatScreenDelegate)?
    private let chat: ChatController
    private let device: String
    private let client: String?

    /// Creates the screen for the window's `device`, connected by `client` (see
    /// ``ChatCoordinator/client``).
    public init(chat: ChatController, device: String, client: String? = nil) {
        self.chat = chat
        self.device = device
        self.client = client
        super.init(route: Self.route(), title: "Sign In")
    }

    public override func load() async {
        let snapshot = await chat.snapshot()
        // Signed in before this screen could follow the event saying so.
        if snapshot.state.person(on: device) != nil { Task { [weak self] in await self?.signedIn() } }
        follow(chat.controller, from: snapshot.sequence) { [weak self] envelope in
            guard let self, case let .signedIn(device, _) = envelope.event, device == self.device else { return }
            Task { await self.signedIn() }
        }
    }

    public override func makeContent() -> [ViewNode] {
        [.form(id: "sign-in-form", sections: [
            .section(id: "sign-in-section", header: "Who is chatting?",
                     footer: "Every window of this browser chats as you. Another browser, or another browser profile, is another person.",
                     children: [
                         .textField(id: Self.field, label: "Your Name", value: "", draft: draft(for: Self.field), placeholder: "Required")
                             .onCommit { [weak self] name in try await self?.signIn(name) },
                         .button(id: Self.button, label: "Sign In", role: .primary) { [weak self] in try await self?.signInWithDraft() },
                     ]),
        ])]
    }

    /// The button: the field's text is its draft (the window keeps it as it is typed). Pressing
    /// the button commits the field first, as it loses the focus; a device that commit signed in
    /// is not signed in again.
    private func signInWithDraft() async throws {
        guard await chat.controller.state.person(on: device) == nil else { return }
        try await signIn(draft(for: Self.field) ?? "")
    }

    private func signIn(_ name: String) async throws {
        try await chat.signIn(name: name, device: device, client: client, origin: origin)
        await clearDraft(for: Self.field)
        await signedIn()
    }

    private func signedIn() async {
        let person = await chat.controller.state.person(on: device)
        await delegate?.chatScreen(self, deviceSignedIn: person)
    }
}
