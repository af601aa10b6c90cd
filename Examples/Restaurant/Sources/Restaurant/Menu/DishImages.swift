public import Foundation

/// The dishes' pictures: a folder of `<id>.png` files, and a plate for dishes without one.
///
/// The windows show them from the app's assets (`/restaurant/assets/<file>`); the menu API serves
/// the same files at `/images/<id>.png`.
public struct DishImages: Sendable {
    /// The folder the pictures are in.
    public let folder: URL
    /// The picture shown for a dish that has none of its own.
    public static let placeholder = "dish.png"
    private let files: Set<String>

    /// The pictures in `folder`.
    public init(folder: URL) {
        self.folder = folder
        files = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".png") }
    }

    /// The pictures that ship with Restaurant, drawn by `Examples/Restaurant/Scripts/draw_dishes.py`.
    public static func standard() -> DishImages? {
        Bundle.module.url(forResource: "Images", withExtension: nil, subdirectory: "Resources").map(DishImages.init(folder:))
    }

    /// The name of the file that pictures the dish `id`: its own, or the plate.
    public func fileName(for id: Int) -> String {
        let own = "\(id).png"
        return files.contains(own) ? own : Self.placeholder
    }

    /// The PNG that pictures the dish `id`.
    public func data(for id: Int) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(fileName(for: id)))
    }
}
