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
