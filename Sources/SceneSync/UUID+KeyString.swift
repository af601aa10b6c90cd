public import Foundation

extension UUID {
    /// The same 36 characters as `uuidString` (upper-case hexadecimal digits in groups of 8, 4,
    /// 4, 4 and 12, joined by hyphens), spelled without Foundation's formatting, which goes
    /// through `snprintf`.
    ///
    /// A UUID spelled as a record key or a row id is spelled for every event that touches it, on
    /// the model controller's turn; use this there. The two spellings are interchangeable: keys
    /// written with one are found with the other.
    public var keyString: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            withUnsafeBytes(of: uuid) { raw in
                var next = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[next] = UInt8(ascii: "-")
                        next += 1
                    }
                    buffer[next] = UUID.upperHexDigit(byte >> 4)
                    buffer[next + 1] = UUID.upperHexDigit(byte & 0xF)
                    next += 2
                }
                return next
            }
        }
    }

    /// The upper-case hexadecimal digit of `nibble` (0…15), as an ASCII byte.
    static func upperHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
