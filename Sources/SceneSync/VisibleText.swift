/// Text as a person sees it, for validating what people type: names, serial numbers, messages.
///
/// A name of a single NUL, a zero-width joiner (U+200D), a byte order mark (U+FEFF) or a Hangul
/// filler (U+3164) looks empty, and one letter under 30,000 combining marks counts as one
/// character but takes 60 KB. So text is checked for something visible once white space, control
/// and format characters and other invisible code points are set aside, and is limited in bytes
/// as well as in characters.
///
/// ```swift
/// let name = VisibleText.trimmed(typed)
/// guard VisibleText.hasVisibleContent(name) else { throw .emptyName }
/// guard name.utf8.count <= 800 else { throw .nameTooLarge(bytes: name.utf8.count) }
/// ```
public enum VisibleText {
    /// Whether `text` has at least one character a person can see: something other than invisible
    /// code points (see ``isInvisible(_:)``) and combining marks, which draw nothing by themselves.
    public static func hasVisibleContent(_ text: String) -> Bool {
        text.unicodeScalars.contains { !isInvisible($0) && !isMark($0) }
    }

    /// `text` without the invisible code points (see ``isInvisible(_:)``) at either end.
    public static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isInvisible($0) }),
              let last = scalars.lastIndex(where: { !isInvisible($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// `text` safe to print on a terminal: every control character (C0, DEL and C1; ESC begins the
    /// sequences that retitle, clear or rewrite a terminal) and every bidirectional control (which
    /// reorders what follows it) is written as its code point, `\u{1B}`; the rest is kept.
    ///
    /// ```swift
    /// VisibleText.escapedForTerminal("\u{1B}]0;PWNED\u{07}")   // "\\u{1B}]0;PWNED\\u{7}"
    /// ```
    public static func escapedForTerminal(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar.properties.isBidiControl {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// Whether a code point is a combining mark (`Mn`, `Mc`, `Me`), drawn on the character before it.
    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// Whether a code point draws nothing by itself: white space, a control or format character,
    /// a default-ignorable code point (joiners, fillers, variation selectors), a lone surrogate,
    /// or a blank glyph such as the Hangul filler or the empty Braille pattern.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isWhitespace || properties.isDefaultIgnorableCodePoint { return true }
        switch properties.generalCategory {
        case .control, .format, .surrogate, .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return true
        default:
            // Blank glyphs Unicode does not class as ignorable.
            return isBlankGlyph(scalar)
        }
    }
}
