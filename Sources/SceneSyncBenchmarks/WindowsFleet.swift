#if os(Linux)
import Foundation
import Glibc
import SceneSync
import SceneSyncServer
import SceneSyncUI
import SceneSyncServerTesting

/// Many LootLogger windows at once, each a `WindowClient` on its own WebSocket, as many browser
/// tabs would be.
@MainActor
enum WindowsFleet {
    /// The app every window opens.
    nonisolated static let app = "lootlogger"

    /// Opens `count` windows, `batch` at a time, and returns once each has said hello and received
    /// its first render.
    static func open(_ count: Int, port: Int, batch: Int, timeout: Duration = .seconds(120)) async throws -> [WindowClient] {
        var windows: [WindowClient] = []
        windows.reserveCapacity(count)
        while windows.count < count {
            let size = min(batch, count - windows.count)
            let opened = try await withThrowingTaskGroup(of: WindowClient.self) { group in
                for _ in 0..<size {
                    group.addTask { try await WindowClient.connect(port: port, app: app) }
                }
                var opened: [WindowClient] = []
                for try await window in group { opened.append(window) }
                return opened
            }
            for window in opened { window.hello() }
            for window in opened {
                try await window.waitUntil("a window's first render", timeout: timeout) { window.view != nil || window.isClosed }
                try check(window)
            }
            windows += opened
        }
        return windows
    }

    /// Closes every window, `batch` at a time, as closing their tabs would.
    static func close(_ windows: [WindowClient], batch: Int) async {
        for start in stride(from: 0, to: windows.count, by: batch) {
            await withTaskGroup(of: Void.self) { group in
                for window in windows[start..<min(start + batch, windows.count)] {
                    group.addTask { try? await window.close() }
                }
            }
        }
    }

    /// Throws if the window is closed, could not apply what it was sent, or was sent an error.
    static func check(_ window: WindowClient) throws(WindowsBenchmarkError) {
        if window.isClosed { throw .unexpected("a window's socket closed (code \(window.closeCode.map(String.init) ?? "none"))") }
        if let problem = window.problems.first { throw .unexpected("a window is out of step: \(problem)") }
        if let error = window.messages.last(where: { $0.type == .error }) { throw .unexpected("a window was sent \(error)") }
    }

    /// Raises this process's open-file limit to at least `needed` where the hard limit allows: every
    /// window is a socket. The server, started afterwards, inherits the limit.
    ///
    /// - Returns: the soft limit now in force.
    @discardableResult
    static func raiseFileLimit(to needed: Int) -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return -1 }
        let wanted = rlim_t(needed)
        if limit.rlim_cur < wanted {
            // An unlimited hard limit is the largest value, so `min` covers it.
            limit.rlim_cur = min(wanted, limit.rlim_max)
            _ = setrlimit(resource, &limit)
            _ = getrlimit(resource, &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }
}
#endif
