/// Deterministic noise for tests (a linear congruential generator: the same seed, the same numbers).
public struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed &* 6364136223846793005 &+ 1 }
    public mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state ^ (state >> 33)
    }
}
