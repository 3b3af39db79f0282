import CardCrypto
import CardServices
import Chargily
import Foundation
import Membership
import MembershipSQL
import NIOCore
import PeezAPI
import TestSupport
import Testing

/// Online payments on both stores, driven through `PaymentService` against the Chargily stand-in (written from
/// Chargily's published API): a paid checkout sells one period however many instances hear of it at once, a
/// checkout is created once per idempotency key, the reconciler settles what no webhook said, and a payment for
/// the wrong amount sells nothing.
@Suite("Online payments in the ledger", .serialized)
struct PaymentStoreTests {
    /// The service's payment use cases on each store, one member, and the stand-in.
    struct Desk: Sendable {
        let stores: [SQLMembershipStore]
        let clock: TestClock
        let services: [PaymentService]
        let gateway: ChargilyClient
        let standIn: ChargilyStandIn
        let member: Member

        static func with(
            _ kind: StoreKind,
            instances: Int = 1,
            timeout: TimeAmount = .seconds(15),
            _ body: (Desk) async throws -> Void
        ) async throws {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let standIn = try ChargilyStandIn(folder: folder)
            defer { standIn.stop() }
            try await standIn.plan(["webhook": "never"])
            let gateway = ChargilyClient(
                configuration: try ChargilyConfiguration(
                    mode: .test,
                    apiURL: standIn.apiURL,
                    secretKey: standIn.secretKey,
                    successURL: "https://peez.dz/paid"
                ),
                timeout: timeout
            )
            do {
                try await kind.withInstances(instances) { stores in
                    let clock = TestClock(Sample.january31)
                    let keyRing = try KeyRing(signingKey: try Ed25519PrivateKey.generate(), publishedKeys: [])
                    let services = stores.map {
                        PaymentService(
                            store: $0,
                            cards: CardService(store: $0, keyRing: keyRing, clock: clock.wallClock),
                            gateway: gateway,
                            checkAfter: 300
                        )
                    }
                    let member = try await stores[0].createMember(Sample.draft(), now: Sample.january31).member
                    try await body(Desk(stores: stores, clock: clock, services: services, gateway: gateway, standIn: standIn, member: member))
                }
            } catch {
                await gateway.close()
                throw error
            }
            await gateway.close()
        }

        func checkout(months: Int = 1, key: String = UUID().uuidString, on instance: Int = 0) async throws -> Payment {
            let request = PaymentService.CheckoutRequest(
                memberUUID: member.uuid,
                body: CheckoutRequestBody(months: months),
                keyScope: "backend-1",
                idempotencyKey: key
            )
            switch try await services[instance].startCheckout(request) {
            case .created(let payment), .replayed(let payment): return payment
            }
        }

        func livePeriods() async throws -> [SubscriptionPeriod] {
            try await stores[0].periods(memberUUID: member.uuid).filter { $0.cancelledAt == nil }
        }
    }

    @Test(arguments: StoreKind.available)
    func aPaidCheckoutHeardByEveryInstanceAtOnceSellsOnePeriod(_ kind: StoreKind) async throws {
        try await Desk.with(kind, instances: 3) { desk in
            let payment = try await desk.checkout(months: 2)
            let checkoutID = try #require(payment.checkoutID)
            try await desk.standIn.pay(checkoutID)
            let paid = try await desk.gateway.checkout(id: checkoutID)
            #expect(paid.status == .paid && paid.amount == 600 && paid.paymentID == payment.id)
            let failed = CheckoutObservation(
                checkoutID: checkoutID,
                status: .failed,
                amount: paid.amount,
                currency: paid.currency,
                livemode: false,
                paymentID: payment.id
            )
            // Every instance hears the paid webhook four times, and a late "failed", all at once.
            let outcomes = try await withThrowingTaskGroup(of: PaymentEvent.Outcome.self) { group in
                for service in desk.services {
                    for _ in 0..<4 { group.addTask { try await service.apply(paid, reported: "checkout.paid", source: .webhook) } }
                    group.addTask { try await service.apply(failed, reported: "checkout.failed", source: .webhook) }
                }
                return try await group.reduce(into: [PaymentEvent.Outcome]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .sold }.count == 1, "\(outcomes)")
            let periods = try await desk.livePeriods()
            #expect(periods.count == 1)
            #expect(
                periods.first?.months == 2 && periods.first?.amountDZD == 600 && periods.first?.source == .inApp && periods.first?.vendorID == nil
            )
            let stored = try #require(try await desk.stores[1].payment(id: payment.id))
            #expect(stored.status == .paid && stored.periodID == periods.first?.id)
            let events = try await desk.stores[0].paymentEvents(needingAttention: false, checkoutID: checkoutID, limit: 100)
            #expect(events.count == 15 && events.filter { $0.outcome == .sold }.count == 1)
            let audit = try await desk.stores[0].audit(after: 0, limit: 100).filter { $0.action == "payment.paid" }
            #expect(audit.count == 1 && audit.first?.target == payment.id.lowercasedText)
        }
    }

    @Test(arguments: StoreKind.available)
    func oneIdempotencyKeyMakesOneCheckoutHoweverOftenItIsSent(_ kind: StoreKind) async throws {
        try await Desk.with(kind, instances: 2) { desk in
            let key = UUID().uuidString
            let answers = await withTaskGroup(of: Result<Payment, any Error>.self) { group in
                for attempt in 0..<6 {
                    group.addTask {
                        do {
                            return .success(try await desk.checkout(key: key, on: attempt % 2))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                return await group.reduce(into: [Result<Payment, any Error>]()) { $0.append($1) }
            }
            let payments = answers.compactMap { try? $0.get() }
            #expect(Set(payments.map(\.id)).count == 1, "\(answers)")
            for case .failure(let error) in answers {
                #expect((error as? MembershipError)?.code == .requestInFlight, "\(error)")
            }
            // Once created, every retry answers the same checkout.
            let again = try await desk.checkout(key: key, on: 1)
            #expect(again.id == payments.first?.id && again.checkoutID == payments.first?.checkoutID)
            #expect(try await desk.standIn.checkouts().count == 1)
            // The same key for another request is refused.
            await #expect(throws: MembershipError.self) { try await desk.checkout(months: 3, key: key) }
        }
    }

    @Test(arguments: StoreKind.available)
    func theReconcilerSettlesWhatNoWebhookSaidAndSellsNothingTwice(_ kind: StoreKind) async throws {
        try await Desk.with(kind, instances: 2) { desk in
            let paid = try await desk.checkout()
            let failed = try await desk.checkout()
            let open = try await desk.checkout()
            try await desk.standIn.pay(try #require(paid.checkoutID))
            try await desk.standIn.pay(try #require(failed.checkoutID), outcome: "failed")
            // Not due yet: nothing is read back.
            #expect(try await desk.services[0].reconcileDue().checked == 0)
            desk.clock.set(Sample.january31 + 300)
            async let first = desk.services[0].reconcileDue()
            async let second = desk.services[1].reconcileDue()
            let (a, b) = try await (first, second)
            #expect(a.checked + b.checked == 3, "each due payment is read back by one instance")
            #expect((a.outcomes[.sold] ?? 0) + (b.outcomes[.sold] ?? 0) == 1)
            #expect(try await desk.stores[0].payment(id: paid.id)?.status == .paid)
            #expect(try await desk.stores[0].payment(id: failed.id)?.status == .failed)
            let stillOpen = try #require(try await desk.stores[0].payment(id: open.id))
            #expect(stillOpen.status == .pending && stillOpen.checks == 1 && stillOpen.nextCheckAt == Sample.january31 + 600)
            #expect(try await desk.livePeriods().count == 1)
            // A day later the open one is ended at the gateway.
            desk.clock.set(Sample.january31 + 86_400)
            #expect(try await desk.services[0].reconcileDue().outcomes[.moved] == 1)
            #expect(try await desk.stores[0].payment(id: open.id)?.status == .expired)
            #expect(try await desk.standIn.checkouts()[open.checkoutID ?? ""]?.status == "expired")
            #expect(try await desk.livePeriods().count == 1)
        }
    }

    @Test(arguments: StoreKind.available)
    func aPaymentForAnotherAmountOrModeOrNoPaymentOfOursSellsNothing(_ kind: StoreKind) async throws {
        try await Desk.with(kind) { desk in
            let payment = try await desk.checkout()
            let checkoutID = try #require(payment.checkoutID)
            let service = desk.services[0]
            var cheap = CheckoutObservation(
                checkoutID: checkoutID,
                status: .paid,
                amount: 100,
                currency: "dzd",
                livemode: false,
                paymentID: payment.id
            )
            #expect(try await service.apply(cheap, reported: "checkout.paid", source: .webhook) == .mismatch)
            cheap.amount = 300
            // Mismatched is final for the machine: the team decides; a correct word later sells nothing either.
            #expect(try await service.apply(cheap, reported: "checkout.paid", source: .webhook) == .unchanged)
            let stranger = CheckoutObservation(checkoutID: "01unknown", status: .paid, amount: 300, currency: "dzd", livemode: false, paymentID: nil)
            #expect(try await service.apply(stranger, reported: "checkout.paid", source: .webhook) == .unknownCheckout)
            #expect(try await desk.livePeriods().isEmpty)
            #expect(try await desk.stores[0].payment(id: payment.id)?.status == .mismatched)
            let attention = try await desk.stores[0].paymentEvents(needingAttention: true, checkoutID: nil, limit: 10)
            #expect(Set(attention.map(\.outcome)) == [.mismatch, .unknownCheckout])
        }
    }

    @Test func aGatewayThatFailsRefusesOrIsTooSlowKeepsNothingAndTheSameKeyThenWorks() async throws {
        try await Desk.with(.sqlite, timeout: .milliseconds(500)) { desk in
            let key = "app-retry-1"
            func failure(_ kind: CheckoutGatewayError.Kind) async throws {
                do {
                    _ = try await desk.checkout(key: key)
                    Issue.record("a checkout was answered while the gateway was \(kind.rawValue)")
                } catch let error as CheckoutGatewayError {
                    #expect(error.kind == kind, "\(error)")
                    #expect(!error.reason.contains(desk.standIn.secretKey), "the secret key is never in an error")
                }
                #expect(try await desk.stores[0].payments(status: nil, limit: 10).isEmpty, "nothing is kept")
            }
            try await desk.standIn.plan(["api_fail_next": 1, "api_fail_status": 503])
            try await failure(.unavailable)
            try await desk.standIn.plan(["api_fail_next": 1, "api_fail_status": 422])
            try await failure(.refused)
            try await desk.standIn.plan(["api_delay_ms": 1_500])
            try await failure(.unavailable)
            try await desk.standIn.plan(["api_delay_ms": 0])
            let payment = try await desk.checkout(key: key)
            #expect(payment.status == .pending && payment.checkoutID != nil)
            #expect(try await desk.stores[0].payments(status: nil, limit: 10).count == 1)
        }
    }
}
