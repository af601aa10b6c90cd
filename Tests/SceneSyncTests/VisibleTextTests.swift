import SceneSync
import Testing

struct VisibleTextTests {
    @Test(arguments: ["", " ", "\u{0}", "\u{200D}", "\u{FEFF}", "\u{3164}", "\u{115F}", "\u{1160}", "\u{FFA0}", "\u{2800}",
                      "\u{200B}\u{200C}\u{2060}", "\u{FE0F}", "\u{202E}\u{202D}", "\u{00AD}", "\u{180E}", "\u{2028}\u{2029}",
                      "\t\r\n\u{7F}\u{85}", "\u{3000}\u{00A0}\u{2007}", "\u{E0001}\u{E0020}"])
    func textThatShowsNothingHasNoVisibleContent(text: String) {
        #expect(!VisibleText.hasVisibleContent(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(VisibleText.trimmed(text).isEmpty)
    }

    @Test(arguments: ["a", "Spork", "한글", "漢字", "مرحبا", "Crème brûlée", "👩‍👩‍👧", "🇫🇷", "1", "·", "\u{E000}"])
    func textThatShowsSomethingHasVisibleContent(text: String) {
        #expect(VisibleText.hasVisibleContent(text))
        #expect(VisibleText.trimmed(text) == text)
    }

    @Test func trimmingTakesInvisibleCharactersOffTheEndsOnly() {
        #expect(VisibleText.trimmed("\u{200B} Rusty\u{200D}Spork \u{FEFF}\n") == "Rusty\u{200D}Spork")
        #expect(VisibleText.trimmed("\u{3164}👩‍👩‍👧\u{3164}") == "👩‍👩‍👧")
    }

    @Test func textForATerminalHasItsControlCharactersWrittenOut() {
        // What would retitle the terminal, ring its bell and clear it.
        #expect(VisibleText.escapedForTerminal("\u{1B}]0;PWNED\u{07}\u{1B}[2J") == #"\u{1B}]0;PWNED\u{7}\u{1B}[2J"#)
        // C1 controls (a lone CSI), DEL, and a right-to-left override that would reverse what follows.
        #expect(VisibleText.escapedForTerminal("a\u{9B}2Jb\u{7F}\u{202E}cba") == #"a\u{9B}2Jb\u{7F}\u{202E}cba"#)
        // Everything else is kept as it is.
        for text in ["Rusty Spork", "Crème brûlée", "مرحبا", "👩‍👩‍👧", "$1,000"] {
            #expect(VisibleText.escapedForTerminal(text) == text)
        }
    }
}
