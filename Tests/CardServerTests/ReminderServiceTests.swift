import CardToken
import Foundation
import Membership
import PeezServices
import Testing

/// The reminder services' pure parts: signatures, texts, the daily schedule.
@Suite("Reminder services")
struct ReminderServiceTests {
    @Test func theSignatureIsTheStandardWebhooksExampleAndEverySecretSigns() throws {
        // The example of the Standard Webhooks specification.
        let signer = try StandardWebhookSigner(secrets: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let body = Array(#"{"test": 2432232314}"#.utf8)
        #expect(signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body)
                == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let rotating = try StandardWebhookSigner(secrets: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw " + StandardWebhookSigner.newSecret())
        let both = rotating.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body).split(separator: " ")
        #expect(both.count == 2 && both[0] == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(throws: ReminderSinkError.self) { try StandardWebhookSigner(secrets: "") }
        #expect(throws: ReminderSinkError.self) { try StandardWebhookSigner(secrets: "whsec_c2hvcnQ=") }
        #expect(throws: ReminderSinkError.self) { try StandardWebhookSigner(secrets: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") }
    }

    static func due(_ language: String, _ threshold: Reminder.Threshold) -> DueReminder {
        let uuid = UUID(uuidString: "6f1c2a7e-8d4b-4e9a-9c3f-2b7d5e1a0c44")!
        let end = AlgiersCalendar.startOfDay("2027-01-01")!
        let reminder = Reminder(id: Reminder.id(memberUUID: uuid, coverageEnd: end, threshold: threshold, channel: "push"), memberUUID: uuid,
                                coverageEnd: end, threshold: threshold, channel: "push", state: .pending, attempts: 1, nextAttemptAt: 0,
                                lastError: nil, createdAt: 0, deliveredAt: nil)
        return DueReminder(reminder: reminder, membershipID: "PEEZ-20251103-00002", name: "Amina", language: language, currentCoverageEnd: end)
    }

    @Test func textsComeFromTheTemplatesInTheMembersLanguageFrenchByDefault() {
        let templates = ReminderTemplates.builtIn
        #expect(templates.render(Self.due("fr", .threeDays)).body == "Votre abonnement PEEZ expire dans 3 jours — renouvelez chez n'importe quel commerçant partenaire")
        #expect(templates.render(Self.due("ar", .threeDays)).body == "ينتهي اشتراكك في PEEZ خلال 3 أيام — جدّد لدى أي تاجر شريك")
        #expect(templates.render(Self.due("ar", .ended)).body.contains("2026-12-31"), "the last day covered, not the end's midnight")
        #expect(templates.render(Self.due("de", .oneDay)).language == "fr")
        #expect(templates.render(Self.due("fr", .oneDay)).deepLink == "peez://renew?membership_id=PEEZ-20251103-00002")
        let message = ReminderMessage(Self.due("fr", .sevenDays), templates: templates, now: 0)
        #expect(message.data.days_before_end == 7 && message.data.reminder_id.hasSuffix("_7d_push"))
        #expect(throws: (any Error).self) { try ReminderTemplates(json: Data(#"{"deep_link": "x", "languages": {"fr": {}}}"#.utf8)) }
    }

    @Test func theDailyRunIsAtTheAlgiersTimeGiven() throws {
        let daily = try DailyReminders(at: "09:30", log: { _ in }) { throw ReminderSinkError("not run") }
        let morning = AlgiersCalendar.startOfDay("2026-12-20")! + 8 * 3_600
        #expect(daily.nextRun(after: morning) == morning + 5_400)
        #expect(daily.nextRun(after: morning + 5_400) == morning + 5_400 + 86_400, "just run: tomorrow")
        for bad in ["9h30", "24:00", "09:60", "09:5", ""] {
            #expect(throws: ReminderSinkError.self) { try DailyReminders(at: bad, log: { _ in }) { throw ReminderSinkError("") } }
        }
    }
}
