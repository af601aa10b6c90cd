import Foundation

extension SceneSession {
    /// A scene session's persistent identifier: 128 random bits, written as 32 lowercase hex digits.
    ///
    /// Unguessable, so a window's id can travel to a browser without letting another page take
    /// over that window's session.
    public struct ID: Hashable, Codable, Sendable, CustomStringConvertible, Comparable {
        /// The identifier as 32 lowercase hexadecimal digits.
        public let rawValue: String

        /// Makes a new random identifier from the system's secure random source.
        public init() {
            var generator = SystemRandomNumberGenerator()
            let high = generator.next() as UInt64
            let low = generator.next() as UInt64
            rawValue = Self.hex(high) + Self.hex(low)
        }

        /// Accepts an identifier sent back by a client; `nil` unless it is 32 lowercase hex digits.
        public init?(_ text: String) {
            guard text.utf8.count == 32,
                  text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
            else { return nil }
            rawValue = text
        }

        public init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let id = ID(text) else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: decoder.codingPath,
                    debugDescription: "A scene session id is 32 lowercase hex digits, not \(text.debugDescription)"))
            }
            self = id
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { rawValue }

        public static func < (lhs: ID, rhs: ID) -> Bool { lhs.rawValue < rhs.rawValue }

        private static func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
    }
}
