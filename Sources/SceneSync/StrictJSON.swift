public import Foundation

/// JSON read to the letter of RFC 8259, keeping what a general decoder blurs: a number written as
/// an integer (`2`) is not one written otherwise (`2.0`, `2e0`, `-0.0`), `true` is not `1`, a key
/// may appear once, and text must be valid UTF-8. Window messages and apps' own request bodies and
/// files are read with it, so that an integer is written as one and nothing else passes for it.
///
/// ```swift
/// guard case let .object(fields) = try StrictJSON.parse(body),
///       case let .integer(count)? = fields["count"] else { throw BadRequest() }
/// ```
///
/// ``parse(_:)`` takes one value with only white space around it, and refuses with
/// ``Invalid`` anything RFC 8259 does not allow (comments, trailing commas, single quotes, `NaN`,
/// a leading zero, an unknown escape, a control character in a string, text after the value) and
/// what it leaves open: a key twice in one object, a string that is not UTF-8 or holds a lone
/// surrogate, a number beyond `Double`'s range, and nesting deeper than ``maximumDepth``.
public enum StrictJSON: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written as an integer (no fraction, no exponent) that fits in `Int`.
    case integer(Int)
    /// Any other number: one with a fraction or an exponent, or an integer too large for `Int`.
    case number(Double)
    /// A string, its escapes resolved.
    case string(String)
    /// An array, in order.
    case array([StrictJSON])
    /// An object, by key; each key appears once in the text.
    case object([String: StrictJSON])

    /// Why a text is not JSON, as ``StrictJSON/parse(_:)`` reads it.
    public struct Invalid: Error, Equatable {
        /// What is wrong, in words, such as "nested too deeply" or "text after the value".
        public let reason: String
        /// Where, in bytes from the start of the text.
        public let offset: Int
    }

    /// The deepest nesting of arrays and objects read: a value inside 16 of them is read, one
    /// inside 17 is refused. A window's messages need three.
    public static let maximumDepth = 16

    /// Parses a whole JSON text: one value, with only white space around it.
    ///
    /// - Throws: ``Invalid`` with the first problem and its byte offset.
    public static func parse(_ data: Data) throws(Invalid) -> StrictJSON {
        try parse(bytes: [UInt8](data))
    }

    /// Parses a whole JSON text given as its UTF-8 bytes: one value, with only white space
    /// around it.
    ///
    /// - Throws: ``Invalid`` with the first problem and its byte offset.
    public static func parse(bytes: [UInt8]) throws(Invalid) -> StrictJSON {
        var reader = Reader(bytes: bytes)
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw reader.invalid("text after the value") }
        return value
    }

    /// What the value is, in words for messages: `"an integer"`, `"a string"`, `"an object"`, ….
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .integer: "an integer"
        case .number: "a number with a fraction or an exponent"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var isAtEnd: Bool { index == bytes.count }

        func invalid(_ reason: String) -> Invalid { Invalid(reason: reason, offset: index) }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(Invalid) -> StrictJSON {
            skipWhitespace()
            guard index < bytes.count else { throw invalid("no value") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw invalid("an unexpected character")
            }
        }

        private mutating func literal(_ word: StaticString) throws(Invalid) {
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
                throw invalid("an unknown literal")
            }
            index += expected.count
        }

        private mutating func object(depth: Int) throws(Invalid) -> StrictJSON {
            guard depth <= StrictJSON.maximumDepth else { throw invalid("nested too deeply") }
            index += 1
            var members: [String: StrictJSON] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw invalid("a key that is not a string") }
                let keyStart = index
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw invalid("a key without a value") }
                index += 1
                guard members[key] == nil else { throw Invalid(reason: "the key \(key.debugDescription) twice", offset: keyStart) }
                members[key] = try value(depth: depth)
                skipWhitespace()
                guard index < bytes.count else { throw invalid("an unterminated object") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                guard bytes[index] == UInt8(ascii: "}") else { throw invalid("an unterminated object") }
                index += 1
                return .object(members)
            }
        }

        private mutating func array(depth: Int) throws(Invalid) -> StrictJSON {
            guard depth <= StrictJSON.maximumDepth else { throw invalid("nested too deeply") }
            index += 1
            var elements: [StrictJSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth))
                skipWhitespace()
                guard index < bytes.count else { throw invalid("an unterminated array") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                guard bytes[index] == UInt8(ascii: "]") else { throw invalid("an unterminated array") }
                index += 1
                return .array(elements)
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        private mutating func number() throws(Invalid) -> StrictJSON {
            let start = index
            var isInteger = true
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw invalid("a malformed number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) { throw invalid("a number with a leading zero") }
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw invalid("a malformed number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { throw invalid("a malformed number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if isInteger, let integer = Int(text) { return .integer(integer) }
            guard let number = Double(text), number.isFinite else { throw invalid("a number out of range") }
            return .number(number)
        }

        private mutating func string() throws(Invalid) -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var run = index
            func flush(_ reader: Reader, upTo end: Int) throws(Invalid) {
                guard run < end else { return }
                guard let text = String(validating: reader.bytes[run..<end], as: UTF8.self) else {
                    throw reader.invalid("text that is not UTF-8")
                }
                scalars.append(contentsOf: text.unicodeScalars)
            }
            while true {
                guard index < bytes.count else { throw invalid("an unterminated string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    try flush(self, upTo: index)
                    index += 1
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw invalid("a control character in a string") }
                guard byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                try flush(self, upTo: index)
                index += 1
                guard index < bytes.count else { throw invalid("an unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try escapedScalar())
                default: throw invalid("an unknown escape")
                }
                run = index
            }
        }

        /// The code point of `\uXXXX`, or of a surrogate pair of two; a lone surrogate is refused.
        private mutating func escapedScalar() throws(Invalid) -> Unicode.Scalar {
            let high = try hex4()
            if (0xD800...0xDBFF).contains(high) {
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw invalid("a lone surrogate")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw invalid("a lone surrogate") }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else { throw invalid("a lone surrogate") }
            return scalar
        }

        private mutating func hex4() throws(Invalid) -> UInt32 {
            guard bytes.count - index >= 4 else { throw invalid("a short \\u escape") }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw invalid("a malformed \\u escape")
                }
                value = value << 4 | digit
            }
            index += 4
            return value
        }

        private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    }
}
