public import Foundation
public import SceneSyncUI
import NIOCore
import SceneSync

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

    /// Decodes a message a window sent, reading its JSON once and strictly: the version is the
    /// integer 1, numbers the protocol counts with are integers written as integers, a field
    /// appears once, and a message has only its type's fields.
    public static func decodeClientMessage(_ data: Data) throws(WindowProtocolError) -> ClientMessage {
        guard data.count <= maximumMessageSize else { throw .tooLarge(size: data.count, limit: maximumMessageSize) }
        return try decodeClientMessage(bytes: [UInt8](data))
    }

    /// Decodes a message a window sent as WebSocket text, as ``decodeClientMessage(_:)`` does,
    /// copying its bytes once.
    public static func decodeClientMessage(text: String) throws(WindowProtocolError) -> ClientMessage {
        let size = text.utf8.count
        guard size <= maximumMessageSize else { throw .tooLarge(size: size, limit: maximumMessageSize) }
        return try decodeClientMessage(bytes: Array(text.utf8))
    }

    private static func decodeClientMessage(bytes: [UInt8]) throws(WindowProtocolError) -> ClientMessage {
        let json: StrictJSON
        do {
            json = try StrictJSON.parse(bytes: bytes)
        } catch {
            throw .malformed("not JSON: \(error.reason) at byte \(error.offset)")
        }
        return try StrictClientMessage.decode(json)
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

    /// Encodes a message for a window into a buffer, ready for a WebSocket text frame.
    static func encodeBuffer(_ message: ServerMessage) -> ByteBuffer {
        ByteBuffer(bytes: encodedBytes(message))
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
    /// The user did something to a node. `resend` says the window sent this action (its `ref`)
    /// before, on a connection that ended before the answer came.
    case action(UserAction, resend: Bool = false)
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
        /// The browser profile the window is in, kept in `localStorage`: every window of one profile
        /// sends the same 32 lowercase hex digits. Scenes find it in `ConnectionOptions.device`.
        public var device: String?
        /// Whether the window is visible.
        public var visible: Bool
        /// Whether the window has focus.
        public var focused: Bool

        /// Creates a hello.
        public init(session: String? = nil, seq: [String: UInt64]? = nil, route: String? = nil, open: String? = nil,
                    token: String? = nil, device: String? = nil, visible: Bool = true, focused: Bool = true) {
            self.session = session
            self.device = device
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
        .hello: ["session", "seq", "route", "open", "token", "device", "visible", "focused"],
        .action: ["ref", "node", "name", "value", "resend"],
        .visibility: ["visible", "focused"],
        .closing: [],
        .ping: [],
    ]

}

/// A window's message read from strict JSON: `type` and `v` first, then only the fields its type
/// has, each of its exact JSON type. Everything it refuses is a ``WindowProtocolError``.
private enum StrictClientMessage {
    static func decode(_ json: StrictJSON) throws(WindowProtocolError) -> ClientMessage {
        guard case let .object(fields) = json else { throw .malformed("a message is a JSON object") }
        guard case let .string(typeName)? = fields["type"] else { throw .malformed("missing \"type\"") }
        guard let type = WindowProtocol.MessageType(rawValue: typeName), ClientMessage.types.contains(type) else {
            throw .unknownType(typeName)
        }
        guard let version = fields["v"] else { throw .malformed("missing \"v\"") }
        guard case let .integer(number) = version else {
            throw .malformed("\"v\" is the integer \(WindowProtocol.version), not \(version.kind)")
        }
        guard number == WindowProtocol.version else { throw .unsupportedVersion(number) }
        let allowed = ClientMessage.fields[type, default: []].union(["type", "v"])
        if let unknown = fields.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw .malformed("unknown field \"\(unknown)\" in \(typeName)")
        }
        let reader = Fields(fields: fields, type: typeName)
        switch type {
        case .hello:
            return .hello(ClientMessage.Hello(
                session: try reader.optionalString("session"), seq: try reader.sequences("seq"), route: try reader.optionalString("route"),
                open: try reader.optionalString("open"), token: try reader.optionalString("token"), device: try reader.device("device"),
                visible: try reader.bool("visible"), focused: try reader.bool("focused")))
        case .action:
            return .action(UserAction(ref: try reader.integer("ref"), node: try reader.string("node"),
                                      name: ActionName(rawValue: try reader.string("name")), value: try reader.value("value")),
                           resend: try reader.optionalBool("resend") ?? false)
        case .visibility:
            return .visibility(visible: try reader.bool("visible"), focused: try reader.bool("focused"))
        case .closing:
            return .closing
        case .ping:
            return .ping
        default:
            throw .unknownType(typeName)
        }
    }

    /// A message's fields, read by their exact types.
    private struct Fields {
        let fields: [String: StrictJSON]
        let type: String

        func missing(_ name: String) -> WindowProtocolError { .malformed("missing \"\(name)\" in \(type)") }
        func wrongType(_ name: String) -> WindowProtocolError { .malformed("wrong type for \"\(name)\" in \(type)") }

        func string(_ name: String) throws(WindowProtocolError) -> String {
            guard let value = fields[name] else { throw missing(name) }
            guard case let .string(text) = value else { throw wrongType(name) }
            return text
        }

        func optionalString(_ name: String) throws(WindowProtocolError) -> String? {
            guard let value = fields[name], value != .null else { return nil }
            guard case let .string(text) = value else { throw wrongType(name) }
            return text
        }

        /// A browser profile's id: 32 lowercase hex digits.
        func device(_ name: String) throws(WindowProtocolError) -> String? {
            guard let text = try optionalString(name) else { return nil }
            guard text.utf8.count == 32, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw .malformed("\"\(name)\" in \(type) must be 32 lowercase hex digits")
            }
            return text
        }

        func bool(_ name: String) throws(WindowProtocolError) -> Bool {
            guard let value = fields[name] else { throw missing(name) }
            guard case let .bool(flag) = value else { throw wrongType(name) }
            return flag
        }

        func optionalBool(_ name: String) throws(WindowProtocolError) -> Bool? {
            guard let value = fields[name], value != .null else { return nil }
            guard case let .bool(flag) = value else { throw wrongType(name) }
            return flag
        }

        func integer(_ name: String) throws(WindowProtocolError) -> Int {
            guard let value = fields[name] else { throw missing(name) }
            guard case let .integer(number) = value else { throw wrongType(name) }
            return number
        }

        /// Sequence numbers per app: integers from 0.
        func sequences(_ name: String) throws(WindowProtocolError) -> [String: UInt64]? {
            guard let value = fields[name], value != .null else { return nil }
            guard case let .object(members) = value else { throw wrongType(name) }
            var result: [String: UInt64] = [:]
            for (app, member) in members {
                guard case let .integer(number) = member, number >= 0 else { throw wrongType(name) }
                result[app] = UInt64(number)
            }
            return result
        }

        /// An action's value as a view value: an integer written as one is `.int`, any other
        /// number `.double`, which no index accepts.
        func value(_ name: String) throws(WindowProtocolError) -> ViewValue? {
            guard let value = fields[name], value != .null else { return nil }
            return Self.viewValue(value)
        }

        private static func viewValue(_ json: StrictJSON) -> ViewValue {
            switch json {
            case .null: .null
            case let .bool(flag): .bool(flag)
            case let .integer(number): .int(number)
            case let .number(number): .double(number)
            case let .string(text): .string(text)
            case let .array(elements): .array(elements.map(viewValue))
            case let .object(members): .object(members.mapValues(viewValue))
            }
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

    /// The keys of a message's JSON object, spelled once for both encoders.
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
