import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import SceneSyncServer
import SceneSyncServerTesting
import Testing

/// An app's widget summary over HTTP: the JSON with its `ETag`, `304` while it has not changed,
/// and a Server-Sent Events stream with one event per change.
@Suite struct WidgetTests {
    @Test func theSummaryHasAnETagAndIsNotSentAgainWhileUnchanged() async throws {
        let server = try await TestServer.start()
        let first = try await server.request("/tally/widget.json")
        #expect(first.status == .ok)
        #expect(first.headers[.contentType] == "application/json; charset=utf-8")
        #expect(first.text == #"{"lines":[{"label":"Lines","text":"0"}],"title":"Tally"}"#)
        let etag = try #require(first.headers[.eTag])
        let again = try await server.request("/tally/widget.json", headers: [.ifNoneMatch: etag])
        #expect(again.status == .notModified)
        #expect(again.text.isEmpty)
        #expect(again.headers[.eTag] == etag)

        let window = try await server.openWindow()
        _ = await window.tap(TallyScreen.NodeID.add)
        var changed = again
        let started = ContinuousClock.now
        while changed.status == .notModified, ContinuousClock.now - started < .seconds(10) {
            changed = try await server.request("/tally/widget.json", headers: [.ifNoneMatch: "W/\"other\", \(etag)"])
        }
        #expect(changed.status == .ok)
        #expect(changed.text.contains(#""text":"1""#))
        #expect(changed.headers[.eTag] != etag)
        try await server.stop()
    }

    @Test func theEventStreamSendsTheSummaryThenOneEventPerChange() async throws {
        let server = try await TestServer.start()
        let stream = try RawConnection(port: server.port)
        try stream.send(RawConnection.get("/tally/widget/events", port: server.port))
        let head = try await stream.head()
        #expect(head.hasPrefix("HTTP/1.1 200 OK"))
        #expect(head.lowercased().contains("content-type: text/event-stream"))
        #expect(try await Self.nextEvent(stream).contains(#""text":"0""#))

        let window = try await server.openWindow()
        _ = await window.tap(TallyScreen.NodeID.add)
        #expect(try await Self.nextEvent(stream).contains(#""text":"1""#))
        // Nothing changes: nothing is sent.
        await window.ping()
        await #expect(throws: RawConnectionError.self) { try await Self.nextEvent(stream, timeout: .milliseconds(500)) }
        try await server.stop()
    }

    /// The `data` line of the next event (chunked transfer framing aside).
    static func nextEvent(_ connection: RawConnection, timeout: Duration = .seconds(10)) async throws -> String {
        let bytes = try await connection.read(timeout: timeout) { received in
            received.firstRange(of: Array("\n\n".utf8)).map(\.upperBound)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.components(separatedBy: "\n").first { $0.hasPrefix("data: ") } ?? text
    }
}
