import SceneSync
import Testing

/// The one text policy: what a person may put in a name, a title or a message that others see.
struct VisibleTextPolicyTests {
    @Test(arguments: [
        ("a\u{0}b", VisibleText.Refusal.controlCharacter(0x0)),
        ("\u{1B}]0;PWNED\u{07}\u{1B}[2J", .controlCharacter(0x1B)),
        ("pay\u{85}now", .controlCharacter(0x85)),
        ("tab\there", .controlCharacter(0x9)),
        ("two\nlines", .lineBreak(0xA)),
        ("two\u{2028}lines", .lineBreak(0x2028)),
        ("Spo\u{FEFF}rk", .invisibleCharacter(0xFEFF)),
        ("Spo\u{200B}rk", .invisibleCharacter(0x200B)),
        ("Sp\u{E000}rk", .privateUseCharacter(0xE000)),
        ("Sp\u{F0000}rk", .privateUseCharacter(0xF0000)),
        ("file\u{202E}gpj.exe", .unpairedDirectionalControl(0x202E)),
        ("a\u{2067}b", .unpairedDirectionalControl(0x2067)),
        ("a\u{202C}b", .unpairedDirectionalControl(0x202C)),
        ("a\u{2069}b", .unpairedDirectionalControl(0x2069)),
        // An override opened inside an isolate cannot be closed by PDF after the isolate closed.
        ("a\u{2066}b\u{202E}c\u{2069}\u{202C}", .unpairedDirectionalControl(0x202C)),
        ("\u{2800}", .showsNothing),
        ("\u{3164}", .showsNothing),
        ("\u{115F}\u{1160}", .showsNothing),
        ("\u{301}\u{302}\u{303}", .showsNothing),
        ("\u{20DD}", .showsNothing),
        ("", .showsNothing),
    ])
    func refusesTextThatHidesOrShowsNothing(text: String, refusal: VisibleText.Refusal) {
        #expect(throws: refusal) { try VisibleText.check(text) }
    }

    @Test(arguments: [
        "Rusty Spork", "Crème brûlée", "e\u{301}", "한글", "مرحبا", "👩‍👩‍👧", "🇫🇷", "❤️", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
        "ab\u{200C}c", "\u{202B}עברית\u{202C} and more", "a\u{2067}b\u{2069}", "a\u{2066}b\u{202E}c\u{202C}\u{2069}",
        "co\u{00AD}operate", "a\u{3164}b", "£ 100\u{00A0}000", "·",
    ])
    func acceptsWhatPeopleWrite(text: String) throws {
        try VisibleText.check(text)
    }

    @Test func takesLineBreaksOnlyWhereAFieldHasSeveralLines() throws {
        try VisibleText.check("first\nsecond", allowsLineBreaks: true)
        try VisibleText.check("name\tprice\nSpork\t$3", allowsLineBreaks: true)
        #expect(throws: VisibleText.Refusal.controlCharacter(0xD)) { try VisibleText.check("first\r\nsecond", allowsLineBreaks: true) }
        #expect(throws: VisibleText.Refusal.showsNothing) { try VisibleText.check("\n\n", allowsLineBreaks: true) }
    }

    @Test func namesTheCharacterItRefuses() {
        #expect(VisibleText.Refusal.controlCharacter(0x1B).description == "contains the control character U+001B")
        #expect(VisibleText.Refusal.unpairedDirectionalControl(0x202E).codePoint == 0x202E)
        #expect(VisibleText.Refusal.showsNothing.codePoint == nil)
    }
}
