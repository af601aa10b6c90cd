import Foundation
@testable import SceneSyncServer
import SceneSync
import SceneSyncTesting
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

    @Test func aMessageInFragmentsIsReadWhole() async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        try socket.send(opcode: 0x1, Array(#"{"type":"hello","v":1,"visible":true,"focused":true}"#.utf8))
        try socket.send(opcode: 0x1, Array(#"{"type":"#.utf8), fin: false)
        // A control frame may come between a message's fragments.
        try socket.send(opcode: 0x9, Array("between".utf8))
        try socket.send(opcode: 0x0, Array(#""ping","#.utf8), fin: false)
        try socket.send(opcode: 0x0, Array(#""v":1}"#.utf8), fin: true)
        let messages = try await socket.textMessages { $0.contains(#""type":"pong""#) }
        #expect(!messages.contains { $0.contains(#""type":"error""#) })
        try await server.stop()
    }

    @Test func aPingIsAnsweredWithItsPayload() async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        try socket.send(opcode: 0x9, Array("are you there".utf8))
        #expect(try await socket.payload(ofNext: 0xA) == Array("are you there".utf8))
        try await server.stop()
    }

    /// Frames out of sequence, and opcodes RFC 6455 keeps for later.
    @Test(arguments: [
        [(0x0, "a continuation of nothing", true)],
        [(0x1, "{", false), (0x1, "a second message before the first one's end", true)],
        [(0x1, "{", false), (0x2, "a binary message before the text one's end", true)],
        [(0x3, "a reserved data opcode", true)],
        [(0xB, "a reserved control opcode", true)],
    ] as [[(UInt8, String, Bool)]])
    func framesOutOfSequenceCloseTheSocketWith1002(frames: [(opcode: UInt8, text: String, fin: Bool)]) async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        for frame in frames {
            try socket.send(opcode: frame.opcode, Array(frame.text.utf8), fin: frame.fin)
        }
        #expect(try await socket.closeCode() == 1002)
        try await server.stop()
    }

    /// The server answers a window's close frame with its own: normal, unless the window's frame
    /// was malformed.
    @Test(arguments: [
        ([], 1000),
        ([0x03, 0xE8] + Array("bye".utf8), 1000),
        ([0x0F, 0xA0], 1000), // 4000, for applications
        ([0x03], 1002), // one byte: no code
        ([0x03, 0xED], 1002), // 1005, never sent
        ([0x03, 0xE8, 0xC3, 0x28], 1002), // a reason that is not UTF-8
    ] as [([UInt8], Int)])
    func aWindowsCloseFrameIsAnswered(payload: [UInt8], answer: Int) async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        try socket.send(opcode: 0x1, Array(#"{"type":"hello","v":1,"visible":true,"focused":true}"#.utf8))
        _ = try await socket.textMessages { $0.contains(#""type":"welcome""#) }
        try socket.send(opcode: 0x8, payload)
        let close = try await socket.payload(ofNext: 0x8)
        #expect(close.count >= 2 && Int(close[0]) << 8 | Int(close[1]) == answer)
        _ = try await socket.drainUntilClosed()
        try await server.stop()
    }

    @Test func nothingFollowsTheServersCloseFrame() async throws {
        let server = try await TestServer.start()
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        // The hello is handled on the main actor while the text after it, not UTF-8, is refused at
        // once: the welcome and first render the hello sets off must not follow the close frame,
        // all the while the server waits for the window's answer to it (which never comes).
        try socket.send(opcode: 0x1, Array(#"{"type":"hello","v":1,"visible":true,"focused":true}"#.utf8))
        try socket.send(opcode: 0x1, [0xC3, 0x28])
        let opcodes = try await socket.opcodesUntilClosed(answeringClose: false)
        #expect(opcodes.last == 0x8, "frames after the close frame: \(opcodes)")
        #expect(opcodes.filter { $0 == 0x8 }.count == 1)
        try await server.stop()
    }

    @MainActor @Test func aWindowWhoseInputEndsIsClosedAndItsSceneDisconnects() async throws {
        let server = try await TestServer.start()
        let runtime = try #require(server.server.runtime(named: TallyAppDelegate.app))
        let socket = try await RawWebSocket(port: server.port, app: TallyAppDelegate.app)
        try socket.send(opcode: 0x1, Array(#"{"type":"hello","v":1,"visible":true,"focused":true}"#.utf8))
        _ = try await socket.textMessages { $0.contains(#""type":"welcome""#) }
        #expect(runtime.application.connectedScenes.count == 1)
        // A half-close, with no close frame: long before a ping would find it gone.
        socket.endSending()
        _ = try await socket.drainUntilClosed(timeout: .seconds(5))
        try await waitUntil("the scene to disconnect", timeout: .seconds(5)) { runtime.application.connectedScenes.isEmpty }
        try await server.stop()
    }
}
