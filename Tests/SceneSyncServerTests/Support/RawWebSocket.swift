import Foundation

/// A WebSocket written by hand, frame by frame, to send what no well-behaved client sends:
/// binary frames, text that is not UTF-8, fragments that add up to too much, unmasked frames.
final class RawWebSocket {
    private let connection: RawConnection

    /// Connects to `/ws/<app>` on the server and completes the upgrade, as a page of the server.
    init(port: Int, app: String, receiveBuffer: Int32? = nil) async throws {
        connection = try RawConnection(port: port, receiveBuffer: receiveBuffer)
        try write(Array(("GET /ws/\(app) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\n\r\n").utf8))
        let head = try await read(until: { bytes in bytes.firstRange(of: Array("\r\n\r\n".utf8)).map { $0.upperBound } })
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw RawWebSocketError.failed("upgrade refused: \(String(decoding: head, as: UTF8.self))")
        }
    }

    /// Sends one frame; client frames are masked unless `masked` is false.
    func send(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(maskBit | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        if masked {
            let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            frame += mask
            frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        } else {
            frame += payload
        }
        try write(frame)
    }

    /// The text messages the server sends, up to the first for which `last` is true.
    func textMessages(until last: @Sendable (String) -> Bool) async throws -> [String] {
        var messages: [String] = []
        while true {
            let frame = try await read(until: Self.wholeFrame)
            guard frame[0] & 0x0F == 0x1 else { continue }
            let offset = frame[1] & 0x7F == 127 ? 10 : frame[1] & 0x7F == 126 ? 4 : 2
            let text = String(decoding: frame[offset...], as: UTF8.self)
            messages.append(text)
            if last(text) { return messages }
        }
    }

    /// The length of the whole server frame at the start of `bytes`, if it is all there.
    static func wholeFrame(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        return bytes.count >= offset + length ? offset + length : nil
    }

    /// The payload of the next frame with `opcode` the server sends, skipping any other before it.
    func payload(ofNext opcode: UInt8, timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        while true {
            let frame = try await read(timeout: timeout, until: Self.wholeFrame)
            guard frame[0] & 0x0F == opcode else { continue }
            let offset = frame[1] & 0x7F == 127 ? 10 : frame[1] & 0x7F == 126 ? 4 : 2
            return Array(frame[offset...])
        }
    }

    /// The opcodes of every frame the server sends until it closes the connection; a close frame
    /// is answered, as a client should, if `answeringClose`.
    func opcodesUntilClosed(answeringClose: Bool = true, timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        var opcodes: [UInt8] = []
        do {
            while true {
                let frame = try await read(timeout: timeout, until: Self.wholeFrame)
                opcodes.append(frame[0] & 0x0F)
                if answeringClose, frame[0] & 0x0F == 0x8 { try? send(opcode: 0x8, Array(frame[2..<min(frame.count, 4)])) }
            }
        } catch RawConnectionError.closed {
            return opcodes
        }
    }

    /// The code of the close frame the server sends, skipping any other frame before it.
    func closeCode(timeout: Duration = .seconds(10)) async throws -> Int {
        while true {
            let frame = try await read(timeout: timeout, until: Self.wholeFrame)
            guard frame[0] & 0x0F == 0x8 else { continue }
            let offset = frame[1] & 0x7F == 126 ? 4 : 2
            guard frame.count >= offset + 2 else { return 1005 }
            // Answer the close, as a client should, so the server need not wait for it.
            try? send(opcode: 0x8, Array(frame[offset..<offset + 2]))
            return Int(frame[offset]) << 8 | Int(frame[offset + 1])
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        try connection.send(bytes)
    }

    /// Ends what the client sends without a close frame (a TCP half-close).
    func endSending() {
        connection.endSending()
    }

    /// Sends `text` as one text message.
    func send(text: String) throws {
        try send(opcode: 0x1, Array(text.utf8))
    }

    /// Reads and drops what the server sends until it closes the connection; the bytes read.
    /// Throws ``RawConnectionError/timedOut(bytes:)`` if the connection is still open then.
    func drainUntilClosed(timeout: Duration = .seconds(10)) async throws -> Int {
        do {
            _ = try await connection.read(timeout: timeout, until: { _ in nil })
        } catch let RawConnectionError.closed(bytes) {
            return bytes
        }
        return 0
    }

    private func read(timeout: Duration = .seconds(10), until complete: ([UInt8]) -> Int?) async throws -> [UInt8] {
        try await connection.read(timeout: timeout, until: complete)
    }
}

enum RawWebSocketError: Error {
    case failed(String)
}
