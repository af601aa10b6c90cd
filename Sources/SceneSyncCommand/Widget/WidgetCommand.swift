import ArgumentParser
import Foundation
import SceneSync
import SceneSyncServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `scenesync widget <app>`: an app's summary, at once from the cache, then from the server.
struct WidgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "widget",
        abstract: "Show an app's widget: its last summary at once, then the server's.",
        discussion: """
            The summary last seen is printed at once from a cache file (in --cache-dir, by default \
            $XDG_CACHE_HOME/scenesync or ~/.cache/scenesync). Then the server is asked \
            (GET /<app>/widget.json with If-None-Match), and the summary is drawn again only if it \
            changed. When the server cannot be reached, the cached summary stays, marked stale with \
            its age. With --follow, it is redrawn on every change (Server-Sent Events from \
            /<app>/widget/events) until stopped, and marked stale while the server is away.

            On a terminal the summary is one block of lines redrawn in place; piped, each drawing is \
            one line.

            Exit status: 0 the server's summary was shown; 2 the server could not be reached and \
            the cached summary was shown, marked stale; 3 the server could not be reached and \
            nothing was cached; 4 the server refused (no such app, or it needs --token); 64 bad \
            arguments. With --follow it runs until interrupted.
            """)

    @Argument(help: "The app, as in its URL: lootlogger, restaurant.")
    var app: String

    @Option(help: "The server.")
    var server = "http://127.0.0.1:8080"

    @Flag(help: "Redraw on every change until interrupted.")
    var follow = false

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Where to keep the last summary.", valueName: "folder"))
    var cacheDirectory: String?

    @Option(help: "The server's access token, if it has one.")
    var token: String?

    @Option(help: ArgumentHelp("How long to wait for the server.", valueName: "seconds"))
    var timeout: Double = 5

    func validate() throws {
        guard HostedApp.isValidName(app) else { throw ValidationError("\(app.debugDescription) is not an app's name.") }
        guard (try? address()) != nil else { throw ValidationError("--server must be http://host[:port], not \(server.debugDescription).") }
        guard timeout.isFinite, timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be above 0 and at most 600 seconds.") }
    }

    func run() throws {
        let (host, port) = try address()
        let folder = cacheDirectory.map { URL(fileURLWithPath: $0) } ?? CachedSummary.defaultFolder()
        let file = CachedSummary.file(in: folder, host: host, port: port, app: app)
        var display = WidgetDisplay(isTerminal: isatty(STDOUT_FILENO) != 0)
        var shown = CachedSummary.read(file)
        if let shown { display.draw(shown.summary, freshness: .current, now: Self.now()) }

        let http = WidgetHTTP(host: host, port: port, timeout: .milliseconds(Int64(timeout * 1000)))
        var fields: [String: String] = [:]
        if let token { fields["Authorization"] = "Bearer \(token)" }
        var isStale = false

        /// Shows `summary` if it differs from what is shown, and keeps it.
        func show(_ summary: WidgetSummary, etag: String) {
            let fresh = CachedSummary(summary: summary, etag: etag, confirmedAt: Self.now())
            if shown?.etag != etag || shown?.summary != summary || isStale {
                display.draw(summary, freshness: .current, now: fresh.confirmedAt)
            }
            isStale = false
            shown = fresh
            fresh.write(to: file)
        }

        /// Marks what is shown stale, once; `false` if nothing is shown.
        func markStale() -> Bool {
            guard let shown else { return false }
            if !isStale { display.draw(shown.summary, freshness: .stale(since: shown.confirmedAt), now: Self.now()) }
            isStale = true
            return true
        }

        do {
            var asking = fields
            if let etag = shown?.etag { asking["If-None-Match"] = etag }
            let (head, body) = try http.get("/\(app)/widget.json", fields: asking)
            switch head.status {
            case 200:
                guard let summary = try? JSONDecoder().decode(WidgetSummary.self, from: Data(body)) else {
                    throw WidgetError.badResponse("the summary is not a widget summary")
                }
                show(summary, etag: head.fields["etag"] ?? "")
            case 304:
                if var confirmed = shown {
                    confirmed.confirmedAt = Self.now()
                    confirmed.write(to: file)
                    shown = confirmed
                }
            default:
                throw WidgetError.refused(status: head.status)
            }
        } catch let error as WidgetError {
            if case .refused = error {
                Self.complain(error)
                throw ExitCode(4)
            }
            guard follow else {
                guard markStale() else {
                    Self.complain(error)
                    throw ExitCode(3)
                }
                throw ExitCode(2)
            }
            _ = markStale()
        }
        guard follow else { return }

        while true {
            do {
                try http.events("/\(app)/widget/events", fields: fields) { id, data in
                    guard let summary = try? JSONDecoder().decode(WidgetSummary.self, from: Data(data.utf8)) else { return }
                    show(summary, etag: id ?? "")
                }
            } catch {
                if case .refused = error {
                    Self.complain(error)
                    throw ExitCode(4)
                }
            }
            // The stream ended or failed: the server went away. Try again shortly.
            _ = markStale()
            Thread.sleep(forTimeInterval: 1)
        }
    }

    /// The server's host and port.
    private func address() throws -> (String, Int) {
        guard let url = URL(string: server), url.scheme == "http", let host = url.host, !host.isEmpty,
              url.path.isEmpty || url.path == "/", url.query == nil else {
            throw ValidationError("bad --server")
        }
        return (host, url.port ?? 80)
    }

    private static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    private static func complain(_ error: WidgetError) {
        FileHandle.standardError.write(Data("scenesync widget: \(error)\n".utf8))
    }
}
