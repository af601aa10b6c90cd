import Foundation
import SceneSync

/// Why the widget could not show the server's summary.
enum WidgetError: Error, CustomStringConvertible {
    /// The server could not be reached, or did not answer in time.
    case unreachable(String)
    /// The server answered with a status other than 200 or 304.
    case refused(status: Int)
    /// The server's answer could not be read.
    case badResponse(String)

    var description: String {
        switch self {
        case let .unreachable(reason): "The server cannot be reached: \(reason)."
        case let .refused(status) where status == 404: "The server has no widget for this app (404)."
        case let .refused(status) where status == 401: "The server needs its access token (--token)."
        case let .refused(status): "The server answered \(status)."
        case let .badResponse(reason): "The server's answer cannot be read: \(reason)."
        }
    }
}

/// The last summary the server gave, kept in a file so that the next run shows it at once.
struct CachedSummary: Codable, Equatable {
    var summary: WidgetSummary
    /// The summary's `ETag`, for `If-None-Match`.
    var etag: String
    /// When the server last confirmed it, in milliseconds since 1970.
    var confirmedAt: Int64

    /// The cache file for one app of one server, in `folder`.
    static func file(in folder: URL, host: String, port: Int, app: String) -> URL {
        let safeHost = host.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? String($0) : "_" }.joined()
        return folder.appendingPathComponent("widget-\(safeHost)-\(port)-\(app).json")
    }

    /// The user's cache folder for SceneSync: `$XDG_CACHE_HOME/scenesync`, `~/.cache/scenesync`, or
    /// `~/Library/Caches/scenesync` on macOS.
    static func defaultFolder() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("scenesync")
        }
        let home = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory())
        #if os(macOS)
        return home.appendingPathComponent("Library/Caches/scenesync")
        #else
        return home.appendingPathComponent(".cache/scenesync")
        #endif
    }

    /// The cached summary in `file`, if there is a readable one.
    static func read(_ file: URL) -> CachedSummary? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return try? JSONDecoder().decode(CachedSummary.self, from: data)
    }

    /// Writes it to `file` atomically; a cache that cannot be written is skipped, not an error.
    func write(to file: URL) {
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try? encoder.encode(self).write(to: file, options: .atomic)
    }
}
