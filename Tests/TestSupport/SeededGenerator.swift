/// Deterministic noise for tests (a linear congruential generator: the same seed, the same numbers).
public struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed &* 6_364_136_223_846_793_005 &+ 1 }
    public mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state ^ (state >> 33)
    }
}
