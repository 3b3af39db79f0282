import CardCrypto
import CardWire
import Foundation
import Testing

/// The renewals a counter bundle carries: checked when opened, and their size at the real scale.
@Suite("Renewal list")
struct RenewalListTests {
    static func entries(_ count: Int, start: Int64 = 1_795_600_000) -> [RenewalListDocument.Entry] {
        (0..<count).map { index in
            RenewalListDocument.Entry(
                membershipID: String(format: "PEEZ-20261125-%05d", index % 100_000) + (index >= 100_000 ? "-\(index / 100_000)" : ""),
                paidUntil: start + 60 * 86_400 + Int64(index),
                renewedAt: start + Int64(index)
            )
        }
    }

    @Test func aListThatNamesAMemberTwiceOrPaysUntilBeforeTheSaleIsRefused() {
        let twice = RenewalListDocument(
            entries: Self.entries(2).map {
                var entry = $0
                entry.membershipID = "PEEZ-20261125-00001"
                return entry
            }
        )
        #expect(throws: CardWireError.self) { try twice.validated() }
        var backwards = Self.entries(1)
        backwards[0].paidUntil = backwards[0].renewedAt
        #expect(throws: CardWireError.self) { try RenewalListDocument(entries: backwards).validated() }
        #expect((try? RenewalListDocument(entries: Self.entries(3)).validated()) != nil)
    }

    @Test func aDeltaKeepsEachMembersNewestRenewalAndEndedOnesAreDropped() {
        let start: Int64 = 1_795_600_000
        let held = RenewalListDocument(entries: [.init(membershipID: "PEEZ-A", paidUntil: start + 100, renewedAt: start)])
        let delta = RenewalListDocument(
            after: start,
            entries: [
                .init(membershipID: "PEEZ-A", paidUntil: start + 900, renewedAt: start + 50),
                .init(membershipID: "PEEZ-B", paidUntil: start + 90, renewedAt: start + 10),
            ]
        )
        let applied = held.applying(delta, now: start + 400)
        #expect(applied.byMember["PEEZ-A"]?.paidUntil == start + 900)
        #expect(applied.byMember["PEEZ-B"] == nil, "ended more than the leeway before now")
        #expect(held.applying(RenewalListDocument(entries: []), now: start).entries.isEmpty, "a whole list replaces")
    }

    /// Figures: bytes an entry takes, and a whole bundle of renewals at the real scale, signed.
    @Test func aWholeBundleOfRenewalsAtTheRealScaleStaysWellWithinTheBundleBound() throws {
        let key = try Ed25519PrivateKey.generate()
        let keys = try KeySetDocument(current: key.publicKey, retired: []).keys
        func bundleSize(_ count: Int) throws -> Int {
            try CounterBundle(
                issuedAt: 1_795_600_000,
                validUntil: 1_795_600_000 + CounterBundle.defaultValidity,
                keys: keys,
                revocations: RevocationListDocument(version: 1, tokenIDs: [], members: [:]),
                renewals: RenewalListDocument(entries: Self.entries(count))
            ).signed(with: key).count
        }
        let empty = try bundleSize(0)
        var figures: [String] = []
        for count in [100, 40_000, 200_000] {
            let size = try bundleSize(count)
            figures.append("\(count) renewals: \(size) bytes (\((size - empty) / count) a renewal)")
            #expect(size < CounterBundle.maxSize / 2)
        }
        print("counter bundle with renewals: " + figures.joined(separator: "; "))
    }
}
