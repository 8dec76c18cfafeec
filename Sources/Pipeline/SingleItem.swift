import ScannerCore

/// Single-item mode keeps the one observation nearest the centre of the region of interest.
func selectSingle(_ items: [RecognizedItem], _ configuration: SequenceConfiguration) -> [RecognizedItem] {
    guard configuration.singleItem, items.count > 1 else { return items }
    let roi = configuration.options.regionOfInterest
    let centre = Point(x: roi.x + roi.width / 2, y: roi.y + roi.height / 2)
    return [items.min { $0.bounds.center.distance(to: centre) < $1.bounds.center.distance(to: centre) }!]
}
