public import Foundation
public import SceneSyncUI

/// The messages between a window (the browser's renderer) and the scene that drives it: every
/// message name and field, in one place. The renderer's `protocol.js` mirrors this file.
///
/// Messages are JSON objects with a `type` and the protocol version `v`. Decoding is strict: an
/// unknown type, an unknown or missing field, a wrong version or an oversized message is refused
/// with a ``WindowProtocolError``, and the connection carries on.
public enum WindowProtocol {
    /// The protocol version this build speaks.
    public static let version = 1
    /// The largest message a window may send, in bytes.
    public static let maximumMessageSize = 64 * 1024

    /// Message `type` values.
    public enum MessageType: String, Codable, Sendable, CaseIterable {
        // Window to server.
        case hello, action, visibility, closing, ping
        // Server to window.
        case welcome, render, patch, resumed, ack, error, open, shutdown, pong
    }

    /// Decodes a message a window sent, reading its JSON once.
    public static func decodeClientMessage(_ data: Data) throws(WindowProtocolError) -> ClientMessage {
        guard data.count <= maximumMessageSize else { throw .tooLarge(size: data.count, limit: maximumMessageSize) }
        do {
            return try JSONDecoder().decode(StrictClientMessage.self, from: data).message
        } catch let error as WindowProtocolError {
            throw error
        } catch let DecodingError.valueNotFound(_, context) where context.codingPath.isEmpty {
            throw .malformed("a message is a JSON object")
        } catch let DecodingError.typeMismatch(_, context) where context.codingPath.isEmpty {
            throw .malformed("a message is a JSON object")
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw .malformed("not JSON")
        } catch let DecodingError.keyNotFound(key, context) {
            throw .malformed("missing \"\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))\"")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .malformed("wrong type for \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\"")
        } catch let DecodingError.valueNotFound(_, context) {
            throw .malformed("null for \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\"")
        } catch let DecodingError.dataCorrupted(context) {
            throw .malformed(context.debugDescription)
        } catch {
            throw .malformed("\(error)")
        }
    }

    /// Encodes a message for a window: the JSON text `JSONEncoder` gives for it with sorted keys,
    /// written directly.
    public static func encode(_ message: ServerMessage) -> Data {
        Data(encodedBytes(message))
    }

    /// Encodes a message for a window as text, ready for a WebSocket text frame.
    public static func encodeText(_ message: ServerMessage) -> String {
        String(decoding: encodedBytes(message), as: UTF8.self)
    }

    private static func encodedBytes(_ message: ServerMessage) -> [UInt8] {
        var writer = MessageJSONWriter()
        do {
            try writer.write(message)
            return writer.bytes
        } catch {
            // A view value that is not a finite number; everything else always encodes.
            return Array(#"{"code":"internal","message":"unencodable","type":"error","v":1}"#.utf8)
        }
    }
}

/// A message from a window.
public enum ClientMessage: Equatable, Sendable {
    /// The window (re)connects: its session id if it has one, the sequence numbers it has seen per
    /// app, an "open in new window" token, and whether it is visible and focused.
    case hello(Hello)
    /// The user did something to a node.
    case action(UserAction)
    /// The window was shown, hidden, focused or blurred.
    case visibility(visible: Bool, focused: Bool)
    /// The window is being closed (not reloaded, as far as the page can tell).
    case closing
    /// Keep-alive.
    case ping

    /// What a window says when it connects.
    public struct Hello: Equatable, Sendable, Codable {
        /// The window's session id, kept in `sessionStorage`; absent for a new window.
        public var session: String?
        /// The last sequence number the window applied, per app.
        public var seq: [String: UInt64]?
        /// The route the window shows, to resume without redrawing.
        public var route: String?
        /// A one-time token for a window opened with an activity.
        public var open: String?
        /// The access token, when the server requires one.
        public var token: String?
        /// Whether the window is visible.
        public var visible: Bool
        /// Whether the window has focus.
        public var focused: Bool

        /// Creates a hello.
        public init(session: String? = nil, seq: [String: UInt64]? = nil, route: String? = nil, open: String? = nil,
                    token: String? = nil, visible: Bool = true, focused: Bool = true) {
            self.session = session
            self.seq = seq
            self.route = route
            self.open = open
            self.token = token
            self.visible = visible
            self.focused = focused
        }
    }

    static let types: Set<WindowProtocol.MessageType> = [.hello, .action, .visibility, .closing, .ping]
    static let fields: [WindowProtocol.MessageType: Set<String>] = [
        .hello: ["session", "seq", "route", "open", "token", "visible", "focused"],
        .action: ["ref", "node", "name", "value"],
        .visibility: ["visible", "focused"],
        .closing: [],
        .ping: [],
    ]

}

/// A window's message read strictly in one pass: `type` and `v` first, then only the fields its
/// type has. Everything it refuses is a ``WindowProtocolError``.
private struct StrictClientMessage: Decodable {
    let message: ClientMessage

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        guard let typeName = try? container.decode(String.self, forKey: Key("type")) else {
            throw WindowProtocolError.malformed("missing \"type\"")
        }
        guard let type = WindowProtocol.MessageType(rawValue: typeName), ClientMessage.types.contains(type) else {
            throw WindowProtocolError.unknownType(typeName)
        }
        guard let version = try? container.decode(Int.self, forKey: Key("v")) else { throw WindowProtocolError.malformed("missing \"v\"") }
        guard version == WindowProtocol.version else { throw WindowProtocolError.unsupportedVersion(version) }
        let allowed = ClientMessage.fields[type, default: []].union(["type", "v"])
        if let unknown = container.allKeys.map(\.stringValue).filter({ !allowed.contains($0) }).sorted().first {
            throw WindowProtocolError.malformed("unknown field \"\(unknown)\" in \(typeName)")
        }
        func field<Value: Decodable>(_ name: String, as _: Value.Type = Value.self) throws -> Value {
            do {
                return try container.decode(Value.self, forKey: Key(name))
            } catch DecodingError.keyNotFound {
                throw WindowProtocolError.malformed("missing \"\(name)\" in \(typeName)")
            } catch DecodingError.valueNotFound, DecodingError.typeMismatch, DecodingError.dataCorrupted {
                throw WindowProtocolError.malformed("wrong type for \"\(name)\" in \(typeName)")
            }
        }
        func optional<Value: Decodable>(_ name: String, as _: Value.Type = Value.self) throws -> Value? {
            guard container.contains(Key(name)) else { return nil }
            do {
                return try container.decodeIfPresent(Value.self, forKey: Key(name))
            } catch {
                throw WindowProtocolError.malformed("wrong type for \"\(name)\" in \(typeName)")
            }
        }
        switch type {
        case .hello:
            message = .hello(ClientMessage.Hello(
                session: try optional("session"), seq: try optional("seq"), route: try optional("route"), open: try optional("open"),
                token: try optional("token"), visible: try field("visible"), focused: try field("focused")))
        case .action:
            message = .action(UserAction(ref: try field("ref"), node: try field("node"), name: ActionName(rawValue: try field("name")),
                                         value: try optional("value")))
        case .visibility:
            message = .visibility(visible: try field("visible"), focused: try field("focused"))
        case .closing:
            message = .closing
        case .ping:
            message = .ping
        default:
            throw WindowProtocolError.unknownType(typeName)
        }
    }
}

/// A message to a window.
public enum ServerMessage: Equatable, Sendable, Encodable {
    /// The window is connected to `session` of `app`; `time` is the server's clock as it sends
    /// this, which the renderer reads deadlines (such as countdowns) against.
    case welcome(session: String, app: String, title: String, time: Date)
    /// The whole window, drawn afresh; `seq` is what it includes per app.
    case render(root: ViewNode, seq: [String: UInt64], route: String)
    /// Changes to the window; `seq` is what it includes afterwards.
    case patch(ops: [Patch], seq: [String: UInt64])
    /// The window was resumed without a redraw; it is up to date as of `seq`.
    case resumed(seq: [String: UInt64])
    /// The action numbered `ref` was handled.
    case ack(ref: Int)
    /// Something the window sent was refused.
    case error(ref: Int?, code: String, message: String)
    /// Open a new window at `url` (an "Open in New Window" request).
    case open(url: String)
    /// The server is going away; reconnect after `retryAfter` milliseconds.
    case shutdown(retryAfter: Int)
    /// Answer to a ping.
    case pong

    enum CodingKeys: String, CodingKey {
        case type, v, session, app, title, time, root, seq, route, ops, ref, code, message, url, retryAfter
    }

    /// The message that carries a window's update.
    public init(_ update: WindowUpdate) {
        switch update {
        case let .render(root, seq, route): self = .render(root: root, seq: seq, route: route)
        case let .patch(ops, seq): self = .patch(ops: ops, seq: seq)
        case let .resumed(seq): self = .resumed(seq: seq)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(WindowProtocol.version, forKey: .v)
        switch self {
        case let .welcome(session, app, title, time):
            try container.encode(WindowProtocol.MessageType.welcome, forKey: .type)
            try container.encode(session, forKey: .session)
            try container.encode(app, forKey: .app)
            try container.encode(title, forKey: .title)
            try container.encode(ViewValue.time(time), forKey: .time)
        case let .render(root, seq, route):
            try container.encode(WindowProtocol.MessageType.render, forKey: .type)
            try container.encode(root, forKey: .root)
            try container.encode(seq, forKey: .seq)
            try container.encode(route, forKey: .route)
        case let .patch(ops, seq):
            try container.encode(WindowProtocol.MessageType.patch, forKey: .type)
            try container.encode(ops, forKey: .ops)
            try container.encode(seq, forKey: .seq)
        case let .resumed(seq):
            try container.encode(WindowProtocol.MessageType.resumed, forKey: .type)
            try container.encode(seq, forKey: .seq)
        case let .ack(ref):
            try container.encode(WindowProtocol.MessageType.ack, forKey: .type)
            try container.encode(ref, forKey: .ref)
        case let .error(ref, code, message):
            try container.encode(WindowProtocol.MessageType.error, forKey: .type)
            try container.encodeIfPresent(ref, forKey: .ref)
            try container.encode(code, forKey: .code)
            try container.encode(message, forKey: .message)
        case let .open(url):
            try container.encode(WindowProtocol.MessageType.open, forKey: .type)
            try container.encode(url, forKey: .url)
        case let .shutdown(retryAfter):
            try container.encode(WindowProtocol.MessageType.shutdown, forKey: .type)
            try container.encode(retryAfter, forKey: .retryAfter)
        case .pong:
            try container.encode(WindowProtocol.MessageType.pong, forKey: .type)
        }
    }
}

/// A message a window sent that the protocol refuses. The connection carries on.
public enum WindowProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a well-formed message of a known type.
    case malformed(String)
    /// A `type` the protocol does not have.
    case unknownType(String)
    /// A protocol version this build does not speak.
    case unsupportedVersion(Int)
    /// Larger than ``WindowProtocol/maximumMessageSize``.
    case tooLarge(size: Int, limit: Int)

    /// A short machine-readable code for the `error` message.
    public var code: String {
        switch self {
        case .malformed: "malformed"
        case .unknownType: "unknownType"
        case .unsupportedVersion: "unsupportedVersion"
        case .tooLarge: "tooLarge"
        }
    }

    public var description: String {
        switch self {
        case let .malformed(detail): "Malformed message: \(detail)."
        case let .unknownType(type): "Unknown message type \(type.debugDescription)."
        case let .unsupportedVersion(version): "Protocol version \(version) is not supported; this server speaks \(WindowProtocol.version)."
        case let .tooLarge(size, limit): "The message is \(size) bytes; at most \(limit) are accepted."
        }
    }
}
