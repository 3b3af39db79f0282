/// Whether 32 bytes encode a point of the Ed25519 curve, as RFC 8032 §5.1.3 decodes a public key: the bytes
/// name y (and the sign of x), and x² = (y² − 1) / (d·y² + 1) must have a square root modulo p = 2^255 − 19.
/// About half of all 32-byte strings do not: a phone key that is no point can sign nothing, and a member bound
/// to it could never show a card.
///
/// Field arithmetic in five 51-bit limbs (as ref10 and donna do), with 128-bit products; not constant time,
/// which it need not be: a public key is public.
enum Ed25519Curve {
    /// Whether `raw` (32 bytes, y reduced) decodes to a point.
    static func decodesToPoint(_ raw: [UInt8]) -> Bool {
        precondition(raw.count == 32, "an Ed25519 point is 32 bytes")
        let xIsNegative = raw[31] & 0x80 != 0
        let y = FieldElement(littleEndian: raw)
        let ySquared = y * y
        let u = ySquared - .one
        let v = FieldElement.d * ySquared + .one
        // RFC 8032 §5.1.3 step 3: x = u·v³·(u·v⁷)^((p − 5) / 8), then v·x² must be u or −u.
        let v3 = v * v * v
        let x = u * v3 * (u * v3 * v3 * v).raised(toTwoTo252MinusThree: ())
        let vxx = v * x * x
        let negativeU = FieldElement.zero - u
        guard vxx.isEqual(to: u) || vxx.isEqual(to: negativeU) else { return false }
        // Step 4: x = 0 with the sign bit set names no point.
        return !(u.isEqual(to: .zero) && xIsNegative)
    }

    /// An element of GF(2^255 − 19): five limbs of 51 bits, each kept below 2^52 after every operation.
    struct FieldElement {
        var limbs: (UInt64, UInt64, UInt64, UInt64, UInt64)

        static let mask: UInt64 = (1 << 51) - 1
        static let zero = FieldElement(limbs: (0, 0, 0, 0, 0))
        static let one = FieldElement(limbs: (1, 0, 0, 0, 0))
        /// d = −121665 / 121666 mod p.
        static let d = FieldElement(
            limbs: (929_955_233_495_203, 466_365_720_129_213, 1_662_059_464_998_953, 2_033_849_074_728_123, 1_442_794_654_840_575)
        )

        /// The element the 32 little-endian bytes name, the top bit (x's sign) left out.
        init(littleEndian bytes: [UInt8]) {
            func load(_ bit: Int) -> UInt64 {
                var word: UInt64 = 0
                for offset in 0..<8 where bit / 8 + offset < 32 { word |= UInt64(bytes[bit / 8 + offset]) << (8 * UInt64(offset)) }
                return (word >> UInt64(bit % 8)) & Self.mask
            }
            limbs = (load(0), load(51), load(102), load(153), load(204))
        }

        init(limbs: (UInt64, UInt64, UInt64, UInt64, UInt64)) {
            self.limbs = limbs
        }

        private var array: [UInt64] { [limbs.0, limbs.1, limbs.2, limbs.3, limbs.4] }

        /// Carries every limb into the next (the top one times 19 into the first: 2^255 ≡ 19).
        private static func carried(_ wide: [UInt128]) -> FieldElement {
            var values = wide
            for _ in 0..<2 {
                for index in 0..<5 {
                    let carry = values[index] >> 51
                    values[index] &= UInt128(mask)
                    if index == 4 { values[0] += carry * 19 } else { values[index + 1] += carry }
                }
            }
            return FieldElement(limbs: (UInt64(values[0]), UInt64(values[1]), UInt64(values[2]), UInt64(values[3]), UInt64(values[4])))
        }

        static func + (a: FieldElement, b: FieldElement) -> FieldElement {
            carried(zip(a.array, b.array).map { UInt128($0) + UInt128($1) })
        }

        /// a − b, computed as a + 2p − b so that no limb goes below zero.
        static func - (a: FieldElement, b: FieldElement) -> FieldElement {
            let twoP: [UInt64] = [(mask - 18) * 2, mask * 2, mask * 2, mask * 2, mask * 2]
            return carried((0..<5).map { UInt128(a.array[$0]) + UInt128(twoP[$0]) - UInt128(b.array[$0]) })
        }

        static func * (a: FieldElement, b: FieldElement) -> FieldElement {
            let (x, y) = (a.array.map { UInt128($0) }, b.array.map { UInt128($0) })
            var wide = [UInt128](repeating: 0, count: 5)
            for i in 0..<5 {
                for j in 0..<5 {
                    let product = x[i] * y[j]
                    if i + j < 5 { wide[i + j] += product } else { wide[i + j - 5] += product * 19 }
                }
            }
            return carried(wide)
        }

        /// self^(2^252 − 3): 2^252 − 3 is 250 ones, then 0, then 1, in binary.
        func raised(toTwoTo252MinusThree: Void) -> FieldElement {
            var result = FieldElement.one
            for bit in 0..<252 {
                result = result * result
                if bit != 250 { result = result * self }
            }
            return result
        }

        /// The canonical value's limbs (fully reduced below p), for comparing.
        private var canonical: [UInt64] {
            var l = array
            // Carry until every limb fits 51 bits: the value is then below 2^255.
            while l.contains(where: { $0 > Self.mask }) {
                for index in 0..<5 {
                    let carry = l[index] >> 51
                    l[index] &= Self.mask
                    if index == 4 { l[0] += carry * 19 } else { l[index + 1] += carry }
                }
            }
            // Subtract p once if the value is p or more: p's limbs are (2^51 − 19, 2^51 − 1, …).
            if l[1...4].allSatisfy({ $0 == Self.mask }) && l[0] >= Self.mask - 18 { l = [l[0] - (Self.mask - 18), 0, 0, 0, 0] }
            return l
        }

        func isEqual(to other: FieldElement) -> Bool { canonical == other.canonical }
    }
}

extension DeviceKey {
    /// Whether the key is a point of the curve (RFC 8032 §5.1.3): about half of all 32-byte strings are not, and
    /// a phone bound to one could never sign a presentation its counter accepts.
    public var isOnCurve: Bool { Ed25519Curve.decodesToPoint(rawRepresentation) }
}
