import Foundation
import ScannerCore

/// Lines from a text detector's probability map: PaddleOCR's DB post-processing (`DBPostProcess`,
/// the one its PP-OCR detectors are trained and published with), on the map's own pixels.
///
/// 1. The map above `binaryThreshold` is text, dilated by a 2 × 2 square (RapidOCR's `use_dilation`:
///    one pixel right and down); each 8-connected region is one candidate (PaddleOCR traces the
///    regions' outer contours; their minimum-area rectangles are the same).
/// 2. The region's minimum-area rectangle; one thinner than `minimumSide` is noise.
/// 3. Its mean probability inside the rectangle must reach `boxThreshold`.
/// 4. The network draws lines shrunk (it was trained on text polygons shrunk by the same rule): the
///    rectangle grows by `area × unclipRatio / perimeter` on every side, and must then be
///    `minimumSide + 2` thick.
///
/// Pure: a map in, rectangles in the map's pixels out. The values are RapidOCR's for PP-OCRv6
/// detection (`thresh`, `box_thresh`, `unclip_ratio`, `max_candidates`, `use_dilation`; PaddleOCR's
/// defaults), so that the network is measured as it is published.
public struct ProbabilityMapLines: Sendable {
    public var binaryThreshold: Float = 0.3
    public var boxThreshold: Float = 0.5
    public var unclipRatio = 1.6
    public var minimumSide = 3.0
    public var maximumCandidates = 1000

    public init() {}

    /// One line found in the map: its rectangle (top-left first, clockwise, the long side along the
    /// line and read left to right) in the map's pixels, its thickness and its mean probability.
    public struct Candidate: Sendable, Equatable {
        public var quad: Quad
        public var height: Double
        public var angle: Double
        public var score: Float
    }

    public func candidates(_ map: UnsafeBufferPointer<Float>, width: Int, height: Int) -> [Candidate] {
        precondition(map.count >= width * height)
        // The text mask, dilated: a pixel is text when it or its left, upper or upper-left neighbour is.
        var text = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width where map[y * width + x] > binaryThreshold {
                text[y * width + x] = true
                if x + 1 < width { text[y * width + x + 1] = true }
                if y + 1 < height {
                    text[(y + 1) * width + x] = true
                    if x + 1 < width { text[(y + 1) * width + x + 1] = true }
                }
            }
        }
        var label = [Int32](repeating: 0, count: width * height)
        var found: [Candidate] = []
        var regions = 0
        var stack: [Int] = []
        for start in 0..<(width * height) where label[start] == 0 && text[start] {
            regions += 1
            if regions > maximumCandidates { break }
            // Flood the region, keeping each row's leftmost and rightmost pixel: their centres'
            // convex hull is the region's.
            var rowExtent: [Int: (Int, Int)] = [:]
            label[start] = Int32(regions)
            stack.append(start)
            while let index = stack.popLast() {
                let x = index % width
                let y = index / width
                if let (lo, hi) = rowExtent[y] { rowExtent[y] = (min(lo, x), max(hi, x)) } else { rowExtent[y] = (x, x) }
                for dy in -1...1 {
                    let ny = y + dy
                    guard ny >= 0, ny < height else { continue }
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let nx = x + dx
                        guard nx >= 0, nx < width else { continue }
                        let neighbour = ny * width + nx
                        if label[neighbour] == 0, text[neighbour] {
                            label[neighbour] = Int32(regions)
                            stack.append(neighbour)
                        }
                    }
                }
            }
            var points: [Point] = []
            points.reserveCapacity(rowExtent.count * 2)
            for (y, (lo, hi)) in rowExtent {
                points.append(Point(x: Double(lo), y: Double(y)))
                if hi != lo { points.append(Point(x: Double(hi), y: Double(y))) }
            }
            guard let rectangle = Rectangle(points), rectangle.thickness >= minimumSide else { continue }
            let score = meanProbability(map, width: width, height: height, inside: rectangle.quad)
            guard score >= boxThreshold else { continue }
            let area = rectangle.length * rectangle.thickness
            let perimeter = 2 * (rectangle.length + rectangle.thickness)
            let grown = rectangle.grown(by: area * unclipRatio / perimeter)
            guard grown.thickness >= minimumSide + 2 else { continue }
            found.append(Candidate(quad: grown.quad, height: grown.thickness, angle: grown.angle, score: score))
        }
        return found
    }

    /// The mean of the map over the pixels whose centres lie inside `quad`.
    func meanProbability(_ map: UnsafeBufferPointer<Float>, width: Int, height: Int, inside quad: Quad) -> Float {
        let xs = quad.corners.map(\.x)
        let ys = quad.corners.map(\.y)
        let x0 = max(0, Int(xs.min()!.rounded(.down)))
        let x1 = min(width - 1, Int(xs.max()!.rounded(.up)))
        let y0 = max(0, Int(ys.min()!.rounded(.down)))
        let y1 = min(height - 1, Int(ys.max()!.rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return 0 }
        var sum: Float = 0
        var count = 0
        for y in y0...y1 {
            for x in x0...x1 where quad.contains(Point(x: Double(x), y: Double(y))) {
                sum += map[y * width + x]
                count += 1
            }
        }
        return count > 0 ? sum / Float(count) : 0
    }

    /// A rectangle by its centre, its direction along the line (x ≥ 0: read left to right) and its
    /// two sides.
    struct Rectangle {
        var centre: Point
        var along: Point
        var length: Double
        var thickness: Double

        /// The minimum-area rectangle around `points`; nil for fewer than one point.
        init?(_ points: [Point]) {
            guard !points.isEmpty else { return nil }
            let corners = ConvexGeometry.minimumAreaRectangle(points)
            let a = corners[0]
            let b = corners[1]
            let c = corners[2]
            let first = b.distance(to: a)
            let second = c.distance(to: b)
            centre = Point(x: (a.x + c.x) / 2, y: (a.y + c.y) / 2)
            // A single pixel or a one-pixel line: the rectangle of the pixel centres is degenerate,
            // the region is a pixel thick.
            let (from, to) = first >= second ? (a, b) : (b, c)
            let long = max(first, second)
            along = long > 0 ? Point(x: (to.x - from.x) / long, y: (to.y - from.y) / long) : Point(x: 1, y: 0)
            if along.x < 0 || (along.x == 0 && along.y < 0) { along = Point(x: -along.x, y: -along.y) }
            // Pixel centres: the region reaches half a pixel past them on every side.
            length = long + 1
            thickness = min(first, second) + 1
        }

        func grown(by distance: Double) -> Rectangle {
            var grown = self
            grown.length += 2 * distance
            grown.thickness += 2 * distance
            return grown
        }

        var angle: Double { atan2(along.y, along.x) * 180 / .pi }

        /// Top-left first, clockwise (y points down: the normal (−along.y, along.x) points down the page).
        var quad: Quad {
            let normal = Point(x: -along.y, y: along.x)
            func at(_ s: Double, _ t: Double) -> Point {
                Point(
                    x: centre.x + along.x * s * length / 2 + normal.x * t * thickness / 2,
                    y: centre.y + along.y * s * length / 2 + normal.y * t * thickness / 2)
            }
            return Quad(topLeft: at(-1, -1), topRight: at(1, -1), bottomRight: at(1, 1), bottomLeft: at(-1, 1))
        }
    }
}
