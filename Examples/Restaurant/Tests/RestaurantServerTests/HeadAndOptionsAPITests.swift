#if os(Linux)
import Foundation
import Testing

/// `HEAD` and `OPTIONS` on the menu API as the real server routes it, over a socket written by
/// hand so that a body sent where none may be (an answer to HEAD) shows.
/// One test at a time, as the server suite's HeadAndOptionsTests: each starts a server.
@Suite(.serialized) struct HeadAndOptionsAPITests {
    /// Sends one request with `Connection: close` and reads until the server closes, on a thread
    /// of its own: the socket blocks, and must not hold one of the threads the server runs on.
    static func send(_ method: String, _ path: String, to server: LiveRestaurant) async throws
        -> (status: Int, headers: [String: String], body: Data) {
        let request = Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n".utf8)
        let port = server.port
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try BoundHTTPClient(source: "127.0.0.1").send(request, port: port) })
            }
        }
    }

    @Test(arguments: ["/categories", "/menu", "/menu?category=soups", "/images/1.png"])
    func headAnswersAsGetDoesWithoutTheBody(path: String) async throws {
        try await LiveRestaurant.run { server in
            let get = try await Self.send("GET", path, to: server)
            let head = try await Self.send("HEAD", path, to: server)
            #expect(get.status == 200)
            #expect(head.status == 200)
            for name in ["content-type", "content-length", "etag", "cache-control", "x-content-type-options", "x-frame-options",
                         "referrer-policy"] {
                #expect(head.headers[name] == get.headers[name], "\(name)")
            }
            #expect(get.headers["content-length"] == String(get.body.count))
            #expect(!get.body.isEmpty)
            #expect(head.body.isEmpty)
        }
    }

    @Test func headOnAMissingPictureIsNotFoundWithoutABody() async throws {
        try await LiveRestaurant.run { server in
            let missing = try await Self.send("GET", "/images/999.png", to: server)
            let head = try await Self.send("HEAD", "/images/999.png", to: server)
            #expect(head.status == 404)
            #expect(head.headers["content-length"] == String(missing.body.count))
            #expect(head.body.isEmpty)
        }
    }

    @Test(arguments: [("/order", "OPTIONS, POST"), ("/categories", "GET, HEAD, OPTIONS"), ("/menu", "GET, HEAD, OPTIONS"),
                      ("/images/1.png", "GET, HEAD, OPTIONS"), ("/restaurant", "GET, HEAD, OPTIONS")])
    func optionsListsThePathsMethods(path: String, allow: String) async throws {
        try await LiveRestaurant.run { server in
            let answer = try await Self.send("OPTIONS", path, to: server)
            #expect(answer.status == 204)
            #expect(answer.headers["allow"] == allow)
            #expect(answer.headers["x-content-type-options"] == "nosniff")
            #expect(answer.headers["x-frame-options"] == "DENY")
            #expect(answer.headers["access-control-allow-origin"] == nil)
            #expect(answer.body.isEmpty)
        }
    }

    @Test(arguments: ["/orders", "/images/999.png", "/nothing/at/all"])
    func optionsOnAMissingPathIsNotFound(path: String) async throws {
        try await LiveRestaurant.run { server in
            let answer = try await Self.send("OPTIONS", path, to: server)
            #expect(answer.status == 404)
            #expect(answer.headers["allow"] == nil)
        }
    }
}
#endif
