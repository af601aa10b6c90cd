import Foundation
import InMemoryLogging
import Logging
import SceneSync
@testable import SceneSyncUI
@testable import SceneSyncServer
import SceneSyncServerTesting
import Testing

/// What the server does with messages it cannot take: a typed error, and the connection carries on.
@MainActor
@Suite struct ProtocolErrorTests {
    @Test(arguments: RefusedMessage.allCases)
    func refusedMessageGetsATypedErrorAndTheConnectionStays(message: RefusedMessage) async throws {
        let server = try await TestServer.start()
        let window = try await server.openWindow()
        window.sendRaw(message.text)
        let error = try await window.next(.error)
        #expect(error.errorCode == message.code)
        window.ping()
        try await window.next(.pong)
        #expect(!window.isClosed)
        try await server.stop()
    }

    @Test func aMessageOverTheFrameLimitClosesTheSocket() async throws {
        let server = try await TestServer.start()
        let window = try await server.openWindow()
        window.sendRaw(String(repeating: "x", count: 2 << 20))
        try await window.waitUntil("the socket to close") { window.isClosed }
        #expect(window.closeCode == 1009)
        try await server.stop()
    }

    @Test func theFirstMessageMustBeHello() async throws {
        let server = try await TestServer.start()
        let window = try await server.window()
        window.ping()
        #expect(try await window.next(.error).errorCode == "helloRequired")
        window.hello()
        try await window.next(.welcome)
        window.hello()
        #expect(try await window.next(.error).errorCode == "repeatedHello")
        try await server.stop()
    }

    @Test func repeatedViolationsCloseTheWindowAndSayWhyInTheLog() async throws {
        let (log, logger) = capturedLog(.warning)
        let server = try await TestServer.start(maximumProtocolViolations: 3, logger: logger)
        let window = try await server.openWindow()
        for _ in 0..<3 { window.sendRaw("{not json") }
        window.ping()
        try await window.next(.pong)
        #expect(window.messages.filter { $0.errorCode == "malformed" }.count == 3)
        #expect(!window.isClosed, "up to the limit, each is answered and the window stays")
        window.sendRaw(#"{"type":"ping","v":1.0}"#)
        try await window.waitUntil("the socket to close") { window.isClosed }
        #expect(window.closeCode == 1008)
        #expect(log.entries.contains { $0.level == .warning && "\($0.message)".contains("repeated protocol violations") })
        try await server.stop()
    }

    @Test func aFloodIsRateLimitedAndTheConnectionStays() async throws {
        let (log, logger) = capturedLog(.warning)
        let server = try await TestServer.start(rateLimit: .init(burst: 5, perSecond: 2), logger: logger)
        let window = try await server.openWindow()
        for _ in 0..<20 { window.ping() }
        try await window.next("a rateLimited error") { $0.errorCode == "rateLimited" }
        try await window.waitUntil("the flood to be answered") {
            window.messages.filter { $0 == .pong || $0.errorCode == "rateLimited" }.count == 20
        }
        #expect(window.messages.filter { $0 == .pong }.count < 20)
        try await Task.sleep(for: .milliseconds(700))
        window.ping()
        try await window.next(.pong)
        let warnings = log.entries.filter { $0.level == .warning && "\($0.message)".contains("rate limit") }
        #expect(warnings.count == 1, "the flood is logged once, not once per message")
        try await server.stop()
    }

}

/// Messages the protocol refuses, and the error code each gets.
enum RefusedMessage: CaseIterable, Sendable, CustomTestStringConvertible {
    case notJSON, unknownType, unknownField, wrongVersion, oversized

    var text: String {
        switch self {
        case .notJSON: "{not json"
        case .unknownType: #"{"type":"dance","v":1}"#
        case .unknownField: #"{"type":"ping","v":1,"extra":true}"#
        case .wrongVersion: #"{"type":"ping","v":2}"#
        case .oversized: #"{"type":"ping","v":1,"pad":""# + String(repeating: "x", count: 70 * 1024) + #""}"#
        }
    }

    var code: String {
        switch self {
        case .notJSON, .unknownField: "malformed"
        case .unknownType: "unknownType"
        case .wrongVersion: "unsupportedVersion"
        case .oversized: "tooLarge"
        }
    }

    var testDescription: String { "\(self)" }
}
