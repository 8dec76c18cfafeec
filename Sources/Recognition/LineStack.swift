import ScannerCore

/// One line of text over several camera frames, straightened the same way in each and averaged: what
/// the recognizer reads of a line held up to the camera instead of one noisy frame of it.
///
/// Small print held at arm's length is a few pixels high, and each frame of it carries its own sensor
/// noise and its own JPEG blocking; a person reads it by looking a moment longer. Each frame is
/// registered to the first one of the stack by where the line's pixels match best (to a fraction of a
/// pixel, not by where the detector put the line: its quads move a pixel or two from frame to frame on
/// their own), then straightened with the first frame's quad moved by that offset, so that every
/// strip has the same size and the same glyphs at the same places. A hand's jitter moves the print by
/// fractions of a pixel between frames, so the average also holds detail no single frame has.
///
/// Measured on the real development receipts held up to the camera (docs/benchmarks.md, "Real
/// receipts held up to the camera": five frames averaged against the middle one alone).
///
/// A value: frames in, an image out; no clock, no thread.
public struct LineStack: Sendable {
    /// Its numbers (one of the live text stage's, `TextTuning`).
    public struct Configuration: Sendable, Equatable {
        /// Strips averaged at most: the newest ones.
        public var depth = 5
        /// A line whose quad is this much taller or longer (or shorter) than the stack's first is no
        /// longer the same picture of it (the card came closer): the stack starts again.
        public var sizeChange = 0.15
        /// The registration's search around the offset of the detector's quads, in line heights, and
        /// at most `maximumSearch` pixels.
        public var searchRadius = 0.3
        public var maximumSearch = 12
        /// Lines taller than this (px) are not stacked: print that large reads from one frame, and the
        /// registration's cost grows with the cube of a line's height (a detector's quad over a whole
        /// card, 250 px high, would have cost seconds a frame).
        public var maximumHeight = 64.0
        /// A frame is the same picture of the line when its best match differs from the reference by at
        /// most this share of the mean difference over the whole search: a clear minimum. Over the
        /// frame's own noise the minimum stays clear; a frame blurred by a motion, covered, or of
        /// another line matches about as badly everywhere, and the stack starts again with it.
        public var mismatch = 0.8

        public init() {}
    }

    public let configuration: Configuration

    /// The first frame's line: its quad, and its pixels around the quad (the registration's template).
    private var reference: (quad: Quad, patch: GrayImage, origin: (x: Int, y: Int))?
    /// The straightened strips, oldest first, at most `depth`; all the size of the first.
    public private(set) var strips: [GrayImage] = []

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Adds the line at `quad` of `image` (a frame at full resolution), straightened by `straighten`
    /// (the recognizer's `LineRecognizer.straightened` on `image`, given a quad).
    public mutating func add(_ quad: Quad, in image: GrayImage, straighten: (Quad) -> GrayImage) {
        guard quad.meanHeight <= configuration.maximumHeight else {
            reference = nil
            strips = []
            return
        }
        guard let reference, sameSize(reference.quad, quad),
            let offset = register(reference, in: image, predicted: quad.center - reference.quad.center)
        else {
            start(quad, in: image, straighten: straighten)
            return
        }
        let moved = Quad(
            topLeft: reference.quad.topLeft + offset, topRight: reference.quad.topRight + offset,
            bottomRight: reference.quad.bottomRight + offset, bottomLeft: reference.quad.bottomLeft + offset)
        let strip = straighten(moved)
        guard let first = strips.first, strip.width == first.width, strip.height == first.height else {
            start(quad, in: image, straighten: straighten)
            return
        }
        strips.append(strip)
        if strips.count > configuration.depth { strips.removeFirst(strips.count - configuration.depth) }
    }

    /// The strips' average; nil with none.
    public var average: GrayImage? {
        guard let first = strips.first else { return nil }
        guard strips.count > 1 else { return first }
        var sums = [Int](repeating: 0, count: first.width * first.height)
        for strip in strips {
            for y in 0..<strip.height {
                for x in 0..<strip.width { sums[y * first.width + x] += Int(strip.pixels[y * strip.stride + x]) }
            }
        }
        let count = strips.count
        return GrayImage(width: first.width, height: first.height, pixels: sums.map { UInt8(($0 + count / 2) / count) })
    }

    private mutating func start(_ quad: Quad, in image: GrayImage, straighten: (Quad) -> GrayImage) {
        strips = [straighten(quad)]
        let box = quad.boundingBox
        let margin = min(Double(configuration.maximumSearch), quad.meanHeight * configuration.searchRadius)
        let rect = PixelRect(
            x: Int((box.minX - margin).rounded(.down)), y: Int((box.minY - margin).rounded(.down)),
            width: Int((box.maxX - box.minX + 2 * margin).rounded(.up)), height: Int((box.maxY - box.minY + 2 * margin).rounded(.up))
        ).clamped(width: image.width, height: image.height)
        guard rect.width > 2, rect.height > 2 else {
            reference = nil
            return
        }
        reference = (quad, image.cropped(to: rect), (rect.x, rect.y))
    }

    func sameSize(_ a: Quad, _ b: Quad) -> Bool {
        let change = configuration.sizeChange
        return abs(b.meanHeight / max(1, a.meanHeight) - 1) <= change && abs(b.meanLength / max(1, a.meanLength) - 1) <= change
    }

    /// Where the reference's pixels lie in `image`: the offset from the reference frame, to a fraction
    /// of a pixel, searched around `predicted`; nil when the best match is no clear match (`mismatch`).
    private func register(
        _ reference: (quad: Quad, patch: GrayImage, origin: (x: Int, y: Int)), in image: GrayImage, predicted: Point
    ) -> Point? {
        let patch = reference.patch
        let radius = min(configuration.maximumSearch, max(2, Int((reference.quad.meanHeight * configuration.searchRadius).rounded(.up))))
        let px = Int(predicted.x.rounded())
        let py = Int(predicted.y.rounded())
        let side = 2 * radius + 1
        var costs = [Double](repeating: .infinity, count: side * side)
        image.pixels.withUnsafeBufferPointer { frame in
            patch.pixels.withUnsafeBufferPointer { template in
                for j in 0..<side {
                    // The template's rows and columns that fall inside the frame at this offset.
                    let oy = reference.origin.y + py + j - radius
                    let (top, bottom) = (max(0, -oy), min(patch.height, image.height - oy))
                    guard top < bottom else { continue }
                    let rows = top..<bottom
                    for i in 0..<side {
                        let ox = reference.origin.x + px + i - radius
                        let (left, right) = (max(0, -ox), min(patch.width, image.width - ox))
                        guard left < right else { continue }
                        let columns = left..<right
                        let count = rows.count * columns.count
                        // Most of the template must be in the frame for the match to say anything.
                        guard count * 2 >= patch.width * patch.height else { continue }
                        var sum = 0
                        for y in rows {
                            let f = frame.baseAddress! + ((oy + y) * image.stride + ox + left)
                            let t = template.baseAddress! + (y * patch.stride + left)
                            var rowSum: Int32 = 0
                            for x in 0..<columns.count {
                                let (a, b) = (f[x], t[x])
                                rowSum &+= Int32(max(a, b) &- min(a, b))
                            }
                            sum += Int(rowSum)
                        }
                        costs[j * side + i] = Double(sum) / Double(count)
                    }
                }
            }
        }
        let measured = costs.filter(\.isFinite)
        guard let best = costs.indices.min(by: { costs[$0] < costs[$1] }), costs[best].isFinite, measured.count > 1,
            costs[best] <= configuration.mismatch * measured.reduce(0, +) / Double(measured.count)
        else { return nil }
        let (j, i) = (best / side, best % side)
        /// The vertex of the parabola through the costs either side of the best one: its fraction of a pixel.
        func fraction(_ before: Double?, _ at: Double, _ after: Double?) -> Double {
            guard let before, let after, before.isFinite, after.isFinite else { return 0 }
            let curvature = before - 2 * at + after
            return curvature > 0 ? max(-0.5, min(0.5, (before - after) / (2 * curvature))) : 0
        }
        let fx = fraction(i > 0 ? costs[best - 1] : nil, costs[best], i < side - 1 ? costs[best + 1] : nil)
        let fy = fraction(j > 0 ? costs[best - side] : nil, costs[best], j < side - 1 ? costs[best + side] : nil)
        return Point(x: Double(px + i - radius) + fx, y: Double(py + j - radius) + fy)
    }
}
