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
            var next = 0
            forEachKeyStringByte { byte in
                buffer[next] = byte
                next += 1
            }
            return next
        }
    }

    /// Calls `body` with each of ``keyString``'s 36 bytes (ASCII), in order, without making the
    /// string: for a writer that appends them where they go.
    @inline(__always)
    func forEachKeyStringByte(_ body: (UInt8) -> Void) {
        withUnsafeBytes(of: uuid) { raw in
            for (index, byte) in raw.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { body(UInt8(ascii: "-")) }
                body(Self.upperHexDigit(byte >> 4))
                body(Self.upperHexDigit(byte & 0xF))
            }
        }
    }

    /// The upper-case hexadecimal digit of `nibble` (0…15), as an ASCII byte.
    private static func upperHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
