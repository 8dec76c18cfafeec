import Foundation
import ScannerCore

/// A found quadrilateral's sides fitted again to the edges along them, at the image's own
/// resolution: the detector's lines come from a Hough transform at 320 px (a pixel there is two at
/// the pipeline's 640 and four at 1280, and its angles are whole degrees), so its corners are
/// off by a few pixels where the image has them to the pixel.
///
/// Along the middle 80 % of each side, at every other pixel, the image is searched across the side
/// (within `reach`) for the outermost clear step in brightness, placed to a fraction of a pixel (a
/// parabola through the steps either side); the steps facing the way most of them face are kept, a line is
/// fitted through them (least squares about their principal axis), again through the closest of them,
/// and once more through those near that line — a thumb over a corner or a printed rule beside the
/// edge is left out. A side with too few
/// steps keeps its line; corners are where the fitted lines meet. Any corner moving further than
/// twice the reach leaves the quadrilateral as it was. In a colour image each side is fitted in luma
/// and in each chroma plane, and the fit through the most steps is the side's (a red card's sides on
/// a gray desk of its luma step in chroma only).
public enum QuadRefiner {
    /// The steps a side needs, as a share of its samples, to be fitted again.
    static let minimumShare = 0.4
    /// A step smaller than this (levels over two pixels) is no edge.
    static let minimumStep = 8.0
    /// A step is clear when at least this share of the strongest across the same point.
    static let outermostShare = 0.35
    /// The share of the steps the second fit goes through (the closest to the first).
    static let kept = 0.6
    /// Points further than this (px) from the second fit are left out of the last.
    static let outlier = 1.5

    /// `quad` in `image`'s pixels; `reach`: how far across each side to look, px (default 1.2 % of
    /// the image's diagonal).
    public static func refine(_ quad: Quad, in image: GrayImage, reach: Double? = nil) -> Quad {
        refine(quad, in: DocumentImage(image), reach: reach)
    }

    public static func refine(_ quad: Quad, in image: DocumentImage, reach: Double? = nil) -> Quad {
        let diagonal = Double(image.width * image.width + image.height * image.height).squareRoot()
        let reach = reach ?? max(3, 0.012 * diagonal)
        let corners = quad.corners
        let fitted = (0..<4).map { side in
            image.planes.compactMap { fit(from: corners[side], to: corners[(side + 1) % 4], around: quad.center, in: $0, reach: reach) }
                .max { $0.support < $1.support }?.line
        }
        guard fitted.contains(where: { $0 != nil }) else { return quad }
        let sides = (0..<4).map { fitted[$0] ?? (corners[$0], unit(corners[($0 + 1) % 4] - corners[$0])) }
        var refined: [Point] = []
        for i in 0..<4 {
            guard let corner = meet(sides[(i + 3) % 4], sides[i]), corner.distance(to: corners[i]) <= 2 * reach else { return quad }
            refined.append(corner)
        }
        return Quad(topLeft: refined[0], topRight: refined[1], bottomRight: refined[2], bottomLeft: refined[3])
    }

    /// The line through the edge along the side from `a` to `b` and how many steps it goes through, or
    /// nil when too little of the side is edge.
    static func fit(
        from a: Point, to b: Point, around center: Point, in image: GrayImage, reach: Double
    ) -> (line: (point: Point, direction: Point), support: Int)? {
        let length = a.distance(to: b)
        guard length >= 8 else { return nil }
        let along = unit(b - a)
        let across = Point(x: -along.y, y: along.x)
        // Which way across is out of the quadrilateral.
        let middle = Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
        let outward = ((middle - center).x * across.x + (middle - center).y * across.y) >= 0 ? 1 : -1
        let samples = min(256, Int(length / 2))
        let steps = Int(reach.rounded(.up))
        var found: [(point: Point, rising: Bool)] = []
        image.pixels.withUnsafeBufferPointer { pixels in
            // Brightness at `p`, averaged with a pixel either way along the side (noise, JPEG blocks).
            func brightness(_ p: Point) -> Double {
                (sample(pixels, image, p - along) + sample(pixels, image, p) + sample(pixels, image, p + along)) / 3
            }
            for k in 0..<samples {
                let t = 0.1 + 0.8 * (Double(k) + 0.5) / Double(samples)
                let on = Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
                let profile = (-steps - 1...steps + 1).map { brightness(on + across * Double($0)) }
                // The step at offset d: brightness at d+1 less at d-1.
                let step = { (d: Int) in profile[d + steps + 2] - profile[d + steps] }
                // The outermost clear step: a label's printed border just inside the paper's edge steps
                // more sharply (black on white) than the paper does on the desk, and the outline is
                // the paper's.
                let strongest = (-steps...steps).map { abs(step($0)) }.max() ?? 0
                let clear = max(minimumStep, outermostShare * strongest)
                let peaks = (-steps...steps).filter { d in
                    let m = abs(step(d))
                    return m >= clear && (d == -steps || m >= abs(step(d - 1))) && (d == steps || m >= abs(step(d + 1)))
                }
                guard let best = outward > 0 ? peaks.last : peaks.first else { continue }
                var offset = Double(best)
                if best > -steps, best < steps {
                    let (l, m, r) = (abs(step(best - 1)), abs(step(best)), abs(step(best + 1)))
                    let curvature = l - 2 * m + r
                    if curvature < 0 { offset += 0.5 * (l - r) / curvature }
                }
                found.append((on + across * offset, step(best) > 0))
            }
        }
        let rising = found.filter(\.rising).count * 2 >= found.count
        let points = found.filter { $0.rising == rising }.map(\.point)
        guard Double(points.count) >= minimumShare * Double(samples), let first = principalLine(points) else { return nil }
        // Trimmed: the line through the closest `kept` of the points, then through those near it —
        // a thumb over a corner is a fifth of a side, and one fit through it all leans toward it.
        let closest = points.sorted { distance($0, from: first) < distance($1, from: first) }.prefix(Int(Double(points.count) * kept))
        guard let second = principalLine(Array(closest)) else { return nil }
        let near = points.filter { distance($0, from: second) <= outlier }
        guard Double(near.count) >= minimumShare * Double(samples), let line = principalLine(near) else { return nil }
        return (line, near.count)
    }

    /// The least-squares line through `points`: their mean and principal direction.
    static func principalLine(_ points: [Point]) -> (point: Point, direction: Point)? {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let mean = Point(x: points.reduce(0) { $0 + $1.x } / n, y: points.reduce(0) { $0 + $1.y } / n)
        var (xx, xy, yy) = (0.0, 0.0, 0.0)
        for p in points {
            let d = p - mean
            xx += d.x * d.x
            xy += d.x * d.y
            yy += d.y * d.y
        }
        let angle = 0.5 * atan2(2 * xy, xx - yy)
        return (mean, Point(x: cos(angle), y: sin(angle)))
    }

    static func distance(_ p: Point, from line: (point: Point, direction: Point)) -> Double {
        let d = p - line.point
        return abs(d.x * line.direction.y - d.y * line.direction.x)
    }

    /// Where two lines meet; nil when nearly parallel.
    static func meet(_ l: (point: Point, direction: Point), _ m: (point: Point, direction: Point)) -> Point? {
        let cross = l.direction.x * m.direction.y - l.direction.y * m.direction.x
        guard abs(cross) > 1e-6 else { return nil }
        let d = m.point - l.point
        let t = (d.x * m.direction.y - d.y * m.direction.x) / cross
        return l.point + l.direction * t
    }

    static func unit(_ p: Point) -> Point {
        let length = (p.x * p.x + p.y * p.y).squareRoot()
        return length > 0 ? Point(x: p.x / length, y: p.y / length) : Point(x: 1, y: 0)
    }

    static func sample(_ p: UnsafeBufferPointer<UInt8>, _ image: GrayImage, _ point: Point) -> Double {
        DocumentRectifier.bilinear(p, image, point)
    }
}

extension Point {
    fileprivate static func * (p: Point, k: Double) -> Point { Point(x: p.x * k, y: p.y * k) }
}
