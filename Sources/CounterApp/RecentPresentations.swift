public import CardToken

/// The presentations one counter scanned lately: the same presentation scanned again within its window is the
/// same person (a vendor scanning twice), which the counter says instead of leaving it to look like a second
/// member. Entries older than the window are forgotten, so it holds at most a few minutes of scans.
public struct RecentPresentations: Sendable {
    private var firstScans: [Key: Int64] = [:]
    private let window: PresentationWindow

    private struct Key: Hashable, Sendable {
        var tokenID: TokenID
        var presentedAt: Int64
    }

    public init(window: PresentationWindow = .standard) {
        self.window = window
    }

    /// Notes the presentation `result` verified (if it is one) as scanned at `now`; returns when this counter
    /// first scanned it, if it did before.
    public mutating func note(_ result: VerificationResult, at now: Int64) -> Int64? {
        guard let presentedAt = result.presentedAt, let tokenID = result.claims?.tokenID else { return nil }
        let horizon = now.subtractingReportingOverflow(2 * window.skew + window.displayPeriod).partialValue
        firstScans = firstScans.filter { $0.value >= horizon }
        let key = Key(tokenID: tokenID, presentedAt: presentedAt)
        if let first = firstScans[key] { return first }
        firstScans[key] = now
        return nil
    }
}

extension CounterVerdict {
    /// This verdict, with a warning when `recent` shows its presentation was scanned here before.
    public func noting(in recent: inout RecentPresentations, now: Int64) -> CounterVerdict {
        guard case .card(let result) = outcome, let first = recent.note(result, at: now) else { return self }
        var noted = self
        noted.warnings.append(.samePresentation(firstScannedAt: first))
        return noted
    }
}
