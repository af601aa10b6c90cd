extension VisibleText {
    /// Why text a person typed was refused by ``check(_:allowsLineBreaks:)``.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// Nothing in the text shows: only white space, invisible code points, blank glyphs
        /// (U+2800, U+3164, U+115F) or combining marks without a character to sit on.
        case showsNothing
        /// A control character (C0, DEL or C1, such as NUL, tab or ESC).
        case controlCharacter(UInt32)
        /// A line break (line feed, U+2028, U+2029) in a field of one line.
        case lineBreak(UInt32)
        /// An invisible formatting character inside the text, such as the byte order mark U+FEFF
        /// or a zero-width space.
        case invisibleCharacter(UInt32)
        /// A private-use code point: what it looks like depends on the font, if it shows at all.
        case privateUseCharacter(UInt32)
        /// A bidirectional embedding, override or isolate (such as U+202E, RIGHT-TO-LEFT OVERRIDE)
        /// without its closing character, which would reorder whatever is shown after the text.
        case unpairedDirectionalControl(UInt32)

        /// The code point the refusal names, if any.
        public var codePoint: UInt32? {
            switch self {
            case .showsNothing: nil
            case let .controlCharacter(value), let .lineBreak(value), let .invisibleCharacter(value), let .privateUseCharacter(value),
                 let .unpairedDirectionalControl(value): value
            }
        }

        /// A sentence a person can act on, naming the character as `U+001B`.
        public var description: String {
            switch self {
            case .showsNothing: "shows nothing"
            case let .controlCharacter(value): "contains the control character \(Self.name(value))"
            case .lineBreak: "has more than one line"
            case let .invisibleCharacter(value): "contains the invisible character \(Self.name(value))"
            case let .privateUseCharacter(value): "contains the private-use character \(Self.name(value))"
            case let .unpairedDirectionalControl(value): "contains the direction control \(Self.name(value)) without its end"
            }
        }

        private static func name(_ value: UInt32) -> String {
            let hex = String(value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// Checks text a person typed against the one policy for every string SceneSync shows to
    /// other people: names, serial numbers, titles, messages.
    ///
    /// Refused: text that shows nothing; control characters (C0, DEL, C1), save tabs where
    /// `allowsLineBreaks`; line breaks, unless `allowsLineBreaks`; invisible formatting characters inside the text (U+FEFF, U+200B, …),
    /// save the joiners that build emoji and scripts (U+200C, U+200D), the direction marks (U+200E,
    /// U+200F, U+061C), the soft hyphen and the tag characters of flag emoji; private-use code
    /// points; and bidirectional embeddings, overrides and isolates that are not closed, in
    /// order, within the text. Check text after ``trimmed(_:)``: invisible code points at either
    /// end are trimmed, not refused.
    ///
    /// ```swift
    /// let name = VisibleText.trimmed(typed)
    /// try VisibleText.check(name)   // throws .controlCharacter(0x1B) for "\u{1B}[2J"
    /// ```
    public static func check(_ text: String, allowsLineBreaks: Bool = false) throws(Refusal) {
        // Open embeddings and overrides (closed by PDF) and isolates (closed by PDI), innermost last.
        var open: [UInt32] = []
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let properties = scalar.properties
            switch value {
            case 0x0A, 0x2028, 0x2029:
                guard allowsLineBreaks else { throw .lineBreak(value) }
            case 0x09:
                // A tab lines up pasted code or tables in text of several lines; a name has none.
                guard allowsLineBreaks else { throw .controlCharacter(value) }
            case 0x202A, 0x202B, 0x202D, 0x202E, 0x2066...0x2068:
                open.append(value)
            case 0x202C:
                // PDF closes the innermost embedding or override, if no isolate was opened after it.
                guard let last = open.last, (0x202A...0x202E).contains(last) else { throw .unpairedDirectionalControl(value) }
                open.removeLast()
            case 0x2069:
                // PDI closes the innermost isolate and every embedding opened inside it.
                guard let isolate = open.lastIndex(where: { (0x2066...0x2068).contains($0) }) else {
                    throw .unpairedDirectionalControl(value)
                }
                open.removeSubrange(isolate...)
            case 0x200C, 0x200D, 0x200E, 0x200F, 0x061C, 0x00AD, 0xE0020...0xE007F:
                // Joiners, direction marks, the soft hyphen and emoji tags: they shape what is shown.
                break
            default:
                if properties.generalCategory == .control { throw .controlCharacter(value) }
                if properties.generalCategory == .privateUse { throw .privateUseCharacter(value) }
                if properties.generalCategory == .format || properties.isNoncharacterCodePoint { throw .invisibleCharacter(value) }
                if properties.isDefaultIgnorableCodePoint, !properties.isVariationSelector, !isBlankGlyph(scalar) {
                    throw .invisibleCharacter(value)
                }
            }
        }
        if let unclosed = open.first { throw .unpairedDirectionalControl(unclosed) }
        guard hasVisibleContent(text) else { throw .showsNothing }
    }

    /// Blank glyphs that look like nothing but are letters: fine inside text, not on their own.
    static func isBlankGlyph(_ scalar: Unicode.Scalar) -> Bool {
        [0x2800, 0x115F, 0x1160, 0x3164, 0xFFA0].contains(scalar.value)
    }
}
