/// Reducing a cloud of points (zbar's location polygon) to the four corners of a rectangle.
public enum ConvexGeometry {
    /// The convex hull of `points` in counter-clockwise order (Andrew's monotone chain).
    public static func convexHull(_ points: [Point]) -> [Point] {
        let sorted = Set(points).sorted { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [Point] = []
        for p in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        var upper: [Point] = []
        for p in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// The minimum-area rectangle enclosing `points` (rotating calipers over the hull's edges),
    /// as four corners in hull order. Degenerate inputs give a degenerate (zero-area) rectangle.
    public static func minimumAreaRectangle(_ points: [Point]) -> [Point] {
        let hull = convexHull(points)
        guard hull.count > 1 else {
            let p = hull.first ?? Point(x: 0, y: 0)
            return [p, p, p, p]
        }
        var best: (area: Double, corners: [Point])? = nil
        for i in 0..<hull.count {
            let a = hull[i]
            let b = hull[(i + 1) % hull.count]
            let length = a.distance(to: b)
            guard length > 0 else { continue }
            let u = Point(x: (b.x - a.x) / length, y: (b.y - a.y) / length)  // edge direction
            let v = Point(x: -u.y, y: u.x)  // its normal
            var minU = Double.infinity
            var maxU = -Double.infinity
            var minV = Double.infinity
            var maxV = -Double.infinity
            for p in hull {
                let du = p.x * u.x + p.y * u.y
                let dv = p.x * v.x + p.y * v.y
                minU = min(minU, du)
                maxU = max(maxU, du)
                minV = min(minV, dv)
                maxV = max(maxV, dv)
            }
            let area = (maxU - minU) * (maxV - minV)
            if best == nil || area < best!.area - 1e-9 {
                func at(_ s: Double, _ t: Double) -> Point { Point(x: u.x * s + v.x * t, y: u.y * s + v.y * t) }
                best = (area, [at(minU, minV), at(maxU, minV), at(maxU, maxV), at(minU, maxV)])
            }
        }
        return best!.corners
    }

    /// Names four corners as seen by a reader whose "up" is rotated `quarterTurns` × 90° clockwise
    /// from the image's up (0 = upright). The corner nearest the reader's top-left becomes `topLeft`.
    public static func label(_ corners: [Point], quarterTurns: Int) -> Quad {
        precondition(corners.count == 4)
        let turns = ((quarterTurns % 4) + 4) % 4
        // Rotate into the reader's frame: undo `turns` clockwise quarter turns (y points down).
        func toReader(_ p: Point) -> Point {
            switch turns {
            case 1: Point(x: p.y, y: -p.x)
            case 2: Point(x: -p.x, y: -p.y)
            case 3: Point(x: -p.y, y: p.x)
            default: p
            }
        }
        let r = corners.map(toReader)
        func pick(_ score: (Point) -> Double, max: Bool) -> Point {
            let index = r.indices.min { max ? score(r[$0]) > score(r[$1]) : score(r[$0]) < score(r[$1]) }!
            return corners[index]
        }
        return Quad(
            topLeft: pick({ $0.x + $0.y }, max: false), topRight: pick({ $0.x - $0.y }, max: true),
            bottomRight: pick({ $0.x + $0.y }, max: true), bottomLeft: pick({ $0.x - $0.y }, max: false))
    }
}

extension Quad {
    /// Whether `point` lies inside this (convex) quadrilateral.
    public func contains(_ point: Point) -> Bool {
        let c = corners
        var sign = 0.0
        for i in 0..<4 {
            let a = c[i]
            let b = c[(i + 1) % 4]
            let cross = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if cross != 0 {
                if sign != 0 && (cross > 0) != (sign > 0) { return false }
                sign = cross
            }
        }
        return true
    }
}
