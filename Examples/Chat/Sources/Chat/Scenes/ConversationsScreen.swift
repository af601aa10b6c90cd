import Foundation
import SceneSync
public import SceneSyncUI

/// The person's conversations, with nothing selected: in a wide window the detail pane says so.
@MainActor
public final class ConversationsScreen: ConversationListScreen {
    /// The screen's kind of route.
    public static let route = RouteName("conversations")
    /// The Sign Out bar button's node id.
    public static let signOutButton = NodeID.signOut

    /// Creates the screen for `person` on `device`.
    public init(chat: ChatController, person: Person, device: String) {
        super.init(chat: chat, person: person, device: device, route: Self.route(), title: Self.listTitle, focus: .primary)
    }

    override func makeDetail() -> [ViewNode] {
        [.emptyState(id: "no-conversation", title: "No Conversation Selected", message: "Signed in as \(person.name).")]
    }
}
