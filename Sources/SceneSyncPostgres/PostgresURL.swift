import Foundation
public import PostgresNIO

/// Where a PostgreSQL database is and how to log in to it, parsed from a URL:
///
/// ```
/// postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]
/// ```
///
/// `postgresql://` is accepted too. The user, the password and the database are percent-decoded
/// (a password with `@` in it is written `%40`); an IPv6 host is written in brackets. Query
/// parameters other than `sslmode` are ignored. Without `sslmode`, the connection is not encrypted.
///
/// The password never appears in ``description``, in a debugger's view of the value, or in a
/// ``PostgresURLError``: it is written `***`.
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Whether the connection is encrypted.
    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        /// Never: the connection is plain TCP. The default.
        case disable
        /// With TLS if the server offers it, plain otherwise.
        ///
        /// Unlike libpq's `prefer`, the server's certificate is verified when TLS is used.
        case prefer
        /// With TLS, or not at all.
        ///
        /// Unlike libpq's `require`, the server's certificate is verified against the system's
        /// trusted roots and the host name.
        case require
    }

    /// The user to log in as.
    public var user: String
    /// The user's password; `nil` if the server does not ask for one (trust authentication).
    public var password: String?
    /// The server's host name or IP address (an IPv6 address without brackets).
    public var host: String
    /// The server's TCP port; 5432 unless the URL says otherwise.
    public var port: Int
    /// The database to open.
    public var database: String
    /// Whether the connection is encrypted.
    public var sslMode: SSLMode

    /// A URL made of its parts.
    public init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String,
                sslMode: SSLMode = .disable) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
    }

    /// Parses a `postgres://` or `postgresql://` URL.
    ///
    /// - Throws: ``PostgresURLError`` naming what is wrong, never the password.
    public init(_ string: String) throws(PostgresURLError) {
        guard let schemeEnd = string.range(of: "://") else { throw .badScheme(nil) }
        let scheme = string[..<schemeEnd.lowerBound]
        guard ["postgres", "postgresql"].contains(scheme.lowercased()) else {
            // A scheme is letters, digits, "+", "-" and "."; anything else may be part of a password.
            let safe = scheme.count <= 32 && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            throw .badScheme(safe ? String(scheme) : nil)
        }
        var rest = string[schemeEnd.upperBound...]
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let authority: Substring
        let path: Substring?
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        } else {
            authority = rest
            path = nil
        }

        // The user information ends at the last "@": a password may hold an unencoded one.
        guard let at = authority.lastIndex(of: "@") else { throw .missingUser }
        let userInfo = authority[..<at]
        let hostAndPort = authority[authority.index(after: at)...]
        let rawUser: Substring
        var password: String?
        if let colon = userInfo.firstIndex(of: ":") {
            rawUser = userInfo[..<colon]
            guard let decoded = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding else {
                throw .badPercentEncoding(part: "password")
            }
            password = decoded
        } else {
            rawUser = userInfo
        }
        guard let user = String(rawUser).removingPercentEncoding else { throw .badPercentEncoding(part: "user") }
        guard !user.isEmpty else { throw .missingUser }

        let (host, port) = try Self.parseHostAndPort(hostAndPort)

        guard let path, !path.isEmpty else { throw .missingDatabase }
        guard let database = String(path).removingPercentEncoding else { throw .badPercentEncoding(part: "database") }
        guard !database.isEmpty, !database.contains("/") else { throw .missingDatabase }

        var sslMode = SSLMode.disable
        for parameter in query.split(separator: "&") {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair[0] == "sslmode" else { continue }
            let value = pair.count > 1 ? String(pair[1]) : ""
            guard let mode = SSLMode(rawValue: value) else { throw .unknownSSLMode(value) }
            sslMode = mode
        }
        self.init(user: user, password: password, host: host, port: port, database: database, sslMode: sslMode)
    }

    private static func parseHostAndPort(_ text: Substring) throws(PostgresURLError) -> (String, Int) {
        var host: Substring
        var portText: Substring?
        if text.first == "[" {
            // [IPv6]:port
            guard let close = text.firstIndex(of: "]") else { throw .missingHost }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .badPort(String(after)) }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
        }
        guard !host.isEmpty else { throw .missingHost }
        var port = 5432
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(portText), (1...65535).contains(value)
            else { throw .badPort(String(portText.prefix(16))) }
            port = value
        }
        return (String(host), port)
    }

    /// The URL with the password written `***`.
    public var description: String { text(password: password.map { _ in "***" }) }

    /// The URL with its password, as ``init(_:)`` reads it: for handing the database to a child
    /// process through its environment (`SCENESYNC_DATABASE_URL`), never for a log or a command line.
    public var stringWithPassword: String { text(password: password.map(Self.encode)) }

    private func text(password: String?) -> String {
        var text = "postgres://" + Self.encode(user)
        if let password { text += ":" + password }
        text += "@" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)/" + Self.encode(database)
        if sslMode != .disable { text += "?sslmode=\(sslMode.rawValue)" }
        return text
    }

    /// The same as ``description``: the password written `***`.
    public var debugDescription: String { description }

    /// The parts, with the password written `***`, so that `dump` and debuggers do not show it.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "user": user, "password": password == nil ? "nil" : "***", "host": host, "port": port,
            "database": database, "sslMode": sslMode,
        ], displayStyle: .struct)
    }

    /// The same URL, naming another database on the same server.
    public func with(database name: String) -> PostgresURL {
        var url = self
        url.database = name
        return url
    }

    /// A configuration for a `PostgresClient` (a pool of connections) to this database.
    public func clientConfiguration() -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(.makeClientConfiguration())
        case .require: tls = .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// A configuration for a single `PostgresConnection` to this database.
    ///
    /// - Throws: if TLS is asked for and the system's TLS configuration cannot be loaded.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    private static func encode(_ part: String) -> String {
        part.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed.subtracting(.init(charactersIn: ":@/?#[]"))) ?? part
    }
}

/// Why a string is not a ``PostgresURL``. No case carries the password.
public enum PostgresURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL does not start with `postgres://` or `postgresql://`; the scheme it has, if any
    /// (left out when it might be part of a password).
    case badScheme(String?)
    /// There is no host after the `@`.
    case missingHost
    /// There is no user before the `@`, or no `@`.
    case missingUser
    /// The port is not a number from 1 to 65535.
    case badPort(String)
    /// There is no database after the host.
    case missingDatabase
    /// `sslmode` is none of `disable`, `prefer` and `require`.
    case unknownSSLMode(String)
    /// A `%` escape in the user, the password or the database is malformed; which part.
    case badPercentEncoding(part: String)

    public var description: String {
        let form = "postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]"
        switch self {
        case .badScheme(let scheme?):
            return "A PostgreSQL URL starts with postgres:// or postgresql://, not \(scheme)://; expected \(form)."
        case .badScheme(nil):
            return "A PostgreSQL URL starts with postgres:// or postgresql://; expected \(form)."
        case .missingHost:
            return "The PostgreSQL URL names no host; expected \(form)."
        case .missingUser:
            return "The PostgreSQL URL names no user; expected \(form)."
        case .badPort(let port):
            return "The PostgreSQL URL's port \(port.debugDescription) is not a number from 1 to 65535."
        case .missingDatabase:
            return "The PostgreSQL URL names no database; expected \(form)."
        case .unknownSSLMode(let mode):
            return "The PostgreSQL URL's sslmode \(mode.debugDescription) is not one of disable, prefer and require."
        case .badPercentEncoding(let part):
            return "The PostgreSQL URL's \(part) has a malformed %-escape."
        }
    }
}
