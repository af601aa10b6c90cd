extension HostedApp {
    /// A part of the browser renderer that only the apps that name it load: the components of a
    /// few node kinds that most apps never draw.
    ///
    /// An app names the modules its windows need in ``HostedApp/init(name:title:summary:rendererModules:makeDelegate:parts:)``;
    /// its page preloads them and names them to the renderer, which imports them before it draws.
    /// Another app's page loads none of them.
    ///
    /// ```swift
    /// HostedApp(name: "chat", title: "Chat", summary: "…", rendererModules: [.chat]) { ChatAppDelegate(logger: $0) }
    /// ```
    public struct RendererModule: Hashable, Sendable {
        /// The module's name, as the app's page gives it to the renderer (`components/index.js`
        /// knows each name and the kinds it draws).
        public let name: String
        /// The module's file, under the renderer's folder.
        let path: String

        /// Conversations: message lists, messages and composers (node kinds `messageList`,
        /// `message`, `composer`), in `js/components/chat.js`. Split views are every app's.
        public static let chat = RendererModule(name: "chat", path: "js/components/chat.js")
    }
}
