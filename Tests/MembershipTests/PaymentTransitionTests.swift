import Foundation
import Membership
import Testing

/// The payment's state machine, as data: what each word from the gateway does to each status. `paid` is final;
/// a paid word sells only for exactly what was asked.
@Suite("Payment transitions")
struct PaymentTransitionTests {
    static func payment(_ status: PaymentStatus, amount: Int = 600, livemode: Bool = false) -> Payment {
        Payment(
            id: UUID(),
            memberUUID: UUID(),
            months: 2,
            amountDZD: amount,
            status: status,
            livemode: livemode,
            keyScope: "backend",
            idempotencyKey: "k",
            requestHash: "h",
            createdAt: 0,
            updatedAt: 0,
            nextCheckAt: 300
        )
    }

    static func word(_ status: PaymentStatus, amount: Int = 600, currency: String = "dzd", livemode: Bool = false) -> CheckoutObservation {
        CheckoutObservation(checkoutID: "c1", status: status, amount: amount, currency: currency, livemode: livemode, paymentID: nil)
    }

    @Test(arguments: PaymentStatus.allCases)
    func aPaidPaymentIsNeverUndoneNorSoldAgain(_ word: PaymentStatus) {
        #expect(PaymentTransition.of(Self.payment(.paid), observing: Self.word(word)) == .unchanged)
    }

    @Test(arguments: [PaymentStatus.creating, .pending, .processing, .failed, .canceled, .expired])
    func aPaidWordForWhatWasAskedSellsFromAnyStatusButPaid(_ status: PaymentStatus) {
        #expect(PaymentTransition.of(Self.payment(status), observing: Self.word(.paid)) == .sell)
    }

    @Test func anOpenPaymentFollowsTheGatewayButNeverBackToPending() {
        #expect(PaymentTransition.of(Self.payment(.pending), observing: Self.word(.processing)) == .move(.processing))
        #expect(PaymentTransition.of(Self.payment(.processing), observing: Self.word(.failed)) == .move(.failed))
        #expect(PaymentTransition.of(Self.payment(.pending), observing: Self.word(.expired)) == .move(.expired))
        #expect(PaymentTransition.of(Self.payment(.processing), observing: Self.word(.pending)) == .unchanged)
        #expect(PaymentTransition.of(Self.payment(.pending), observing: Self.word(.pending)) == .unchanged)
    }

    @Test func anEndedPaymentStaysEndedUnlessPaid() {
        #expect(PaymentTransition.of(Self.payment(.failed), observing: Self.word(.expired)) == .unchanged)
        #expect(PaymentTransition.of(Self.payment(.expired), observing: Self.word(.processing)) == .unchanged)
        #expect(PaymentTransition.of(Self.payment(.canceled), observing: Self.word(.failed)) == .unchanged)
    }

    @Test func aPaidWordForAnotherAmountCurrencyOrModeSellsNothing() {
        let pending = Self.payment(.pending)
        guard case .mismatch = PaymentTransition.of(pending, observing: Self.word(.paid, amount: 300)) else {
            Issue.record("amount")
            return
        }
        guard case .mismatch = PaymentTransition.of(pending, observing: Self.word(.paid, currency: "eur")) else {
            Issue.record("currency")
            return
        }
        guard case .mismatch = PaymentTransition.of(pending, observing: Self.word(.paid, livemode: true)) else {
            Issue.record("mode")
            return
        }
        #expect(PaymentTransition.of(pending, observing: Self.word(.paid, currency: "DZD")) == .sell)
        #expect(PaymentTransition.of(Self.payment(.mismatched), observing: Self.word(.paid)) == .unchanged)
    }

    @Test func onlyAReadBackFindingItEndedUnpaidSettlesAPaymentAWebhookClosed() {
        #expect(Payment.readBackSettles(Self.word(.failed), status: .failed))
        #expect(Payment.readBackSettles(Self.word(.expired), status: .canceled))
        #expect(!Payment.readBackSettles(Self.word(.paid), status: .failed), "the money was taken after all: sell it")
        #expect(!Payment.readBackSettles(Self.word(.pending), status: .failed), "the gateway has not ended it yet")
        #expect(!Payment.readBackSettles(Self.word(.processing), status: .processing))
        #expect(Payment.readBackSettles(Self.word(.failed), status: .paid))
    }
}
