import Foundation
import Membership
import PeezBasics
import Testing

@Suite("Membership rules")
struct MembershipRuleTests {
    /// 2026-01-31 10:00 in Algiers.
    let january31: Int64 = 1_769_850_000

    @Test func monthArithmeticIsAnchoredAndClamped() {
        #expect(AlgiersCalendar.iso8601(AlgiersCalendar.adding(months: 1, to: january31)) == "2026-02-28T10:00:00+01:00")
        #expect(AlgiersCalendar.iso8601(AlgiersCalendar.adding(months: 2, to: january31)) == "2026-03-31T10:00:00+01:00")
        #expect(AlgiersCalendar.iso8601(AlgiersCalendar.adding(months: 3, to: january31)) == "2026-04-30T10:00:00+01:00")
        // 2028 is a leap year: Jan 31 + 1 month is Feb 29.
        let leap = january31 + 2 * 365 * 86_400  // 2028-01-31
        #expect(AlgiersCalendar.iso8601(AlgiersCalendar.adding(months: 1, to: leap)) == "2028-02-29T10:00:00+01:00")
    }

    @Test func membershipIDUsesTheAlgiersDay() {
        // 2025-11-03T23:30:00Z is 2025-11-04 00:30 in Algiers.
        #expect(Member.membershipID(registeredAt: 1_762_212_600, sequence: 2) == "PEEZ-20251104-00002")
    }

    @Test func periodsAreLaidEndToEndAndCancelledOnesTakeNoRoom() {
        let member = UUID()
        func period(_ purchasedAt: Int64, cancelled: Int64? = nil) -> SubscriptionPeriod {
            SubscriptionPeriod(
                id: UUID(),
                memberUUID: member,
                months: 1,
                amountDZD: 300,
                source: .vendor,
                vendorID: nil,
                purchasedAt: purchasedAt,
                startsAt: 0,
                endsAt: 0,
                cancelledAt: cancelled
            )
        }
        let laid = CoverageSchedule.laidOut([period(january31), period(january31 + 5), period(january31 + 10)])
        #expect(laid[1].startsAt == laid[0].endsAt && laid[2].startsAt == laid[1].endsAt)
        let withCancel = CoverageSchedule.laidOut([period(january31, cancelled: january31 + 20), period(january31 + 5), period(january31 + 10)])
        #expect(withCancel[1].startsAt == january31 + 5)
        #expect(withCancel[2].startsAt == withCancel[1].endsAt)
        #expect(CoverageSchedule.coverageEnd(withCancel) == withCancel[2].endsAt)
        #expect(CoverageSchedule.coverageEnd([]) == nil)
    }

    @Test func aNewPeriodIsPlacedWhereLayingOutTheWholeHistoryWouldPutIt() {
        var generator = SystemRandomNumberGenerator()
        let member = UUID()
        for _ in 0..<2_000 {
            var purchase = january31
            let history = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                purchase += Int64.random(in: 0...(60 * 86_400), using: &generator)
                return SubscriptionPeriod(
                    id: UUID(),
                    memberUUID: member,
                    months: Int.random(in: 1...3, using: &generator),
                    amountDZD: 300,
                    source: .vendor,
                    vendorID: nil,
                    purchasedAt: purchase,
                    startsAt: 0,
                    endsAt: 0,
                    cancelledAt: Bool.random(using: &generator) && Bool.random(using: &generator) ? purchase + 1 : nil
                )
            }
            let laid = CoverageSchedule.laidOut(history)
            purchase += Int64.random(in: 0...(60 * 86_400), using: &generator)
            let sale = SubscriptionPeriod(
                id: UUID(),
                memberUUID: member,
                months: Int.random(in: 1...3, using: &generator),
                amountDZD: 300,
                source: .vendor,
                vendorID: nil,
                purchasedAt: purchase,
                startsAt: purchase,
                endsAt: purchase
            )
            #expect(CoverageSchedule.placed(sale, after: CoverageSchedule.coverageEnd(laid)) == CoverageSchedule.laidOut(laid + [sale]).last)
            #expect(Array(CoverageSchedule.laidOut(laid + [sale]).dropLast()) == laid, "the periods already laid out do not move")
        }
    }

    @Test func periodStatusFollowsTheClock() {
        let period = SubscriptionPeriod(
            id: UUID(),
            memberUUID: UUID(),
            months: 1,
            amountDZD: 300,
            source: .vendor,
            vendorID: nil,
            purchasedAt: 100,
            startsAt: 200,
            endsAt: 300
        )
        #expect(period.status(at: 150) == .scheduled)
        #expect(period.status(at: 200) == .active)
        #expect(period.status(at: 300) == .expired)
        var cancelled = period
        cancelled.cancelledAt = 250
        #expect(cancelled.status(at: 210) == .cancelled)
    }

    @Test(arguments: [(1, 300, true), (2, 600, true), (3, 900, true), (1, 250, false), (2, 300, false), (4, 1200, false), (0, 0, false)])
    func priceIsThreeHundredDinarsAMonthForOneToThreeMonths(months: Int, amount: Int, accepted: Bool) {
        #expect(((try? Pricing.validate(months: months, amountDZD: amount)) != nil) == accepted)
    }

    @Test func memberFieldsAreValidatedEachWithItsProblem() {
        let draft = MemberDraft(uuid: UUID(), name: " ", phone: "0550123456", email: "not-an-email", neighbourhood: "paris")
        let error = #expect(throws: MembershipError.self) { try draft.validated() }
        #expect(Set(error?.fields.keys ?? [:].keys) == ["name", "phone", "email", "neighbourhood"])
    }

    @Test func theNameIsTrimmedAndTheEmailLowerCased() throws {
        let draft = try MemberDraft(
            uuid: UUID(),
            name: "  Ahmed Mohamed ",
            phone: "+213550123456",
            email: "Ahmed@Example.DZ",
            neighbourhood: "usto"
        ).validated()
        #expect(draft.name == "Ahmed Mohamed" && draft.phone == "+213550123456" && draft.email == "ahmed@example.dz")
    }

    /// Each field is judged as it was sent, exactly as the OpenAPI document's patterns judge it.
    @Test func fieldsAreJudgedAsSentAsTheDocumentsPatternsJudgeThem() {
        func problems(name: String = "Ahmed", phone: String = "+213550123456", email: String = "a@example.dz") -> Set<String> {
            do {
                _ = try MemberDraft(uuid: UUID(), name: name, phone: phone, email: email, neighbourhood: "usto").validated()
                return []
            } catch { return Set(error.fields.keys) }
        }
        #expect(problems(phone: "+213 550 12 34 56") == ["phone"], "E.164 without spaces")
        #expect(problems(email: " a@example.dz") == ["email"])
        #expect(problems(email: "a@\u{301}example.dz").isEmpty, "a combining mark is a character of the domain")
        #expect(problems(email: "a@example.dz\u{301}@x.dz") == ["email"], "a combining mark cannot hide a second @")
        #expect(problems(email: "a@.example.dz") == ["email"] && problems(email: "a@example") == ["email"])
        #expect(problems(name: String(repeating: "ب", count: 128)).isEmpty, "128 characters, 256 bytes of UTF-8")
        #expect(problems(name: String(repeating: "b", count: 129)) == ["name"])
        #expect(problems(name: "Ahmed\u{85}") == ["name"], "a control character is refused before the name is trimmed")
        #expect(problems(name: " \u{3000} ") == ["name"], "only spaces")
    }

    @Test func oranHasSixteenNeighbourhoodsAndTwelveCategories() {
        #expect(Set(Oran.neighbourhoods.map(\.id)).count == 16)
        #expect(Set(Oran.categories.map(\.id)).count == 12)
    }

    @Test func apiSecretsAreLongRandomAndRoleTagged() {
        let secrets = (0..<100).map { _ in APISecret.generate(role: .vendor) }
        #expect(Set(secrets).count == 100)
        #expect(secrets.allSatisfy { $0.hasPrefix("peez_vendor_") && $0.count == "peez_vendor_".count + 43 })
    }
}
