import PeezBasics

extension SplitMix64 {
    /// A generator of its own for one part of a run (a shop's counter, the team, the faults), drawn from the run's
    /// seed, so each part draws the same numbers whatever the others draw.
    static func stream(_ stream: UInt64, of seed: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0x9E37_79B9_7F4A_7C15))
        return SplitMix64(seed: mixer.next())
    }
}
