import Foundation
import Membership
import Testing

@Suite("Text people are shown")
struct TextRuleTests {
    @Test(arguments: [
        "Ahmed\u{0}Evil", "Ahmed\u{7}", "Ahmed\u{7F}", "Ah\u{85}med", "\u{202E}demhA", "Ahmed \u{2066}Mohamed\u{2069}", "Ahmed\nMohamed",
    ])
    func controlAndBidiOverrideCharactersAreRefusedInNames(name: String) {
        let draft = MemberDraft(uuid: UUID(), name: name, phone: "+213550000001", email: "a@example.dz", neighbourhood: "usto")
        #expect(throws: MembershipError(.invalidFields, "")) { try draft.validated() }
        do { _ = try draft.validated() } catch { #expect(error.fields.keys.sorted() == ["name"], "\(error)") }
    }

    @Test func theRefusalNamesTheCharacterAndWhereItIs() {
        #expect(TextRules.disguisingCharacterProblem("Ahmed\u{0}Evil")?.contains("U+0000 at character 6") == true)
        #expect(TextRules.disguisingCharacterProblem("\u{202E}x")?.contains("U+202E at character 1") == true)
    }

    @Test(arguments: ["أحمد محمد", "Zoubida Ben-Ali", "Émilie N'Diaye", "محمد \u{200F}(USTO)"])
    func ordinaryNamesInEitherScriptAreAccepted(name: String) {
        #expect(TextRules.disguisingCharacterProblem(name) == nil)
    }

    @Test func anEmailWithANulIsRefusedNamingTheEmail() {
        let draft = MemberDraft(uuid: UUID(), name: "Ahmed", phone: "+213550000001", email: "nul\u{0}x@example.dz", neighbourhood: "usto")
        do {
            _ = try draft.validated()
            Issue.record("accepted")
        } catch {
            #expect(error.fields.keys.sorted() == ["email"])
        }
    }

    @Test func aVendorNameWithAnOverrideIsRefused() {
        #expect(throws: MembershipError(.invalidFields, "")) {
            try Vendor.validate(name: "Boucherie \u{202E}elartneC", category: "boucherie", neighbourhood: "usto")
        }
    }

    @Test func membershipIDsHaveOneForm() {
        #expect(Member.isMembershipID("PEEZ-20251103-00002"))
        #expect(Member.isMembershipID("PEEZ-20251103-123456"), "a busy day's sequence may outgrow five digits")
        for bad in [
            "PEEZ-20251103-00001\u{0}anything", "PEEZ-20251103-0001", "peez-20251103-00001", "PEEZ-2025113-00001",
            "PEEZ-20251103-00001 ", "PEEZ-٢٠٢٥١١٠٣-00001", "PEEZ-20251103", "",
        ] {
            #expect(!Member.isMembershipID(bad), "\(bad.debugDescription)")
        }
    }

    @Test func whatATerminalPrintsCanNeitherMoveTheCursorNorReorderTheLine() {
        #expect(TextRules.terminalSafe("console (\u{1B}[2J\rAmina\u{202E})") == "console (\\u{1b}[2J\\u{d}Amina\\u{202e})")
        #expect(TextRules.terminalSafe("Épicerie du Port · مخبزة") == "Épicerie du Port · مخبزة", "ordinary text, Arabic included, as it is")
    }
}
