/// Checks a connection's first request head as it arrived, before the HTTP decoder rewrites it,
/// for what the decoder and the WebSocket upgrade would lose or leave unanswered.
///
/// - An absolute-form target (`GET http://evil.example/lootlogger HTTP/1.1`) names the authority
///   the request is for, and RFC 9112 (section 3.2.2) says that one, not `Host`, counts: one that
///   is not this server's is answered `421 Misdirected Request`. The decoder would keep the path
///   alone and leave `Host` to be checked.
/// - A WebSocket upgrade (`Upgrade: websocket`) of another version than 13 is answered
///   `426 Upgrade Required` with `Sec-WebSocket-Version: 13`, and one without a valid
///   `Sec-WebSocket-Key` `400 Bad Request`, as RFC 6455 (section 4.2.2) asks; the upgrade handler
///   would otherwise drop them without a word.
struct RequestHeadCheck: Sendable {
    /// Whether an authority (`host:port`, lowercased) names this server.
    let isOwnAuthority: @Sendable (String) -> Bool

    /// The refusal due for a complete head, or `nil`.
    func refusal(for head: [UInt8]) -> RequestHeadGuard.Status? {
        let lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        if parts.count == 3, let authority = Self.absoluteFormAuthority(parts[1]), !isOwnAuthority(authority) {
            return .misdirected
        }
        var fields: [String: [String]] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            fields[name, default: []].append(value)
        }
        let upgrade = fields["upgrade", default: []].flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces.lowercased() }
        guard upgrade.contains("websocket") else { return nil }
        guard fields["sec-websocket-version"] == ["13"] else { return .upgradeRequired }
        guard let keys = fields["sec-websocket-key"], keys.count == 1, Self.isWebSocketKey(keys[0]) else {
            return .missingWebSocketKey
        }
        return nil
    }

    /// The lowercased authority of an absolute-form target (`http://host:port/path`), or `nil` for
    /// any other form.
    static func absoluteFormAuthority(_ target: Substring) -> String? {
        let lowered = target.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }) else { return nil }
        let rest = lowered.dropFirst(scheme.count)
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = String(rest[..<end])
        // Credentials are not part of the host.
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        return authority
    }

    /// Whether a `Sec-WebSocket-Key` is 16 bytes in base64, as RFC 6455 requires: 22 base64
    /// characters and `==`.
    static func isWebSocketKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        return bytes[..<22].allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
