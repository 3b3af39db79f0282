extension Int64 {
    /// `self + other` (other ≥ 0), held at `Int64.max` instead of overflowing.
    public func addingClamped(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(Swift.max(other, 0))
        return overflow ? .max : sum
    }

    /// `self - other` (other ≥ 0), held at `Int64.min` instead of overflowing.
    public func subtractingClamped(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(Swift.max(other, 0))
        return overflow ? .min : difference
    }
}
