import Membership
import Testing

/// The one definition of "days left" that the API and the CLI both show.
@Suite("Days left")
struct DaysLeftTests {
    @Test func aDayBegunCountsWholeInDaysLeft() {
        let end: Int64 = 1_800_000_000
        #expect(CoverageSchedule.daysLeft(until: end, now: end) == 0)
        #expect(CoverageSchedule.daysLeft(until: end, now: end + 1) == 0)
        #expect(CoverageSchedule.daysLeft(until: end, now: end - 1) == 1, "the last second of the last day")
        #expect(CoverageSchedule.daysLeft(until: end, now: end - 86_400) == 1)
        #expect(CoverageSchedule.daysLeft(until: end, now: end - 86_401) == 2)
        #expect(CoverageSchedule.daysLeft(until: end, now: end - 30 * 86_400 + 3_600) == 30)
    }
}
