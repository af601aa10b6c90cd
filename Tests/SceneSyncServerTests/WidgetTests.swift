import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SceneSync
@testable import SceneSyncServer
import SceneSyncServerTesting
import Testing

/// An app's widget summary over HTTP: the JSON with its `ETag`, `304` while it has not changed,
/// and a Server-Sent Events stream that tells its followers the newest summary as it changes.
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

    @Test func followersAreBoundedPerAddressAndInAll() async throws {
        let server = try await TestServer.start(maximumWidgetFollowers: 3, maximumWidgetFollowersPerAddress: 2)
        func follow(from address: String) async throws -> (RawConnection, String) {
            let stream = try RawConnection(port: server.port, from: address)
            try stream.send(RawConnection.get("/tally/widget/events", port: server.port))
            return (stream, try await stream.head())
        }
        let (first, firstHead) = try await follow(from: "127.0.0.1")
        let (second, secondHead) = try await follow(from: "127.0.0.1")
        #expect(firstHead.hasPrefix("HTTP/1.1 200") && secondHead.hasPrefix("HTTP/1.1 200"))
        let (_, overAddress) = try await follow(from: "127.0.0.1")
        #expect(overAddress.hasPrefix("HTTP/1.1 503"))
        #expect(overAddress.lowercased().contains("retry-after: 5"))
        let (third, thirdHead) = try await follow(from: "127.0.0.2")
        #expect(thirdHead.hasPrefix("HTTP/1.1 200"))
        let (_, overAll) = try await follow(from: "127.0.0.3")
        #expect(overAll.hasPrefix("HTTP/1.1 503"))
        _ = (first, second, third)
        try await server.stop()
    }

    @Test func followersAreToldTheNewestSummaryAtMostFourTimesASecond() async throws {
        let (changes, feedContinuation) = AsyncStream.makeStream(of: WidgetSummary.self)
        let hub = WidgetHub(feed: WidgetFeed(current: { Self.summary(0) }, changes: { changes }))
        let running = Task { try await hub.run() }
        let follower = try await hub.follow(from: "127.0.0.1")
        var received: [String] = []
        let reading = Task {
            var received: [String] = []
            for await published in follower {
                received.append(String(buffer: published.body))
                if received.last?.contains(#""text":"200""#) == true { break }
            }
            return received
        }
        let started = ContinuousClock.now
        for number in 1...200 {
            feedContinuation.yield(Self.summary(number))
            try await Task.sleep(for: .milliseconds(5))
        }
        received = await reading.value
        let elapsed = ContinuousClock.now - started
        // The first, then at most one per quarter second (and one more for the last change).
        let allowed = 2 + Int((elapsed / .milliseconds(250)).rounded(.up))
        #expect(received.count <= allowed, "\(received.count) summaries in \(elapsed), at most \(allowed) allowed")
        #expect(received.last?.contains(#""text":"200""#) == true)
        feedContinuation.finish()
        try await running.value
    }

    static func summary(_ number: Int) -> WidgetSummary {
        WidgetSummary(title: "Tally", lines: [.init(label: "Lines", text: "\(number)")])
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
