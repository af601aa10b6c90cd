import Foundation

#if canImport(Glibc)
import Glibc
private let systemConnect = Glibc.connect
private let systemSend = Glibc.send
private let sendFlags = Int32(MSG_NOSIGNAL)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let systemConnect = Darwin.connect
private let systemSend = Darwin.send
private let sendFlags: Int32 = 0
private let streamSocket = SOCK_STREAM
#endif

/// Just enough HTTP/1.1 over a blocking socket for the widget process: one `GET`, read whole, or
/// read as it comes (Server-Sent Events). It stays off the networking stack so that the process
/// starts, and shows its cached summary, at once.
struct WidgetHTTP {
    let host: String
    let port: Int
    let timeout: Duration

    /// A response's status and header fields (names in lowercase).
    struct Head {
        var status: Int
        var fields: [String: String]
    }

    /// `GET path` with `fields`; the whole response.
    func get(_ path: String, fields: [String: String]) throws(WidgetError) -> (Head, [UInt8]) {
        let socket = try connect(readTimeout: timeout)
        defer { close(socket.descriptor) }
        try socket.send(request(path, fields: fields))
        var reader = socket.reader()
        let head = try reader.head()
        var body: [UInt8] = []
        if let length = head.fields["content-length"].flatMap(Int.init) {
            body = try reader.bytes(count: length)
        } else if head.fields["transfer-encoding"]?.lowercased() == "chunked" {
            while let chunk = try reader.chunk() { body += chunk }
        }
        return (head, body)
    }

    /// `GET path` as a stream of Server-Sent Events: calls `event` with each event's `id` and
    /// `data` until the server ends the stream (then returns) or the connection fails (throws).
    func events(_ path: String, fields: [String: String], event: (_ id: String?, _ data: String) -> Void) throws(WidgetError) {
        let socket = try connect(readTimeout: nil)
        defer { close(socket.descriptor) }
        try socket.send(request(path, fields: fields.merging(["Accept": "text/event-stream"]) { $1 }))
        var reader = socket.reader()
        let head = try reader.head()
        guard head.status == 200 else { throw .refused(status: head.status) }
        let chunked = head.fields["transfer-encoding"]?.lowercased() == "chunked"
        var pending: [UInt8] = []
        while let bytes = chunked ? try reader.chunk() : try reader.some() {
            pending += bytes
            // An event ends with an empty line.
            while let end = pending.firstRange(of: [10, 10]) {
                let text = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                pending.removeSubrange(..<end.upperBound)
                var id: String?
                var data: [String] = []
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("id:") { id = line.dropFirst(3).trimmingCharacters(in: .whitespaces) }
                    if line.hasPrefix("data:") { data.append(String(line.dropFirst(5).drop { $0 == " " })) }
                }
                if !data.isEmpty { event(id, data.joined(separator: "\n")) }
            }
        }
    }

    private func request(_ path: String, fields: [String: String]) -> [UInt8] {
        var text = "GET \(path) HTTP/1.1\r\nHost: \(host.contains(":") ? "[\(host)]" : host):\(port)\r\nConnection: close\r\n"
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// Connects within the timeout; reads wait at most `readTimeout`, or for ever if `nil`.
    private func connect(readTimeout: Duration?) throws(WidgetError) -> Socket {
        var hints = addrinfo()
        hints.ai_socktype = streamSocket
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            throw .unreachable("cannot resolve \(host)")
        }
        defer { freeaddrinfo(found) }
        var reason = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard descriptor >= 0 else { continue }
            var interval = Self.timeval(timeout)
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
            if let readTimeout {
                var readInterval = Self.timeval(readTimeout)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &readInterval, socklen_t(MemoryLayout<timeval>.size))
            }
            if systemConnect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                return Socket(descriptor: descriptor)
            }
            reason = String(cString: strerror(errno))
            close(descriptor)
        }
        throw .unreachable("\(host):\(port): \(reason)")
    }

    private static func timeval(_ duration: Duration) -> timeval {
        let (seconds, attoseconds) = duration.components
        return .init(tv_sec: .init(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
    }
}

/// A connected socket.
private struct Socket {
    let descriptor: Int32

    func send(_ bytes: [UInt8]) throws(WidgetError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count, sendFlags) }
            guard count > 0 else { throw .unreachable("the connection failed while sending: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    func reader() -> Reader { Reader(descriptor: descriptor) }
}

/// Reads a response from a socket, buffering what came ahead of what was asked for.
private struct Reader {
    let descriptor: Int32
    var buffer: [UInt8] = []

    /// Reads more; `false` at the end of the stream.
    mutating func fill() throws(WidgetError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[..<count]
            return true
        }
        if count == 0 { return false }
        throw .unreachable(errno == EAGAIN || errno == EWOULDBLOCK ? "the server did not answer in time" : String(cString: strerror(errno)))
    }

    mutating func head() throws(WidgetError) -> WidgetHTTP.Head {
        while buffer.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            guard buffer.count < 65_536, try fill() else { throw .badResponse("the response has no complete head") }
        }
        let end = buffer.firstRange(of: Array("\r\n\r\n".utf8))!
        let lines = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeSubrange(..<end.upperBound)
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw .badResponse("not an HTTP response: \(lines[0].prefix(60))")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return WidgetHTTP.Head(status: status, fields: fields)
    }

    mutating func bytes(count: Int) throws(WidgetError) -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw .badResponse("the response ended early") }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    /// What has come, or waits for some; `nil` at the end of the stream.
    mutating func some() throws(WidgetError) -> [UInt8]? {
        if buffer.isEmpty, try !fill() { return nil }
        defer { buffer = [] }
        return buffer
    }

    /// The next chunk of a chunked body; `nil` after the last.
    mutating func chunk() throws(WidgetError) -> [UInt8]? {
        while buffer.firstRange(of: [13, 10]) == nil {
            guard try fill() else { return nil }
        }
        let end = buffer.firstRange(of: [13, 10])!
        let sizeText = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).split(separator: ";")[0]
        guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
            throw .badResponse("a chunk's size is not hexadecimal")
        }
        buffer.removeSubrange(..<end.upperBound)
        let data = try bytes(count: size + 2)
        return size == 0 ? nil : Array(data.prefix(size))
    }
}
