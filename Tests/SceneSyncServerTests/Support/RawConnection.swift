import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection written by hand, byte by byte, to send what no well-behaved client sends:
/// nothing at all, a head one line at a time, a head too large, from a chosen loopback address.
final class RawConnection {
    private let descriptor: Int32
    private var received: [UInt8] = []

    /// Connects to the server on `127.0.0.1:port`, from `source` (any `127.x.y.z` is this machine).
    /// With `receiveBuffer`, the socket's receive buffer is that small (in bytes), so that a
    /// client that does not read pushes back on the server at once.
    init(port: Int, from source: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw RawConnectionError.failed("bind \(source): \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw RawConnectionError.failed("connect: \(errno)") }
    }

    deinit { close(descriptor) }

    /// Sends `bytes`, all of them.
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw RawConnectionError.failed("send: \(errno)") }
            sent += count
        }
    }

    /// Ends what this side sends (a TCP half-close), leaving the connection open to read.
    func endSending() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Sends `text` as UTF-8.
    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// A GET request head for `path` that names the server.
    static func get(_ path: String, port: Int, extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(extra)\r\n"
    }

    /// The status line of the server's response, the head's bytes taken.
    func statusLine(timeout: Duration = .seconds(10)) async throws -> String {
        let head = try await read(timeout: timeout) { $0.firstRange(of: Array("\r\n\r\n".utf8)).map(\.upperBound) }
        return String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")[0]
    }

    /// The response's head, whole, its bytes taken.
    func head(timeout: Duration = .seconds(10)) async throws -> String {
        let head = try await read(timeout: timeout) { $0.firstRange(of: Array("\r\n\r\n".utf8)).map(\.upperBound) }
        return String(decoding: head, as: UTF8.self)
    }

    /// The status lines of every response the server sends until it closes the connection.
    func statusLinesUntilClosed(timeout: Duration = .seconds(10)) async throws -> [String] {
        var bytes: [UInt8] = []
        do {
            _ = try await read(timeout: timeout) { received in
                bytes = received
                return nil
            }
        } catch RawConnectionError.closed {}
        // A response may follow the last one's body on the same line: split on the version itself.
        return String(decoding: bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").dropFirst()
            .map { "HTTP/1.1 " + ($0.components(separatedBy: "\r\n").first ?? "") }
    }

    /// Whether the server closes the connection within `timeout`, reading (and dropping) whatever
    /// it sends before.
    func isClosedByServer(within timeout: Duration) async throws -> Bool {
        do {
            _ = try await read(timeout: timeout) { _ in nil }
            return false
        } catch RawConnectionError.closed {
            return true
        } catch RawConnectionError.timedOut {
            return false
        }
    }

    /// Reads until `complete` says how many of the bytes received make one whole unit, and takes them.
    func read(timeout: Duration = .seconds(10), until complete: ([UInt8]) -> Int?) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let end = complete(received) {
                defer { received.removeFirst(end) }
                return Array(received[..<end])
            }
            guard ContinuousClock.now < deadline else { throw RawConnectionError.timedOut(bytes: received.count) }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                received += chunk[..<count]
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                throw RawConnectionError.closed(bytes: received.count)
            } else {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
    }
}

enum RawConnectionError: Error, Equatable {
    case failed(String)
    case timedOut(bytes: Int)
    case closed(bytes: Int)
}
