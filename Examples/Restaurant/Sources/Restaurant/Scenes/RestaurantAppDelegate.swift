public import Logging
public import SceneSync

/// Restaurant's application delegate: opens the one ``RestaurantController`` at launch and gives
/// every window a ``RestaurantSceneDelegate`` sharing it.
@MainActor
public final class RestaurantAppDelegate: ApplicationDelegate {
    /// The restaurant, open after launch.
    public private(set) var restaurant: RestaurantController?
    /// The menu it serves.
    public let menu: Menu
    /// Where the windows find the dishes' pictures: a URL path ending in `/`, such as `/restaurant/assets/`.
    public let imagesPath: String
    private let images: DishImages?
    private let clock: KitchenClock
    private let limits: OrderLimits
    private let logger: Logger

    /// Creates the delegate for `menu`, with the dishes' `images` served at `imagesPath`, and the
    /// kitchen's `limits`.
    public init(
        menu: Menu, images: DishImages?, imagesPath: String = "/restaurant/assets/", clock: KitchenClock = .system,
        limits: OrderLimits = .init(), logger: Logger
    ) {
        self.menu = menu
        self.images = images
        self.imagesPath = imagesPath
        self.clock = clock
        self.limits = limits
        self.logger = logger
    }

    public func applicationDidFinishLaunching(_ application: Application) async throws {
        restaurant = try await RestaurantController(menu: menu, storage: application.storage, clock: clock, limits: limits, logger: logger)
    }

    public func application(
        _ application: Application,
        configurationForConnecting session: SceneSession,
        options: ConnectionOptions
    ) -> SceneConfiguration {
        guard let restaurant else { preconditionFailure("Scenes connect only after applicationDidFinishLaunching opened the restaurant") }
        let pictures = DishPictures(images: images, path: imagesPath)
        return SceneConfiguration(name: "Main") {
            RestaurantSceneDelegate(restaurant: restaurant, pictures: pictures)
        }
    }
}

/// Where a window finds a dish's picture.
public struct DishPictures: Sendable {
    let images: DishImages?
    let path: String

    /// The URL of the picture of the dish `id`, or `nil` without pictures.
    public func url(for id: Int) -> String? {
        images.map { path + $0.fileName(for: id) }
    }
}
