import ArgumentParser

/// `scenesync`: serves SceneSync apps to browsers (`serve`, the default), and shows an app's
/// widget (`widget`).
@main
struct SceneSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenesync",
        abstract: "Serve SceneSync apps: every browser window a scene, in step with every other.",
        subcommands: [Serve.self, WidgetCommand.self],
        defaultSubcommand: Serve.self
    )
}
