#if os(Linux)
import Foundation

/// Just enough of WebSocket (RFC 6455) for a window: the upgrade request, masked client frames, and
/// whole messages cut from the bytes received, each with its exact size on the wire.
///
/// It asks for no extensions and the server negotiates none, so a message's payload is the text
/// the server encoded, byte for byte, as a browser receives it.
struct WindowsWebSocketFraming {
    /// One message as received.
    struct Message {
        /// The text's UTF-8 bytes, reassembled if the server fragmented it.
        let payload: [UInt8]
        /// Payload plus every frame header: what the message took on the socket.
        let wireBytes: Int

        var text: String { String(decoding: payload, as: UTF8.self) }

        /// The message's `type`. The server sorts keys, so the top-level "type" comes after every
        /// nested object and only `"v":1}` follows it: the last match, near the end, is the message's.
        var type: String? {
            let tail = String(decoding: payload.suffix(48), as: UTF8.self)
            guard let range = tail.range(of: #""type":""#, options: .backwards) else { return nil }
            return String(tail[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    private var buffer: [UInt8] = []
    /// Pong frames owed for pings received, for the owner of the socket to write.
    private(set) var pongs: [[UInt8]] = []

    /// Adds bytes read from the socket.
    mutating func append(_ bytes: [UInt8]) {
        buffer += bytes
    }

    /// Takes the pongs owed.
    mutating func takePongs() -> [[UInt8]] {
        defer { pongs = [] }
        return pongs
    }

    /// Takes the HTTP response head off the front once it has all arrived, and checks that it
    /// switches protocols.
    mutating func takeUpgradeResponse() throws(WindowsBenchmarkError) -> Bool {
        let end = Array("\r\n\r\n".utf8)
        guard buffer.count >= 4, let headEnd = buffer.indices.dropLast(3).first(where: { buffer[$0..<$0 + 4].elementsEqual(end) }) else {
            return false
        }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101") else { throw .socket("upgrade refused: \(head.prefix { $0 != "\r" })") }
        buffer.removeFirst(headEnd + 4)
        return true
    }

    /// Takes one whole message off the front, or returns `nil` if it has not all arrived. Pings
    /// before it are answered (see ``pongs``).
    mutating func nextMessage() throws(WindowsBenchmarkError) -> Message? {
        var offset = 0
        var payload: [UInt8] = []
        while let frame = frame(at: offset) {
            offset = frame.end
            switch frame.opcode {
            case 0x9 where payload.isEmpty, 0xA where payload.isEmpty:
                if frame.opcode == 0x9 { pongs.append(Self.frame(opcode: 0xA, payload: Array(buffer[frame.payload]))) }
                buffer.removeFirst(offset)
                offset = 0
                continue
            case 0x9, 0xA:
                // A control frame between fragments: rare enough (the server pings every 30 s)
                // to leave unanswered.
                continue
            case 0x8:
                throw .socket("the server closed the WebSocket")
            default:
                payload += buffer[frame.payload]
            }
            if frame.fin {
                buffer.removeFirst(offset)
                return Message(payload: payload, wireBytes: offset)
            }
        }
        return nil
    }

    /// The frame starting at `offset`, if all of it is in the buffer. Server frames are unmasked.
    private func frame(at offset: Int) -> (fin: Bool, opcode: UInt8, payload: Range<Int>, end: Int)? {
        guard buffer.count >= offset + 2 else { return nil }
        let fin = buffer[offset] & 0x80 != 0
        let opcode = buffer[offset] & 0x0F
        var length = Int(buffer[offset + 1] & 0x7F)
        var start = offset + 2
        if length >= 126 {
            let size = length == 126 ? 2 : 8
            guard buffer.count >= start + size else { return nil }
            length = buffer[start..<start + size].reduce(0) { $0 << 8 | Int($1) }
            start += size
        }
        guard buffer.count >= start + length else { return nil }
        return (fin, opcode, start..<start + length, start + length)
    }

    // MARK: - What a window sends

    /// The upgrade request for `/ws/<app>`, with the `Host` and `Origin` a page of the server sends,
    /// and `X-Forwarded-For: forwardedFor` if given, as a proxy in front of the server adds it.
    static func upgradeRequest(port: Int, app: String, forwardedFor: String? = nil) -> [UInt8] {
        let key = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()
        let forwarded = forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? ""
        return Array(("GET /ws/\(app) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n" + forwarded
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    /// `hello` from a new, visible and focused window.
    static let hello = frame(opcode: 0x1, payload: Array(#"{"type":"hello","v":1,"visible":true,"focused":true}"#.utf8))

    /// An action, as the renderer reports one.
    static func action(ref: Int, name: String, node: String) -> [UInt8] {
        frame(opcode: 0x1, payload: Array(#"{"type":"action","v":1,"ref":\#(ref),"node":"\#(node)","name":"\#(name)"}"#.utf8))
    }

    /// `hello` from a new, visible and focused window of the browser profile `device`.
    static func hello(device: String) -> [UInt8] {
        frame(opcode: 0x1, payload: Array(#"{"type":"hello","v":1,"device":"\#(device)","visible":true,"focused":true}"#.utf8))
    }

    /// An action with a text value (plain ASCII letters, digits and spaces), as a composer's `send`.
    static func action(ref: Int, name: String, node: String, text: String) -> [UInt8] {
        frame(opcode: 0x1, payload: Array(#"{"type":"action","v":1,"ref":\#(ref),"node":"\#(node)","name":"\#(name)","value":"\#(text)"}"#.utf8))
    }

    /// A normal close, as closing a tab sends.
    static let close = frame(opcode: 0x8, payload: [0x03, 0xE8])

    /// One final frame, masked as every client frame must be.
    static func frame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: .min ... .max) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }
}
#endif
