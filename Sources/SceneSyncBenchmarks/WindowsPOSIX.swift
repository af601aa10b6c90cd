#if os(Linux)
import Foundation
import Glibc

/// TCP to `127.0.0.1` over plain POSIX sockets: all the networking the benchmark's raw windows,
/// its `GET /` probe and its choice of port need, so it needs no HTTP or WebSocket library.
enum WindowsPOSIX {
    /// A connected, non-blocking socket to `127.0.0.1:port`, with Nagle's delay off so that a
    /// small frame leaves at once, as a browser's does.
    static func connect(port: Int) throws(WindowsBenchmarkError) -> Int32 {
        let descriptor = try makeSocket()
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .socket("connect to 127.0.0.1:\(port): \(reason)")
        }
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return descriptor
    }

    /// A port nothing listens on now: the kernel picks one for a socket bound to port 0, which is
    /// then closed. Another process could take it before the server does, which is unlikely enough.
    static func freePort() throws(WindowsBenchmarkError) -> Int {
        let descriptor = try makeSocket()
        defer { close(descriptor) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw .socket("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Writes all of `bytes`, waiting for room when the socket's buffer is full.
    static func write(_ bytes: [UInt8], to descriptor: Int32) throws(WindowsBenchmarkError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written >= 0 {
                offset += written
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiting, 1, 100)
            } else {
                throw .socket("send: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Everything the socket has received, without waiting: empty if nothing has arrived.
    ///
    /// - Throws: when the peer has closed the connection, or on an error.
    static func readAvailable(from descriptor: Int32) throws(WindowsBenchmarkError) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                received += chunk[0..<count]
                continue
            }
            // Bytes that came with the close are returned first; the next read reports the close.
            if count == 0 {
                guard received.isEmpty else { return received }
                throw .socket("the server closed the connection")
            }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw .socket("recv: \(String(cString: strerror(errno)))") }
            return received
        }
    }

    /// The status code of `GET path`, or `nil` if nothing answers yet.
    static func httpStatus(port: Int, path: String, timeout: Duration) async -> Int? {
        guard let descriptor = try? connect(port: port) else { return nil }
        defer { close(descriptor) }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
        guard (try? write(Array(request.utf8), to: descriptor)) != nil else { return nil }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var response: [UInt8] = []
        while !response.contains(UInt8(ascii: "\n")) {
            guard let bytes = try? readAvailable(from: descriptor), ContinuousClock.now < deadline else { return nil }
            response += bytes
            if bytes.isEmpty { try? await Task.sleep(for: .milliseconds(1)) }
        }
        let parts = String(decoding: response.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self).split(separator: " ")
        return parts.count >= 2 && parts[0].hasPrefix("HTTP/") ? Int(parts[1]) : nil
    }

    private static func makeSocket() throws(WindowsBenchmarkError) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socket("socket: \(String(cString: strerror(errno)))") }
        return descriptor
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
#endif
