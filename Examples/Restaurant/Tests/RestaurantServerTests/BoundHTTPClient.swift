#if os(Linux)
import Foundation
import Glibc

/// One HTTP/1.1 exchange over a socket bound to a loopback address of the client's choosing, as a
/// client at that address makes it. (A file of its own: NIO's names for the socket types would
/// hide Glibc's.)
struct BoundHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The address the socket is bound to, such as `127.0.0.2`.
    let source: String

    /// Sends `request` to 127.0.0.1:`port` and reads until the server closes; returns the status,
    /// the headers (names in lowercase) and the body.
    func send(_ request: Data, port: Int) throws -> (status: Int, headers: [String: String], body: Data) {
        let reply = try exchange(request, port: port)
        guard let end = reply.range(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "no head in the reply") }
        let head = String(decoding: reply[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers, Data(reply[end.upperBound...]))
    }

    private func exchange(_ request: Data, port: Int) throws -> Data {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(socket) }
        let local = try Self.address(source, 0)
        let remote = try Self.address("127.0.0.1", port)
        guard local.withUnsafeBytes({ bind(socket, $0.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count)) }) == 0,
              remote.withUnsafeBytes({ connect(socket, $0.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count)) }) == 0
        else { throw Failure(description: "bind or connect from \(source): \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let sent = request.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
        guard sent == request.count else { throw Failure(description: "send: \(errno)") }
        var reply = Data()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            reply.append(contentsOf: buffer[..<count])
        }
        return reply
    }

    /// A `sockaddr_in`, byte by byte: family, port and address in network order, then zeros.
    private static func address(_ host: String, _ port: Int) throws -> [UInt8] {
        let parts = host.split(separator: ".").compactMap { UInt8($0) }
        guard parts.count == 4 else { throw Failure(description: "not an IPv4 address: \(host)") }
        let family = UInt16(AF_INET)
        return withUnsafeBytes(of: family) { Array($0) } + [UInt8(port >> 8), UInt8(port & 0xFF)] + parts
            + [UInt8](repeating: 0, count: 8)
    }
}
#endif
