import Foundation
import HTTPTypes

/// Who may use the server: requests must name one of its own authorities in `Host` (refusing DNS
/// rebinding), come from a page it served (`Origin` is exactly `http://<Host>`, refusing
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

    /// The `Host` values that name this server on `port`, lowercased.
    func authorities(port: Int) -> Set<String> {
        var names = allowedHosts
        if isLoopback { names += ["127.0.0.1", "localhost", "::1"] }
        names.append(host)
        var result: Set<String> = []
        for name in names {
            let bare = name.lowercased().trimmingBrackets
            let written = bare.contains(":") ? "[\(bare)]" : bare
            result.insert("\(written):\(port)")
            // Browsers leave out the default port.
            if port == 80 { result.insert(written) }
        }
        return result
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
