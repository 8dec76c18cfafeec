import ScannerCore

/// How far a 1-D code's bars reach across the scan lines that read it.
///
/// zxing-cpp gives a 1-D code's place as the scan lines that read it. With every line tried (3.x,
/// try harder) that is the bars' height; where only a few lines read it (zxing-cpp 1.4 read one
/// symbol at a time and stopped a few lines after the first; a blurred or partly covered code) it is
/// a sliver a few pixels high wherever on the bars that happened, and two frames of one label give
/// slivers at different heights of the same code, which the item tracker cannot take for one item (a
/// generated label was added twice at realtime). zbar, scanning every line, reports the bars' whole
/// height. This grows the sliver across the bars: rows beyond it are compared with the rows that were
/// read, each allowed to shift a little along the code (a tilted code's bars slant), until two in a
/// row no longer look like the same bars.
enum BarExtent {
    /// Normalised correlation with the read rows below which a row is no longer the same bars. A row
    /// of the code under noise and JPEG blocking stays above 0.8; its digits, text or a quiet area
    /// fall below 0.3 (the bars' pattern is unlike anything else printed).
    static let sameBars = 0.5

    /// `quad` (top-left → top-right along the code) grown across its bars, at most its length each
    /// way; unchanged when it is degenerate or the read rows are flat.
    static func grown(_ quad: Quad, in image: GrayImage) -> Quad {
        let start = midpoint(quad.topLeft, quad.bottomLeft)
        let end = midpoint(quad.topRight, quad.bottomRight)
        let length = start.distance(to: end)
        guard length.isFinite, length >= 8, image.width >= 2, image.height >= 2 else { return quad }
        let along = Point(x: (end.x - start.x) / length, y: (end.y - start.y) / length)
        let across = Point(x: -along.y, y: along.x)
        let count = min(256, Int(length))
        // The read rows' own reach across, relative to the centre line.
        let reached = quad.corners.map { dot($0 - start, across) }
        let centre = (reached.min()! + reached.max()!) / 2
        guard let reference = profile(image, start, along, across, length, count, offset: centre, shift: 0).normalised else {
            return quad
        }
        func reach(_ direction: Double) -> (offset: Double, shift: Double) {
            var best = (offset: direction < 0 ? reached.min()! : reached.max()!, shift: 0.0)
            var shift = 0.0
            var misses = 0
            let step = max(1, length / 128)
            var offset = best.offset
            while abs(offset - centre) < length {
                offset += direction * step
                let candidates = stride(from: shift - 2 * step, through: shift + 2 * step, by: step).map { candidate in
                    (candidate, profile(image, start, along, across, length, count, offset: offset, shift: candidate).correlation(with: reference))
                }
                let (bestShift, score) = candidates.max { $0.1 < $1.1 }!
                if score >= sameBars {
                    best = (offset, bestShift)
                    shift = bestShift
                    misses = 0
                } else {
                    misses += 1
                    if misses >= 2 { break }
                }
            }
            return best
        }
        let top = reach(-1)
        let bottom = reach(1)
        func place(_ t: Double, _ s: Double, at p: Point) -> Point {
            Point(x: p.x + t * across.x + s * along.x, y: p.y + t * across.y + s * along.y)
        }
        return Quad(
            topLeft: place(top.offset, top.shift, at: start), topRight: place(top.offset, top.shift, at: end),
            bottomRight: place(bottom.offset, bottom.shift, at: end), bottomLeft: place(bottom.offset, bottom.shift, at: start))
    }

    private static func midpoint(_ a: Point, _ b: Point) -> Point { Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2) }
    private static func dot(_ a: Point, _ b: Point) -> Double { a.x * b.x + a.y * b.y }

    /// The image along the code's line moved `offset` across and `shift` along, at `count` points
    /// (nearest pixel; outside the image counts as white paper).
    private static func profile(
        _ image: GrayImage, _ start: Point, _ along: Point, _ across: Point, _ length: Double, _ count: Int, offset: Double, shift: Double
    ) -> Profile {
        var values = [Double](repeating: 255, count: count)
        for i in 0..<count {
            let t = (Double(i) + 0.5) * length / Double(count) + shift
            let x = start.x + t * along.x + offset * across.x
            let y = start.y + t * along.y + offset * across.y
            guard x.isFinite, y.isFinite, x >= 0, y >= 0, x < Double(image.width), y < Double(image.height) else { continue }
            values[i] = Double(image[Int(x), Int(y)])
        }
        return Profile(values: values)
    }

    struct Profile {
        var values: [Double]

        /// Zero mean, unit length; nil when flat (nothing to compare with).
        var normalised: Profile? {
            let mean = values.reduce(0, +) / Double(values.count)
            let centred = values.map { $0 - mean }
            let norm = centred.reduce(0) { $0 + $1 * $1 }.squareRoot()
            // Less than ~8 grey levels of spread on average: no bars.
            guard norm / Double(values.count).squareRoot() >= 8 else { return nil }
            return Profile(values: centred.map { $0 / norm })
        }

        /// Normalised correlation with a normalised `reference`, -1...1; 0 when this is flat.
        func correlation(with reference: Profile) -> Double {
            guard let own = normalised else { return 0 }
            return zip(own.values, reference.values).reduce(0) { $0 + $1.0 * $1.1 }
        }
    }
}
