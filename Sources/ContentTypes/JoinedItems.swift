import ScannerCore

extension RecognizedItem {
    /// This item and `other` — the parts of one thing the line detector cut apart — as one item: the
    /// given payload and parsed value, both transcripts joined by `separator`, over both boxes, as
    /// confident as the less confident part (`StreetAddresses.assembled`, `DateTimes.assembled`).
    func joined(with other: RecognizedItem, payload: String, parsed: ParsedPayload, separator: String) -> RecognizedItem {
        let a = bounds.boundingBox
        let b = other.bounds.boundingBox
        var joined = self
        joined.payload = payload
        joined.transcript = [transcript, other.transcript].compactMap { $0 }.joined(separator: separator)
        joined.bounds = Quad(
            x: min(a.minX, b.minX), y: min(a.minY, b.minY), width: max(a.maxX, b.maxX) - min(a.minX, b.minX),
            height: max(a.maxY, b.maxY) - min(a.minY, b.minY))
        joined.confidence = min(confidence, other.confidence)
        joined.details?.parsed = parsed
        return joined
    }
}
