import ScannerCore

/// Quadrilaterals indexed by the cells of a square grid that their bounding boxes cover (clamped to
/// the image): which of thousands of readings may share a place with one, in time that grows with
/// the readings, not their square (`BarcodeRecognizer.complemented` on a sheet of codes).
struct PlaceIndex {
    struct Cell: Hashable {
        var x: Int
        var y: Int
    }

    let cell: Double
    let width: Double
    let height: Double
    private var cells: [Cell: [Int]] = [:]

    /// A grid of `cell`-pixel squares (at least 16) over a `width` × `height` image.
    init(cell: Double, width: Int, height: Int) {
        self.cell = max(16, cell.isFinite ? cell : 16)
        self.width = Double(max(1, width))
        self.height = Double(max(1, height))
    }

    /// A grid whose cells are the median reading's size: most readings cover one to four.
    init(sizedFor quads: [Quad], width: Int, height: Int) {
        let lengths = quads.map(\.boxLength).filter(\.isFinite).sorted()
        self.init(cell: lengths.isEmpty ? 16 : lengths[lengths.count / 2], width: width, height: height)
    }

    /// The cells `quad`'s bounding box, grown by `margin` on every side, covers (none for a box
    /// that is no numbers).
    func cells(of quad: Quad, margin: Double = 0) -> [Cell] {
        let box = quad.boundingBox
        guard box.minX.isFinite, box.minY.isFinite, box.maxX.isFinite, box.maxY.isFinite, margin.isFinite else { return [] }
        func index(_ value: Double, _ limit: Double) -> Int { Int((min(max(value, 0), limit) / cell).rounded(.down)) }
        let (x0, x1) = (index(box.minX - margin, width), index(box.maxX + margin, width))
        let (y0, y1) = (index(box.minY - margin, height), index(box.maxY + margin, height))
        return (y0...y1).flatMap { y in (x0...x1).map { Cell(x: $0, y: y) } }
    }

    mutating func insert(_ index: Int, at quad: Quad, margin: Double = 0) {
        for cell in cells(of: quad, margin: margin) { cells[cell, default: []].append(index) }
    }

    /// The indices inserted where `quad` (grown by `margin`) may touch them, each once, in order.
    func near(_ quad: Quad, margin: Double = 0) -> [Int] {
        Array(Set(cells(of: quad, margin: margin).flatMap { cells[$0] ?? [] })).sorted()
    }
}
