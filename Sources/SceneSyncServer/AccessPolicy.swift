import Foundation
import HTTPTypes

/// Who may use the server: requests must name one of its own authorities in `Host` (refusing DNS
/// rebinding; a proxy's `host:port` when it is among the allowed hosts), come from a page it served (`Origin` is exactly `http://<Host>`, refusing
/// cross-site WebSocket hijacking), and, when the server has a token, carry it.
struct AccessPolicy: Sendable {
    /// Why a request was refused.
    enum Refusal: Equatable, Sendable, CustomStringConvertible {
        case foreignHost(String?)
        case repeatedHost
        case foreignOrigin(String)
        case missingOrigin
        /// A native client's mutating request whose body is not declared JSON.
        case notJSON(String?)
        /// A native client without the access token, on a server that has one.
        case missingToken

        /// 421 for a request meant for another host, 403 for one from another site, 415 for a
        /// body that is not JSON, 401 without the token.
        var status: HTTPResponse.Status {
            switch self {
            case .foreignHost, .repeatedHost: .misdirectedRequest
            case .foreignOrigin, .missingOrigin: .forbidden
            case .notJSON: .unsupportedMediaType
            case .missingToken: .unauthorized
            }
        }

        /// A short machine-readable name, for JSON error bodies.
        var code: String {
            switch self {
            case .foreignHost, .repeatedHost: "misdirected"
            case .foreignOrigin, .missingOrigin: "forbiddenOrigin"
            case .notJSON: "unsupportedMediaType"
            case .missingToken: "unauthorized"
            }
        }

        var description: String {
            switch self {
            case let .foreignHost(host): "Host \(host.map(\.debugDescription) ?? "missing") is not this server"
            case .repeatedHost: "more than one Host"
            case let .foreignOrigin(origin): "Origin \(origin.debugDescription) is not this server"
            case .missingOrigin: "no single Origin"
            case let .notJSON(type): "a request without Origin must send Content-Type application/json, not \(type.map(\.debugDescription) ?? "none")"
            case .missingToken: "this server needs its access token as Authorization: Bearer"
            }
        }
    }

    let host: String
    let allowedHosts: [String]
    let token: String?

    /// Whether `host` names this machine only: `localhost`, `::1` or an address in `127.0.0.0/8`.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.first == "127" else { return false }
        return octets.allSatisfy { octet in
            octet.count <= 3 && octet.allSatisfy(\.isASCII) && UInt8(octet) != nil
        }
    }

    var isLoopback: Bool { Self.isLoopback(host) }

    /// The `Host` values that name this server on `port`, lowercased. An allowed host with a port
    /// of its own (a proxy's, say) keeps it; every other name is paired with `port`.
    func authorities(port: Int) -> Set<String> {
        var names: [(name: String, port: Int?)] = allowedHosts.compactMap { Self.split(allowedHost: $0) }
        if isLoopback { names += ["127.0.0.1", "localhost", "::1"].map { ($0, nil) } }
        names.append((host.lowercased().trimmingBrackets, nil))
        var result: Set<String> = []
        for (name, own) in names {
            let written = name.contains(":") ? "[\(name)]" : name
            let port = own ?? port
            result.insert("\(written):\(port)")
            // Browsers leave out the default port.
            if port == 80 { result.insert(written) }
        }
        return result
    }

    /// An allowed host as its name (lowercased, IPv6 without brackets) and its port if it names
    /// one: `example.local`, `example.local:8080`, `::1`, `[::1]`, `[::1]:8080`. `nil` if it is
    /// malformed: no name, a port that is not 1 to 65535, spaces or characters no host has.
    static func split(allowedHost: String) -> (name: String, port: Int?)? {
        let text = allowedHost.lowercased()
        var name = Substring(text)
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if text.count(where: { $0 == ":" }) == 1, let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !name.isEmpty, name.utf8.count <= 253,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else { return nil }
        guard let portText else { return (String(name), nil) }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII),
              let port = Int(portText), (1...65_535).contains(port) else { return nil }
        return (String(name), port)
    }

    /// Checks `Host`, and also `Origin` when `requireOrigin` is set (WebSocket upgrades and
    /// mutating requests); `nil` if the request may proceed.
    func refusal(for request: HTTPRequest, port: Int, requireOrigin: Bool) -> Refusal? {
        // The first Host becomes the authority; any other is left among the fields.
        guard request.headerFields[values: Self.hostField].isEmpty else { return .repeatedHost }
        guard let authority = request.authority?.lowercased(), authorities(port: port).contains(authority) else {
            return .foreignHost(request.authority)
        }
        guard requireOrigin else { return nil }
        let origins = request.headerFields[values: .origin]
        guard origins.count == 1, let origin = origins.first else { return .missingOrigin }
        guard origin.lowercased() == "http://\(authority)" else { return .foreignOrigin(origin) }
        return nil
    }

    /// Checks a mutating request (POST, PUT, PATCH, DELETE): `Host` always; then a browser
    /// page's `Origin`, or, without one, a native client's JSON body; and the bearer token when
    /// the server has one.
    func refusal(forMutating request: HTTPRequest, port: Int) -> Refusal? {
        if let refusal = refusal(for: request, port: port, requireOrigin: false) { return refusal }
        if !request.headerFields[values: .origin].isEmpty {
            if let refusal = refusal(for: request, port: port, requireOrigin: true) { return refusal }
        } else {
            let type = request.headerFields[.contentType]
            guard let type, Self.isJSON(type) else { return .notJSON(type) }
        }
        // Anyone can write an Origin header outside a browser, so it never stands in for the token.
        guard token == nil || accepts(token: Self.bearerToken(request)) else { return .missingToken }
        return nil
    }

    /// Whether a `Content-Type` is JSON: `application/json`, in any letter case, with or without
    /// parameters such as `charset`.
    static func isJSON(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// The token of an `Authorization: Bearer …` header, if there is exactly one.
    static func bearerToken(_ request: HTTPRequest) -> String? {
        let values = request.headerFields[values: .authorization]
        guard values.count == 1, let value = values.first else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The cookie that carries the access token for what a page loads without a header, such as
    /// an app's pictures. It is set when a page is opened with the token in its URL; `HttpOnly`
    /// (no script reads it) and `SameSite=Strict` (no other site's request carries it).
    static let tokenCookie = "scenesync_token"

    /// The token a request presents: its `Authorization: Bearer …`, or else its token cookie.
    static func presentedToken(_ request: HTTPRequest) -> String? {
        if let bearer = bearerToken(request) { return bearer }
        for cookies in request.headerFields[values: .cookie] {
            for pair in cookies.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == tokenCookie {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// Whether `candidate` is the access token (always, when the server has none). The time it
    /// takes depends on the token's length only, not on how much of it `candidate` got right.
    func accepts(token candidate: String?) -> Bool {
        guard let token else { return true }
        guard let candidate else { return false }
        let expected = Array(token.utf8)
        let given = Array(candidate.utf8)
        var difference: UInt8 = expected.count == given.count ? 0 : 1
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }

    private static let hostField = HTTPField.Name("Host")!
}

extension String {
    fileprivate var trimmingBrackets: String {
        hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
    }
}
