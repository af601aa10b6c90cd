import Foundation
import SceneSync
public import SceneSyncUI

/// Asks who is chatting. Signing in signs in the window's device (its browser profile), so every
/// window of it follows; another browser is another person.
@MainActor
public final class SignInScreen: ScreenController {
    /// The route's name.
    public static let routeName = "signIn"
    /// The name field and its Sign In button.
    public static let field = "sign-in"

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
        super.init(route: Route(Self.routeName), title: "Sign In")
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
                         .composer(id: Self.field, label: "Your Name", value: draft(for: Self.field) ?? "", button: "Sign In",
                                   onDraft: { [weak self] text in try await self?.setDraft(text, for: Self.field) },
                                   onSend: { [weak self] name in try await self?.signIn(name) }),
                     ]),
        ])]
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
