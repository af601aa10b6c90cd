import Foundation
import SceneSyncUI

/// Reading a server message back, as a window (or a test client standing in for one) does.
extension ServerMessage: Decodable {
    /// The message's `type`.
    public var type: WindowProtocol.MessageType {
        switch self {
        case .welcome: .welcome
        case .render: .render
        case .patch: .patch
        case .resumed: .resumed
        case .ack: .ack
        case .error: .error
        case .open: .open
        case .shutdown: .shutdown
        case .pong: .pong
        }
    }

    /// Reads a message of this protocol version; any other version, or a `type` the server does
    /// not send, is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .v)
        guard version == WindowProtocol.version else {
            throw DecodingError.dataCorruptedError(forKey: .v, in: container, debugDescription: "Protocol version \(version)")
        }
        switch try container.decode(WindowProtocol.MessageType.self, forKey: .type) {
        case .welcome:
            self = .welcome(session: try container.decode(String.self, forKey: .session),
                            app: try container.decode(String.self, forKey: .app),
                            title: try container.decode(String.self, forKey: .title),
                            time: Date(timeIntervalSince1970: Double(try container.decode(Int.self, forKey: .time)) / 1000))
        case .render:
            self = .render(root: try container.decode(ViewNode.self, forKey: .root),
                           seq: try container.decode([String: UInt64].self, forKey: .seq),
                           route: try container.decode(String.self, forKey: .route))
        case .patch:
            self = .patch(ops: try container.decode([Patch].self, forKey: .ops),
                          seq: try container.decode([String: UInt64].self, forKey: .seq))
        case .resumed:
            self = .resumed(seq: try container.decode([String: UInt64].self, forKey: .seq))
        case .ack:
            self = .ack(ref: try container.decode(Int.self, forKey: .ref))
        case .error:
            self = .error(ref: try container.decodeIfPresent(Int.self, forKey: .ref),
                          code: try container.decode(String.self, forKey: .code),
                          message: try container.decode(String.self, forKey: .message))
        case .open:
            self = .open(url: try container.decode(String.self, forKey: .url))
        case .shutdown:
            self = .shutdown(retryAfter: try container.decode(Int.self, forKey: .retryAfter))
        case .pong:
            self = .pong
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "\(other) is not a server message")
        }
    }
}
