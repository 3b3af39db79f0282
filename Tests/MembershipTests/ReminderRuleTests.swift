import Membership
import Testing

@Suite("Reminder rules")
struct ReminderRuleTests {
    @Test func theMostUrgentThresholdReachedIsDue() {
        let end: Int64 = 1_800_000_000
        #expect(Reminder.Threshold.due(coverageEnd: end, now: end - 7 * 86_400 - 1) == nil)
        #expect(Reminder.Threshold.due(coverageEnd: end, now: end - 7 * 86_400) == .sevenDays)
        #expect(Reminder.Threshold.due(coverageEnd: end, now: end - 3 * 86_400 - 1) == .sevenDays)
        #expect(Reminder.Threshold.due(coverageEnd: end, now: end - 3 * 86_400) == .threeDays)
        #expect(Reminder.Threshold.due(coverageEnd: end, now: end - 1) == .oneDay)
        #expect(Reminder.Threshold.due(coverageEnd: end, now: end) == .ended)
        #expect(Reminder.Threshold.due(coverageEnd: end, now: end + Reminder.endedWindow) == nil)
    }

    @Test func retriesWaitTheScheduleWithAtMostAFifthMoreAndHonourRetryAfter() {
        let schedule = RetrySchedule(delays: [0, 5, 300], maxAttempts: 4)
        #expect(schedule.nextAttempt(after: 1, now: 100, jitter: { _ in 0 }) == 100)
        #expect(schedule.nextAttempt(after: 2, now: 100, jitter: { _ in 0 }) == 105)
        #expect(schedule.nextAttempt(after: 3, now: 100, jitter: { _ in 0 }) == 400)
        #expect(schedule.nextAttempt(after: 4, now: 100) == nil, "attempts used up")
        #expect(schedule.nextAttempt(after: 2, now: 100, retryAfter: 60, jitter: { _ in 0 }) == 160)
        let capped = schedule.nextAttempt(after: 2, now: 100, retryAfter: 10_000_000, jitter: { _ in 0 })
        #expect(capped == 86_500, "capped at a day")
        for _ in 0..<200 {
            let next = schedule.nextAttempt(after: 3, now: 0)!
            #expect((300...360).contains(next))
        }
    }
}
