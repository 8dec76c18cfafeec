extension Duration {
    /// The duration in seconds, as a Double (for rates, grace periods and CPU shares).
    public var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
