import Foundation
@testable import SceneSyncServer
import Testing

/// What a window may send at the WebSocket level: text messages, whole and under the limit.
@Suite struct WebSocketStrictnessTests {
    @Test func aBinaryMessageClosesTheSocketWith1003() async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        try socket.send(opcode: 0x2, Array(#"{"type":"ping","v":1}"#.utf8))
        #expect(try await socket.closeCode() == 1003)
        try await server.stop()
    }

    @Test func anUnmaskedFrameClosesTheSocketWith1002() async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        try socket.send(opcode: 0x1, Array(#"{"type":"hello","v":1,"visible":true,"focused":true}"#.utf8))
        try socket.send(opcode: 0x1, Array(#"{"type":"ping","v":1}"#.utf8), masked: false)
        #expect(try await socket.closeCode() == 1002)
        try await server.stop()
    }

    @Test func maskedFramesOfEverySizeAreRead() async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        try socket.send(opcode: 0x1, Array(#"{"type":"hello","v":1,"visible":true,"focused":true}"#.utf8))
        // Payload lengths in each of the header's three forms: 7 bits, 16 bits, 64 bits.
        for padding in [0, 200, 70_000] {
            try socket.send(opcode: 0x1, Array(#"{"type":"ping","v":1,"x":""#.utf8) + Array(repeating: 0x20, count: padding) + Array(#""}"#.utf8))
        }
        try socket.send(opcode: 0x1, Array(#"{"type":"ping","v":1}"#.utf8))
        let messages = try await socket.textMessages { $0.contains(#""type":"pong""#) }
        #expect(messages.filter { $0.contains(#""code":"malformed""#) || $0.contains(#""code":"tooLarge""#) }.count == 3,
                "each padded ping was read whole, and refused for its extra field or its size")
        try socket.send(opcode: 0x8, [0x03, 0xE8])
        #expect(try await socket.closeCode() == 1000)
        try await server.stop()
    }

    @Test func textThatIsNotUTF8ClosesTheSocketWith1007() async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        try socket.send(opcode: 0x1, Array(#"{"type":"ping","v":1,"x":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8))
        #expect(try await socket.closeCode() == 1007)
        try await server.stop()
    }

    @Test func fragmentsAddingUpToMoreThanTheLimitCloseTheSocketWith1009() async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        let part = [UInt8](repeating: UInt8(ascii: "x"), count: 700 * 1024)
        try socket.send(opcode: 0x1, part, fin: false)
        try socket.send(opcode: 0x0, part, fin: true)
        #expect(try await socket.closeCode() == 1009)
        try await server.stop()
    }
}
