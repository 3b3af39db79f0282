/// Measures operations per second: each case runs for a fixed time slice per round, the cases take
/// turns round after round (so a noisy neighbour hurts them alike), and the median round is reported.
struct Measurement {
    var name: String
    var operation: () throws -> Void
    var rates: [Double] = []

    init(_ name: String, _ operation: @escaping () throws -> Void) {
        self.name = name
        self.operation = operation
    }

    /// The median of the rounds' rates.
    var median: Double {
        let sorted = rates.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// Runs the operation repeatedly for `seconds` and records the rate.
    mutating func sample(seconds: Double) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        var count = 0
        let start = clock.now
        while clock.now < deadline {
            for _ in 0..<16 { try operation() }
            count += 16
        }
        let elapsed = clock.now - start
        let (whole, attoseconds) = elapsed.components
        rates.append(Double(count) / (Double(whole) + Double(attoseconds) / 1e18))
    }
}

/// Runs several measurements in interleaved rounds.
func measure(_ measurements: inout [Measurement], rounds: Int, seconds: Double) throws {
    for measurement in measurements.indices { try measurements[measurement].sample(seconds: seconds / 4) }  // warm-up
    for measurement in measurements.indices { measurements[measurement].rates = [] }
    for _ in 0..<rounds {
        for measurement in measurements.indices { try measurements[measurement].sample(seconds: seconds) }
    }
}
