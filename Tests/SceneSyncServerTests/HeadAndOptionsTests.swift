import Foundation
@testable import SceneSyncServer
import Testing

/// `HEAD` and `OPTIONS` on every route, over real sockets written by hand, so that a body sent
/// where none may be (an answer to HEAD) shows.
///
/// One test at a time: each starts a server, and a dozen starting at once on a small machine hold up
/// the other suites' servers past their timeouts.
@Suite(.serialized) struct HeadAndOptionsTests {
    /// One answer, read whole: the request asks the server to close after it.
    struct Answer {
        let status: Int
        /// Field names in lowercase; a repeated field's values joined by `, `.
        let fields: [String: String]
        let body: [UInt8]
    }

    /// Sends one request with `Connection: close` and reads until the server closes.
    static func exchange(_ method: String, _ target: String, port: Int, host: String? = nil, extra: String = "",
                         timeout: Duration = .seconds(10)) async throws -> Answer {
        let connection = try RawConnection(port: port)
        try connection.send("\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n\(extra)\r\n")
        var bytes: [UInt8] = []
        do {
            _ = try await connection.read(timeout: timeout) { received in
                bytes = received
                return nil
            }
        } catch RawConnectionError.closed {}
        return try parse(bytes)
    }

    static func parse(_ bytes: [UInt8]) throws -> Answer {
        let end = try #require(bytes.firstRange(of: Array("\r\n\r\n".utf8)), "no head in \(bytes.count) bytes")
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { "\($0), \(value)" } ?? value
        }
        return Answer(status: status, fields: fields, body: Array(bytes[end.upperBound...]))
    }

    /// The fields an answer to HEAD must share with GET's (RFC 9110 §9.3.2); `Date` may differ.
    static let sharedFields = [
        "content-type", "content-length", "etag", "cache-control", "content-security-policy", "transfer-encoding",
        "x-content-type-options", "x-frame-options", "referrer-policy",
    ]

    static func expectSecurityHeaders(_ answer: Answer, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answer.fields["x-content-type-options"] == "nosniff", sourceLocation: sourceLocation)
        #expect(answer.fields["x-frame-options"] == "DENY", sourceLocation: sourceLocation)
        #expect(answer.fields["referrer-policy"] == "no-referrer", sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        "/", "/lootlogger", "/tally", "/js/main.js", "/css/scenesync.css", "/tally/widget", "/tally/widget.json", "/lines",
        "/tally/assets/note.txt",
    ])
    func headAnswersAsGetDoesWithoutTheBody(path: String) async throws {
        let server = try await TestServer.start(lootLogger: true)
        let get = try await Self.exchange("GET", path, port: server.port)
        let head = try await Self.exchange("HEAD", path, port: server.port)
        #expect(get.status == 200)
        #expect(head.status == get.status)
        for name in Self.sharedFields {
            #expect(head.fields[name] == get.fields[name], "\(name)")
        }
        #expect(head.fields["content-type"] != nil)
        #expect(get.fields["content-length"] == String(get.body.count))
        #expect(!get.body.isEmpty)
        #expect(head.body.isEmpty)
        Self.expectSecurityHeaders(head)
        try await server.stop()
    }

    @Test func headOnTheWidgetsSummaryKeepsItsETagAndItsNotModified() async throws {
        let server = try await TestServer.start()
        let get = try await Self.exchange("GET", "/tally/widget.json", port: server.port)
        let etag = try #require(get.fields["etag"])
        let head = try await Self.exchange("HEAD", "/tally/widget.json", port: server.port)
        #expect(head.fields["etag"] == etag)
        let unchanged = try await Self.exchange("HEAD", "/tally/widget.json", port: server.port, extra: "If-None-Match: \(etag)\r\n")
        #expect(unchanged.status == 304)
        #expect(unchanged.fields["etag"] == etag)
        #expect(unchanged.body.isEmpty)
        try await server.stop()
    }

    @Test func headOnTheMetricsFromLoopbackAnswersAsGetDoes() async throws {
        let server = try await MetricsServer.start()
        let get = try await Self.exchange("GET", "/metrics", port: server.port)
        let head = try await Self.exchange("HEAD", "/metrics", port: server.port)
        #expect(get.status == 200)
        #expect(head.status == 200)
        #expect(head.fields["content-type"] == get.fields["content-type"])
        #expect(head.fields["cache-control"] == get.fields["cache-control"])
        // The counts move between two scrapes, and so may the length; both have one.
        #expect(Int(head.fields["content-length"] ?? "") ?? 0 > 0)
        #expect(!get.body.isEmpty)
        #expect(head.body.isEmpty)
        Self.expectSecurityHeaders(head)
        try await server.stop()
    }

    @Test(arguments: ["/nothing", "/js/missing.js", "/css/none.css", "/a/b/c", "/nothing/widget.json", "/tally/assets/none.txt", "/ws/tally"])
    func headOnAMissingPathIsNotFoundWithoutABody(path: String) async throws {
        let server = try await TestServer.start()
        let get = try await Self.exchange("GET", path, port: server.port)
        let head = try await Self.exchange("HEAD", path, port: server.port)
        #expect(get.status == 404)
        #expect(head.status == 404)
        #expect(head.fields["content-length"] == get.fields["content-length"])
        #expect(head.body.isEmpty)
        Self.expectSecurityHeaders(head)
        try await server.stop()
    }

    @Test func refusalsOfHeadHaveNoBody() async throws {
        let server = try await TestServer.start(token: "s3cret")
        // Refused by the router: another host, and an app's route without the token.
        let refused = try await Self.exchange("HEAD", "/", port: server.port, host: "evil.example:\(server.port)")
        #expect(refused.status == 421)
        #expect(Int(refused.fields["content-length"] ?? "") ?? 0 > 0)
        #expect(refused.body.isEmpty)
        Self.expectSecurityHeaders(refused)
        let unauthorized = try await Self.exchange("HEAD", "/tally/widget.json", port: server.port)
        #expect(unauthorized.status == 401)
        #expect(unauthorized.body.isEmpty)
        let authorized = try await Self.exchange("HEAD", "/tally/widget.json", port: server.port, extra: "Authorization: Bearer s3cret\r\n")
        #expect(authorized.status == 200)
        #expect(authorized.body.isEmpty)
        // Refused as its head arrives, before any router: a target naming another host.
        let absolute = try await Self.exchange("HEAD", "http://evil.example/", port: server.port)
        #expect(absolute.status == 421)
        #expect(Int(absolute.fields["content-length"] ?? "") ?? 0 > 0)
        #expect(absolute.body.isEmpty)
        Self.expectSecurityHeaders(absolute)
        try await server.stop()
    }

    @Test func headOnTheWidgetsEventsAnswersTheHeadAndEnds() async throws {
        let server = try await TestServer.start()
        let connection = try RawConnection(port: server.port)
        // On one connection, kept alive: the stream's head, then another request. Were the stream
        // held open, the second would never be answered, nor the connection closed.
        try connection.send("HEAD /tally/widget/events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n"
            + "GET /tally/widget.json HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
        var bytes: [UInt8] = []
        do {
            _ = try await connection.read(timeout: .seconds(10)) { received in
                bytes = received
                return nil
            }
        } catch RawConnectionError.closed {}
        let stream = try Self.parse(bytes)
        #expect(stream.status == 200)
        #expect(stream.fields["content-type"] == "text/event-stream")
        #expect(stream.fields["cache-control"] == "no-cache")
        // As GET's: a stream has no length.
        #expect(stream.fields["content-length"] == nil)
        Self.expectSecurityHeaders(stream)
        // Nothing of a stream between the two answers: the next one starts right after the head.
        let summary = try Self.parse(stream.body)
        #expect(summary.status == 200)
        #expect(summary.fields["content-type"] == "application/json; charset=utf-8")
        // The GET stream still streams.
        let follower = try RawConnection(port: server.port)
        try follower.send(RawConnection.get("/tally/widget/events", port: server.port))
        #expect(try await follower.head().contains("text/event-stream"))
        try await server.stop()
    }

    @Test(arguments: [
        ("/", "GET, HEAD, OPTIONS"), ("/tally", "GET, HEAD, OPTIONS"), ("/js/main.js", "GET, HEAD, OPTIONS"),
        ("/tally/widget/events", "GET, HEAD, OPTIONS"), ("/lines", "GET, HEAD, OPTIONS, POST"),
        ("/tally/assets/note.txt", "GET, HEAD, OPTIONS"),
    ])
    func optionsListsThePathsMethods(path: String, allow: String) async throws {
        let server = try await TestServer.start()
        let answer = try await Self.exchange("OPTIONS", path, port: server.port)
        #expect(answer.status == 204)
        #expect(answer.fields["allow"] == allow)
        #expect(answer.fields["content-length"] == nil)
        #expect(answer.body.isEmpty)
        #expect(answer.fields["access-control-allow-origin"] == nil)
        #expect(answer.fields["access-control-allow-methods"] == nil)
        Self.expectSecurityHeaders(answer)
        try await server.stop()
    }

    @Test(arguments: ["/nothing", "/js/missing.js", "/a/b/c", "/nothing/widget/events", "/tally/assets/none.txt", "/ws/tally"])
    func optionsOnAMissingPathIsNotFound(path: String) async throws {
        let server = try await TestServer.start()
        let answer = try await Self.exchange("OPTIONS", path, port: server.port)
        #expect(answer.status == 404)
        #expect(answer.fields["allow"] == nil)
        Self.expectSecurityHeaders(answer)
        try await server.stop()
    }

    @Test func optionsOnAnAppsRouteTakesTheToken() async throws {
        let server = try await TestServer.start(token: "s3cret")
        #expect(try await Self.exchange("OPTIONS", "/lines", port: server.port).status == 401)
        let authorized = try await Self.exchange("OPTIONS", "/lines", port: server.port, extra: "Authorization: Bearer s3cret\r\n")
        #expect(authorized.status == 204)
        #expect(authorized.fields["allow"] == "GET, HEAD, OPTIONS, POST")
        // The pages stay public, as their GET is.
        #expect(try await Self.exchange("OPTIONS", "/tally", port: server.port).status == 204)
        // And another host is refused, as for every method.
        let refused = try await Self.exchange("OPTIONS", "/", port: server.port, host: "evil.example:\(server.port)")
        #expect(refused.status == 421)
        #expect(refused.fields["allow"] == nil)
        Self.expectSecurityHeaders(refused)
        try await server.stop()
    }
}
