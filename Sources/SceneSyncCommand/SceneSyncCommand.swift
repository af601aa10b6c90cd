import ArgumentParser

/// `scenesync`: serves SceneSync apps to browsers. `serve` is the default subcommand.
@main
struct SceneSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenesync",
        abstract: "Serve SceneSync apps: every browser window a scene, in step with every other.",
        subcommands: [Serve.self],
        defaultSubcommand: Serve.self
    )
}
