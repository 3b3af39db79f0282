import CardCrypto
public import Foundation
public import Membership
public import PeezAPI
import PeezBasics

/// What the shops' accounts read and write: the accounts, the shops, the audit trail.
public typealias ShopAccountLedger = ShopAccountStore & VendorStore

/// The cash each shop owes PEEZ, as the HTTP API and `peez admin` both run it: remittances, adjustments and
/// reversals recorded once per idempotency key with their audit entry in the same transaction, commissions set
/// from a day to come, a shop's account and statement read back, every shop's balance.
public struct ShopAccountService: Sendable {
    public let store: any ShopAccountLedger
    public let now: WallClock

    public init(store: any ShopAccountLedger, now: WallClock) {
        self.store = store
        self.now = now
    }

    /// The most one entry moves: ten million dinars, far past any shop's month, so a slip of the keyboard
    /// (a few zeros too many) is refused rather than recorded.
    public static let maxAmountDZD = 10_000_000
    /// The longest reference, receiver's name or reason.
    public static let maxTextLength = 200

    /// Records the remittance `body` for the shop `vendorID` under `key` (from the credential `keyScope`).
    public func recordRemittance(
        _ body: RemittanceRequest,
        vendorID: UUID,
        keyScope: String,
        key: String,
        by actor: AuditActor
    ) async throws -> (entry: ShopEntry, replayed: Bool) {
        let time = now()
        var fields: [String: String] = [:]
        if let problem = Self.amountProblem(body.amount_dzd, signed: false) { fields["amount_dzd"] = problem }
        if let currency = body.currency, currency != "DZD" { fields["currency"] = "must be DZD: the shops collect Algerian dinars only" }
        var receivedDay = AlgiersCalendar.dayNumber(time)
        if let text = body.received_on {
            if let start = AlgiersCalendar.startOfDay(text) {
                let day = AlgiersCalendar.dayNumber(start)
                if day > receivedDay { fields["received_on"] = "is a day to come; record a remittance once it is received" }
                receivedDay = day
            } else {
                fields["received_on"] = "must be a date written YYYY-MM-DD"
            }
        }
        if let problem = Self.textProblem(body.received_by, required: true) { fields["received_by"] = problem }
        if let reference = body.reference, let problem = Self.textProblem(reference, required: false) { fields["reference"] = problem }
        try Self.refuse(fields, "The remittance is invalid.")
        let reference = body.reference.map(Self.trimmed).flatMap { $0.isEmpty ? nil : $0 } ?? ""
        let receivedBy = Self.trimmed(body.received_by)
        let override = body.override ?? false
        var values = [
            AuditValue("amount_dzd", String(body.amount_dzd)), AuditValue("method", body.method.rawValue),
            AuditValue("received_on", AlgiersCalendar.dayText(receivedDay)), AuditValue("received_by", receivedBy),
        ]
        if !reference.isEmpty { values.append(AuditValue("reference", reference)) }
        if override { values.append(AuditValue("override", "true")) }
        return try await record(
            .remittance(
                amountDZD: Int64(body.amount_dzd),
                receivedDay: receivedDay,
                method: body.method,
                reference: reference,
                receivedBy: receivedBy,
                override: override
            ),
            vendorID: vendorID,
            key: IdempotencyKey(scope: keyScope, key: key, requestHash: try Self.hash("remittance", vendorID, body)),
            audit: actor.entry(
                "account.remittance",
                vendorID,
                "\(body.amount_dzd) DZD by \(body.method.rawValue) received on \(AlgiersCalendar.dayText(receivedDay)) by \(receivedBy)"
                    + (reference.isEmpty ? "" : ", reference \(reference)") + (override ? ", more than owed" : ""),
                values,
                at: time
            ),
            by: actor
        )
    }

    /// Records the adjustment `body` for the shop `vendorID` under `key`.
    public func recordAdjustment(
        _ body: AdjustmentRequest,
        vendorID: UUID,
        keyScope: String,
        key: String,
        by actor: AuditActor
    ) async throws -> (entry: ShopEntry, replayed: Bool) {
        var fields: [String: String] = [:]
        if let problem = Self.amountProblem(body.amount_dzd, signed: true) { fields["amount_dzd"] = problem }
        if let problem = Self.textProblem(body.reason, required: true) { fields["reason"] = problem }
        try Self.refuse(fields, "The adjustment is invalid.")
        let reason = Self.trimmed(body.reason)
        return try await record(
            .adjustment(amountDZD: Int64(body.amount_dzd), reason: reason),
            vendorID: vendorID,
            key: IdempotencyKey(scope: keyScope, key: key, requestHash: try Self.hash("adjustment", vendorID, body)),
            audit: actor.entry(
                "account.adjustment",
                vendorID,
                "\(body.amount_dzd) DZD: \(reason)",
                [AuditValue("amount_dzd", String(body.amount_dzd)), AuditValue("reason", reason)],
                at: now()
            ),
            by: actor
        )
    }

    /// Records the reversal of the shop's entry `entry` under `key`.
    public func reverse(
        entry: Int64,
        _ body: ReversalRequest,
        vendorID: UUID,
        keyScope: String,
        key: String,
        by actor: AuditActor
    ) async throws -> (entry: ShopEntry, replayed: Bool) {
        if let problem = Self.textProblem(body.reason, required: true) { try Self.refuse(["reason": problem], "The reversal is invalid.") }
        let reason = Self.trimmed(body.reason)
        return try await record(
            .reversal(entry: entry, reason: reason),
            vendorID: vendorID,
            key: IdempotencyKey(scope: keyScope, key: key, requestHash: try Self.hash("reversal \(entry)", vendorID, body)),
            audit: actor.entry(
                "account.reversal",
                vendorID,
                "reverses entry \(entry): \(reason)",
                [AuditValue("reverses", String(entry)), AuditValue("reason", reason)],
                at: now()
            ),
            by: actor
        )
    }

    private func record(
        _ body: TeamEntryDraft.Body,
        vendorID: UUID,
        key: IdempotencyKey,
        audit: AuditEntry,
        by actor: AuditActor
    ) async throws -> (entry: ShopEntry, replayed: Bool) {
        let draft = TeamEntryDraft(vendorID: vendorID, body: body, key: key, recordedBy: actor.label, audit: audit)
        return try await store.recordTeamEntry(draft, now: now())
    }

    /// Sets what the shop keeps of each sale from the day `body.from` on (a day to come).
    public func setCommission(_ body: CommissionRequest, vendorID: UUID, by actor: AuditActor) async throws -> ShopCommission {
        let time = now()
        var fields: [String: String] = [:]
        let basisPoints = Int64(body.basis_points ?? 0)
        let perMonth = Int64(body.per_month_dzd ?? 0)
        let fromDay = AlgiersCalendar.startOfDay(body.from).map(AlgiersCalendar.dayNumber)
        if let fromDay {
            if fromDay <= AlgiersCalendar.dayNumber(time) {
                fields["from"] = "must be a day to come (tomorrow at the earliest): sales already recorded keep their commission"
            }
        } else {
            fields["from"] = "must be a date written YYYY-MM-DD"
        }
        if !(0...ShopCommission.maxBasisPoints).contains(basisPoints) { fields["basis_points"] = "must be from 0 to 10000 (100 %)" }
        if !(0...ShopCommission.maxPerMonthDZD).contains(perMonth) { fields["per_month_dzd"] = "must be from 0 to \(ShopCommission.maxPerMonthDZD)" }
        if basisPoints > 0, perMonth > 0 {
            fields["per_month_dzd"] = "must be absent or 0 with basis_points: a commission is a share or a fixed amount"
        }
        try Self.refuse(fields, "The commission is invalid.")
        let commission = ShopCommission(fromDay: fromDay!, basisPoints: basisPoints, perMonthDZD: perMonth, setAt: time, setBy: actor.label)
        let from = AlgiersCalendar.dayText(commission.fromDay)
        let what = perMonth > 0 ? "\(perMonth) DZD per month sold" : basisPoints > 0 ? "\(Self.percent(basisPoints)) of each sale" : "no commission"
        try await store.setCommission(
            commission,
            of: vendorID,
            audit: actor.entry(
                "account.commission",
                vendorID,
                "\(what) from \(from)",
                [AuditValue("from", from), AuditValue("basis_points", String(basisPoints)), AuditValue("per_month_dzd", String(perMonth))],
                at: time
            )
        )
        return commission
    }

    /// The highest balance limit: a hundred times ``maxAmountDZD``.
    public static let maxLimitDZD = Int64(maxAmountDZD) * 100

    /// Sets the balance past which the team wants a shop shown (nil: none), for every member of the team.
    public func setBalanceLimit(_ body: BalanceLimitRequest, by actor: AuditActor) async throws -> BalanceLimitBody {
        let limit = body.limit_dzd.map(Int64.init)
        if let limit, !(0...Self.maxLimitDZD).contains(limit) {
            try Self.refuse(
                ["limit_dzd": "must be a whole number of dinars from 0 to \(Self.maxLimitDZD), or null for none"],
                "The limit is invalid."
            )
        }
        let time = now()
        try await store.setBalanceLimit(
            limit,
            audit: AuditEntry(
                at: time,
                actor: actor.label,
                actorCredentialID: actor.credentialID,
                address: actor.address,
                action: "account.limit",
                target: "",
                detail: limit.map { "shops owing more than \($0) DZD are shown past the limit" } ?? "no balance limit",
                values: [AuditValue("limit_dzd", limit.map(String.init) ?? "none")]
            )
        )
        return BalanceLimitBody(limit_dzd: limit)
    }

    /// The shop `vendorID`, or `notFound`.
    public func vendor(_ vendorID: UUID) async throws -> Vendor {
        guard let vendor = try await store.vendor(id: vendorID) else {
            throw MembershipError(.notFound, "No shop has id \(vendorID.lowercasedText).")
        }
        return vendor
    }

    /// The shop's statement from `fromDay` to `toDay` (at most ``ShopStatement/maxDays`` days).
    public func statement(of vendorID: UUID, from fromDay: Int64, to toDay: Int64) async throws -> ShopStatement {
        if fromDay > toDay { try Self.refuse(["to": "must not be before from"], "The period is invalid.") }
        if toDay - fromDay >= ShopStatement.maxDays {
            try Self.refuse(["to": "must be less than \(ShopStatement.maxDays) days after from"], "The period is invalid.")
        }
        let vendor = try await vendor(vendorID)
        async let opening = store.shopBalance(of: vendorID, before: fromDay)
        async let days = store.shopDays(of: vendorID, from: fromDay, to: toDay)
        async let entries = store.shopEntries(of: vendorID, from: fromDay, to: toDay, kinds: [.remittance, .adjustment, .reversal])
        return ShopStatement(
            vendor: vendor,
            fromDay: fromDay,
            toDay: toDay,
            openingDZD: try await opening,
            days: try await days,
            teamEntries: try await entries
        )
    }

    /// The kind of each entry a reversal in `statement` undoes (for the journal's accounts).
    public func reversedKinds(in statement: ShopStatement) async throws -> [Int64: ShopEntry.Kind] {
        var kinds: [Int64: ShopEntry.Kind] = [:]
        for seq in statement.teamEntries.compactMap(\.reverses) {
            if let entry = try await store.shopEntries(of: statement.vendor.id, after: seq - 1, limit: 1).first, entry.seq == seq {
                kinds[seq] = entry.kind
            }
        }
        return kinds
    }

    /// What the shop owes now, today's takings and its last remittance: what its counter shows.
    public func account(of vendorID: UUID) async throws -> ShopAccountBody {
        let vendor = try await vendor(vendorID)
        let today = AlgiersCalendar.dayNumber(now())
        async let recent = store.shopEntries(of: vendorID, from: today - 3_650, to: today + 3_650, kinds: [.remittance])
        let days = try await store.shopDays(of: vendorID, from: Int64.min / 4, to: Int64.max / 4)
        let balance = days.reduce(0) { $0 + $1.balanceChange }
        let oldest = ShopBalance.oldestUnremittedDay(balance: balance, days: days.map { ($0.day, $0.salesDZD - $0.commissionDZD) })
        return ShopAccountBody(
            vendor: vendor,
            balance: balance,
            oldestUnremittedDay: oldest,
            today: days.last { $0.day == today } ?? ShopDayFigures(day: today),
            lastRemittance: try await recent.last
        )
    }

    /// Every shop's balance with its shop, largest balance first.
    public func balances() async throws -> [(balance: ShopBalance, vendor: Vendor)] {
        let vendors = Dictionary(uniqueKeysWithValues: try await store.vendors().map { ($0.id, $0) })
        return try await store.shopBalances().compactMap { balance in vendors[balance.vendorID].map { (balance, $0) } }
            .sorted { ($0.balance.balanceDZD, $1.vendor.name) > ($1.balance.balanceDZD, $0.vendor.name) }
    }

    // MARK: Checks

    static func amountProblem(_ amount: Int, signed: Bool) -> String? {
        if signed {
            if amount == 0 { return "must not be 0" }
            if abs(amount) > maxAmountDZD { return "must be at most \(maxAmountDZD) DZD either way" }
        } else if amount <= 0 {
            return "must be more than 0"
        } else if amount > maxAmountDZD {
            return "must be at most \(maxAmountDZD) DZD"
        }
        return nil
    }

    static func textProblem(_ text: String, required: Bool) -> String? {
        if let problem = TextRules.disguisingCharacterProblem(text) { return problem }
        if text.unicodeScalars.count > maxTextLength { return "must be at most \(maxTextLength) characters" }
        if required, trimmed(text).isEmpty { return "is required" }
        return nil
    }

    static func trimmed(_ text: String) -> String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    static func refuse(_ fields: [String: String], _ message: String) throws {
        guard fields.isEmpty else { throw MembershipError(.invalidFields, message, fields: fields) }
    }

    /// What must match on a retry: the kind of entry, the shop and the body as it means.
    static func hash(_ kind: String, _ vendorID: UUID, _ body: some Encodable) throws -> String {
        Hex.encode(SHA256.hash(Array("\(kind) \(vendorID.lowercasedText) ".utf8) + (try RequestDecoding.canonical(body))))
    }

    /// Basis points as a percentage: 550 → "5.5 %".
    public static func percent(_ basisPoints: Int64) -> String {
        let whole = basisPoints / 100
        let cents = basisPoints % 100
        if cents == 0 { return "\(whole) %" }
        return cents % 10 == 0 ? "\(whole).\(cents / 10) %" : "\(whole).\(DecimalText.zeroPadded(cents, width: 2)) %"
    }
}
