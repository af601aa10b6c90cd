// swift-tools-version: 6.1
import PackageDescription

/// Compiler settings shared by every target: Swift 6 language mode with strict checking.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// OpenCombine, where Apple's Combine is missing.
let openCombine: Target.Dependency = .product(
    name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd]))

let package = Package(
    name: "SceneSync",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "SceneSync", targets: ["SceneSync"]),
        .library(name: "SceneSyncUI", targets: ["SceneSyncUI"]),
        .library(name: "SceneSyncSQLite", targets: ["SceneSyncSQLite"]),
        .library(name: "SceneSyncPostgres", targets: ["SceneSyncPostgres"]),
        .library(name: "SceneSyncTesting", targets: ["SceneSyncTesting"]),
        .library(name: "SceneSyncServer", targets: ["SceneSyncServer"]),
        .library(name: "SceneSyncServerTesting", targets: ["SceneSyncServerTesting"]),
        .library(name: "SceneSyncCombine", targets: ["SceneSyncCombine"]),
        .library(name: "SceneSyncMetrics", targets: ["SceneSyncMetrics"]),
        .library(name: "LootLogger", targets: ["LootLogger"]),
        .library(name: "Restaurant", targets: ["Restaurant"]),
        .library(name: "RestaurantServer", targets: ["RestaurantServer"]),
        .library(name: "Chat", targets: ["Chat"]),
        .library(name: "Dashboard", targets: ["Dashboard"]),
        .executable(name: "scenesync", targets: ["SceneSyncCommand"]),
        .executable(name: "scenesync-bench", targets: ["SceneSyncBenchmarks"]),
        .executable(name: "scenesync-fuzz", targets: ["SceneSyncFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `swift package generate-documentation`, which scripts/build-docs runs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The core: model controllers, update events, scene lifecycle, restoration.
        // Foundation and swift-log only, so it builds on Apple platforms too.
        .target(
            name: "SceneSync",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Model controllers measured through swift-metrics' API; whoever runs them picks the backend.
        .target(
            name: "SceneSyncMetrics",
            dependencies: ["SceneSync", .product(name: "CoreMetrics", package: "swift-metrics")],
            swiftSettings: swiftSettings
        ),
        // Windows: screens, navigation, coordinators, the view tree and patches. Foundation and
        // swift-log only, like the core, so it builds on Apple platforms too.
        .target(
            name: "SceneSyncUI",
            dependencies: ["SceneSync", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Publishers for model controllers' events and state: Apple's Combine where it exists,
        // OpenCombine elsewhere. The core and the UI layer stay free of either.
        .target(
            name: "SceneSyncCombine",
            dependencies: ["SceneSync", openCombine],
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
        // Persistence on PostgreSQL through postgres-nio: several nodes sharing one log per app.
        .target(
            name: "SceneSyncPostgres",
            dependencies: [
                "SceneSync",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // A headless scene host, an event recorder, and the storage conformance suite.
        .target(
            name: "SceneSyncTesting",
            dependencies: [
                "SceneSync",
                "SceneSyncUI",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The system's zlib, to gzip the renderer's files once at start.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The server: every browser window a scene, over one WebSocket each; the wire protocol's
        // encoding and decoding; serves the renderer.
        .target(
            name: "SceneSyncServer",
            dependencies: [
                "CZlib",
                "SceneSync",
                "SceneSyncUI",
                "SceneSyncMetrics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Public")],
            swiftSettings: swiftSettings
        ),
        // A WebSocket client that speaks the window protocol as a browser does, for tests.
        .target(
            name: "SceneSyncServerTesting",
            dependencies: [
                "SceneSync",
                "SceneSyncUI",
                "SceneSyncServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // `scenesync`: serves the example apps.
        .executableTarget(
            name: "SceneSyncCommand",
            dependencies: [
                "SceneSyncServer",
                "SceneSyncSQLite",
                "SceneSyncPostgres",
                "LootLogger",
                "Restaurant",
                "RestaurantServer",
                "Chat",
                "Dashboard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SceneSyncServerTests",
            dependencies: [
                "SceneSyncServer", "SceneSyncServerTesting", "SceneSync", "SceneSyncUI", "SceneSyncSQLite", "SceneSyncTesting",
                "SceneSyncTestSupport", "LootLogger", "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        // Example app: LootLogger's item store.
        .target(
            name: "LootLogger",
            dependencies: ["SceneSync", "SceneSyncUI"],
            path: "Examples/LootLogger/Sources/LootLogger",
            swiftSettings: swiftSettings
        ),
        // Example app: the course's restaurant — menu, a shared order, the kitchen's countdown.
        .target(
            name: "Restaurant",
            dependencies: ["SceneSync", "SceneSyncUI", "SceneSyncCombine", openCombine],
            path: "Examples/Restaurant/Sources/Restaurant",
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        // Restaurant's HTTP side: the course's menu API, the dishes' pictures, the kitchen timer.
        .target(
            name: "RestaurantServer",
            dependencies: [
                "Restaurant", "SceneSync", "SceneSyncServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Restaurant/Sources/RestaurantServer",
            swiftSettings: swiftSettings
        ),
        // Example app: WWDC's chat, made multi-window — people, conversations side by side with their
        // list, drafts per window, typing that is never stored.
        .target(
            name: "Chat",
            dependencies: ["SceneSync", "SceneSyncUI", .product(name: "Logging", package: "swift-log")],
            path: "Examples/Chat/Sources/Chat",
            swiftSettings: swiftSettings
        ),
        // Example app: a live, read-only dashboard of the cluster — every node, its windows, each
        // app's events per second — from the reports the nodes publish.
        .target(
            name: "Dashboard",
            dependencies: ["SceneSync", "SceneSyncUI", "SceneSyncServer", .product(name: "Logging", package: "swift-log")],
            path: "Examples/Dashboard/Sources/Dashboard",
            swiftSettings: swiftSettings
        ),
        // What only an optimized build can get wrong, run by CI in a release build.
        .executableTarget(
            name: "SceneSyncReleaseCheck",
            dependencies: ["SceneSync", "SceneSyncMetrics"],
            path: "Tests/ReleaseCheck",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "SceneSyncFuzz",
            dependencies: ["SceneSyncServer"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "SceneSyncBenchmarks",
            dependencies: [
                "SceneSync",
                "SceneSyncUI",
                "SceneSyncServer",
                "SceneSyncSQLite",
                "SceneSyncPostgres",
                "SceneSyncServerTesting",
                "LootLogger",
                "Restaurant",
                "RestaurantServer",
                "Chat",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // The fan-out floor: a bare WebSocket server on the server's own stack.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the test targets share: storages to run shared test bodies on, temporary folders.
        .target(
            name: "SceneSyncTestSupport",
            dependencies: ["SceneSyncSQLite"],
            path: "Tests/Support",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SceneSyncTests",
            dependencies: [
                "SceneSync", "SceneSyncUI", "SceneSyncSQLite", "SceneSyncTesting", "SceneSyncTestSupport", "SceneSyncMetrics",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SceneSyncPostgresTests",
            dependencies: [
                "SceneSyncPostgres", "SceneSync", "SceneSyncTesting", "SceneSyncTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LootLoggerTests",
            dependencies: [
                "LootLogger", "SceneSync", "SceneSyncUI", "SceneSyncSQLite", "SceneSyncTesting", "SceneSyncTestSupport",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Examples/LootLogger/Tests/LootLoggerTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SceneSyncCombineTests",
            dependencies: [
                "SceneSyncCombine", "SceneSync", "SceneSyncTesting", "SceneSyncTestSupport", openCombine,
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RestaurantTests",
            dependencies: [
                "Restaurant", "SceneSync", "SceneSyncUI", "SceneSyncCombine", "SceneSyncSQLite", "SceneSyncTesting",
                "SceneSyncTestSupport", openCombine,
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Restaurant/Tests/RestaurantTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RestaurantServerTests",
            dependencies: [
                "RestaurantServer", "Restaurant", "SceneSync", "SceneSyncUI", "SceneSyncServer", "SceneSyncServerTesting",
                "SceneSyncSQLite", "SceneSyncTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/Restaurant/Tests/RestaurantServerTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChatTests",
            dependencies: [
                "Chat", "SceneSync", "SceneSyncUI", "SceneSyncSQLite", "SceneSyncTesting", "SceneSyncTestSupport",
                "SceneSyncServer", "SceneSyncServerTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Chat/Tests/ChatTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DashboardTests",
            dependencies: [
                "Dashboard", "SceneSync", "SceneSyncUI", "SceneSyncSQLite", "SceneSyncTesting", "SceneSyncTestSupport",
                "SceneSyncServer", "SceneSyncServerTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/Dashboard/Tests/DashboardTests",
            swiftSettings: swiftSettings
        ),
    ]
)
