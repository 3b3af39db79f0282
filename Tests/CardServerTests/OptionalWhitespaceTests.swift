import Testing

@testable import CardServer

@Suite("Optional whitespace around a header field's value")
struct OptionalWhitespaceTests {
    @Test func spacesAndTabsAroundTheValueGoAndEverythingElseStays() {
        #expect(Substring(" \t secret \t ").trimmingOptionalWhitespace == "secret")
        #expect(Substring("a b\tc").trimmingOptionalWhitespace == "a b\tc")
        #expect(Substring(" \t ").trimmingOptionalWhitespace == "")
        #expect(Substring("").trimmingOptionalWhitespace == "")
        // Only SP and HTAB are optional whitespace (RFC 9110 §5.6.3): a no-break space or a line feed is the value's.
        #expect(Substring("\u{00A0}secret\n").trimmingOptionalWhitespace == "\u{00A0}secret\n")
        #expect(Substring(" é ").trimmingOptionalWhitespace == "é")
    }
}
