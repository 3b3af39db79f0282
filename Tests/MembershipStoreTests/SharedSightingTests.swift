import Foundation
import Membership
import MembershipSQL
import Testing

/// Cards seen at two shops, kept as scans are reported: every shared card and its closest pair found whatever
/// order the counters report in, as a rebuild from all the scans finds them, none lost when two shops report at
/// once, and bounded work however often one card is scanned.
@Suite("Shared sightings")
struct SharedSightingTests {
    static func scan(
        _ counter: UUID,
        _ seq: Int64,
        at time: Int64,
        token: String,
        verdict: String = "valid",
        presentedAt: Int64? = nil
    ) -> CounterScan {
        CounterScan(
            counterID: counter,
            seq: seq,
            scannedAt: time,
            verdict: verdict,
            membershipID: "PEEZ-20260101-00001",
            tokenID: token,
            offline: true,
            trustAge: 60,
            presentedAt: presentedAt
        )
    }

    /// Each card with a pair, and its closest pair's distance.
    static func closest(_ store: SQLMembershipStore) async throws -> [String] {
        while try await store.pairQueuedSightings() > 0 {}
        return try await store.database.read { db in
            try await db.query("SELECT token_id, MIN(seconds_apart) AS apart FROM shared_sightings GROUP BY token_id ORDER BY token_id", []).map {
                "\(try $0.text("token_id")) \(try $0.int("apart"))"
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func everySharedCardAndItsClosestPairAreFoundWhateverOrderTheScansArriveInAsARebuildFindsThem(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var shops: [(Vendor, UUID)] = []
            for index in 0..<3 {
                shops.append((try await store.createVendor(name: "Shop \(index)", category: "epicerie", neighbourhood: "usto", now: 1), UUID()))
            }
            var generator = SystemRandomNumberGenerator()
            var reports: [(Int, CounterScan)] = []
            var seqs = [Int64](repeating: 0, count: shops.count)
            let start: Int64 = 1_800_000_000
            for _ in 0..<150 {
                let shop = Int.random(in: 0..<shops.count, using: &generator)
                seqs[shop] += 1
                let token = ["aaaaaaaaaaaaaaa1", "aaaaaaaaaaaaaaa2", "aaaaaaaaaaaaaaa3"].randomElement(using: &generator)!
                let verdict = Int.random(in: 0..<10, using: &generator) == 0 ? "revoked" : "valid"
                reports.append(
                    (
                        shop,
                        Self.scan(
                            shops[shop].1,
                            seqs[shop],
                            at: start + Int64.random(in: 0..<20_000, using: &generator),
                            token: token,
                            verdict: verdict
                        )
                    )
                )
            }
            // Counters sync late and out of order: reports arrive shuffled, a few scans at a time.
            reports.shuffle(using: &generator)
            for chunk in stride(from: 0, to: reports.count, by: 7) {
                for (shop, scans) in Dictionary(grouping: reports[chunk..<min(chunk + 7, reports.count)], by: \.0) {
                    _ = try await store.recordScans(scans.map(\.1), vendorID: shops[shop].0.id, now: start + 30_000)
                }
            }
            let kept = try await Self.closest(store)
            #expect(!kept.isEmpty)
            try await store.rebuildConsoleSummaries()
            #expect(try await Self.closest(store) == kept)
        }
    }

    @Test(arguments: StoreKind.available)
    func oneShopsScansAreNoPairUnlessOnePresentationWasShownAtTwoOfItsCounters(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let shop = try await store.createVendor(name: "Shop", category: "epicerie", neighbourhood: "usto", now: 1)
            let (till1, till2) = (UUID(), UUID())
            let start: Int64 = 1_800_000_000
            _ = try await store.recordScans([Self.scan(till1, 1, at: start, token: "bbbbbbbbbbbbbbb1")], vendorID: shop.id, now: start)
            _ = try await store.recordScans([Self.scan(till2, 1, at: start + 30, token: "bbbbbbbbbbbbbbb1")], vendorID: shop.id, now: start)
            #expect(try await store.closestSharedSightings(from: 0, until: .max, cards: 10).isEmpty, "the same member at two tills of one shop")
            _ = try await store.recordScans(
                [Self.scan(till1, 2, at: start + 100, token: "bbbbbbbbbbbbbbb2", presentedAt: start + 90)],
                vendorID: shop.id,
                now: start
            )
            _ = try await store.recordScans(
                [Self.scan(till2, 2, at: start + 130, token: "bbbbbbbbbbbbbbb2", presentedAt: start + 90)],
                vendorID: shop.id,
                now: start
            )
            let pairs = try await store.closestSharedSightings(from: 0, until: .max, cards: 10)
            #expect(pairs.count == 1 && pairs.first?.secondsApart == 30, "one presentation copied to a second till")
        }
    }

    /// A card's closest pair is its oldest, behind 1,200 farther pairs since: it is still the one shown, and each
    /// card once, the most recently seen first.
    @Test(arguments: StoreKind.available)
    func aCardsClosestPairIsFoundBehindAnyNumberOfFartherNewerOnes(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = (try await store.createVendor(name: "A", category: "epicerie", neighbourhood: "usto", now: 1), UUID())
            let b = (try await store.createVendor(name: "B", category: "epicerie", neighbourhood: "usto", now: 1), UUID())
            let start: Int64 = 1_800_000_000
            // Card 1: 30 s apart first, then scans at A and B in turn 500 s apart.
            var scans: [(shop: (Vendor, UUID), CounterScan)] = [(a, Self.scan(a.1, 1, at: start, token: "dddddddddddddd01"))]
            var time = start + 30
            for index in 0..<1_201 {
                let shop = index.isMultiple(of: 2) ? b : a
                scans.append((shop, Self.scan(shop.1, Int64(index + 2), at: time, token: "dddddddddddddd01")))
                time += 500
            }
            // Card 2, seen later at both shops, 200 s apart.
            scans.append((a, Self.scan(a.1, 5_000, at: time, token: "dddddddddddddd02")))
            scans.append((b, Self.scan(b.1, 5_000, at: time + 200, token: "dddddddddddddd02")))
            for shop in [a, b] {
                let own = scans.filter { $0.shop.1 == shop.1 }.map(\.1)
                for chunk in stride(from: 0, to: own.count, by: 500) {
                    _ = try await store.recordScans(Array(own[chunk..<min(chunk + 500, own.count)]), vendorID: shop.0.id, now: time + 300)
                }
            }
            let shown = try await store.closestSharedSightings(from: 0, until: .max, cards: 100)
            #expect(shown.map(\.later.scan.tokenID) == ["dddddddddddddd02", "dddddddddddddd01"])
            #expect(shown.map(\.secondsApart) == [200, 30])
            #expect(try await store.closestSharedSightings(from: 0, until: .max, cards: 1).map(\.later.scan.tokenID) == ["dddddddddddddd02"])
        }
    }

    @Test func twoShopsReportingTheSameCardAtOnceLoseNoPair() async throws {
        guard StoreKind.available.contains(.postgres) else { return }
        try await StoreKind.withPostgresInstances(2) { stores in
            let a = try await stores[0].createVendor(name: "A", category: "epicerie", neighbourhood: "usto", now: 1)
            let b = try await stores[0].createVendor(name: "B", category: "epicerie", neighbourhood: "usto", now: 1)
            let (counterA, counterB) = (UUID(), UUID())
            let start: Int64 = 1_800_000_000
            for round in 0..<40 {
                let token = String(format: "c%015x", round)
                let at = start + Int64(round) * 10_000
                async let first = stores[0].recordScans([Self.scan(counterA, Int64(round + 1), at: at, token: token)], vendorID: a.id, now: at)
                async let second = stores[1].recordScans([Self.scan(counterB, Int64(round + 1), at: at + 60, token: token)], vendorID: b.id, now: at)
                _ = try await (first, second)
            }
            // Both instances pair the queued scans at once, and a reader of the pairs on one of them reads while
            // they do: each scan is taken by one pairer, no pair lost, the reader sees every card.
            async let first = Self.drain(stores[0])
            async let second = Self.drain(stores[1])
            async let read = stores[0].closestSharedSightings(from: 0, until: .max, cards: 100)
            #expect(try await read.count == 40)
            let taken = try await first + second
            #expect(taken <= 80, "each of the 80 scans paired once (the reader may have paired some)")
            #expect(try await stores[0].closestSharedSightings(from: 0, until: .max, cards: 100).count == 40)
            let kept = try await Self.closest(stores[0])
            try await stores[1].rebuildConsoleSummaries()
            #expect(try await Self.closest(stores[0]) == kept)
        }
    }

    /// Pairs queued scans in batches of a few until none waits; how many it took.
    static func drain(_ store: SQLMembershipStore) async throws -> Int {
        var taken = 0
        while true {
            let batch = try await store.pairQueuedSightings()
            guard batch > 0 else { return taken }
            taken += batch
        }
    }
}
