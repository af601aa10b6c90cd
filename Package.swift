// swift-tools-version: 6.1
import PackageDescription

/// Compiler settings shared by every target: Swift 6 language mode with strict checking.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "SceneSync",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "SceneSync", targets: ["SceneSync"]),
        .library(name: "SceneSyncSQLite", targets: ["SceneSyncSQLite"]),
        .library(name: "SceneSyncTesting", targets: ["SceneSyncTesting"]),
        .library(name: "LootLogger", targets: ["LootLogger"]),
        .executable(name: "scenesync-bench", targets: ["SceneSyncBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The core: model controllers, update events, scene lifecycle, restoration.
        // Foundation and swift-log only, so it builds on Apple platforms too.
        .target(
            name: "SceneSync",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Persistence on SQLite through GRDB.
        .target(
            name: "SceneSyncSQLite",
            dependencies: [
                "SceneSync",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // A headless scene host and an event recorder for tests.
        .target(
            name: "SceneSyncTesting",
            dependencies: [
                "SceneSync",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Example app: LootLogger's item store.
        .target(
            name: "LootLogger",
            dependencies: ["SceneSync"],
            path: "Examples/LootLogger/Sources/LootLogger",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "SceneSyncBenchmarks",
            dependencies: [
                "SceneSync",
                "SceneSyncSQLite",
                "LootLogger",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SceneSyncTests",
            dependencies: [
                "SceneSync", "SceneSyncSQLite", "SceneSyncTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LootLoggerTests",
            dependencies: [
                "LootLogger", "SceneSync", "SceneSyncSQLite", "SceneSyncTesting",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Examples/LootLogger/Tests/LootLoggerTests",
            swiftSettings: swiftSettings
        ),
    ]
)
