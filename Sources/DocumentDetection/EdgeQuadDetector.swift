import Foundation
import ScannerCore

/// Where a page, card or label lies in an image: its four corners and how strongly its edges say so.
public struct DocumentCandidate: Sendable, Equatable {
    /// Corners in the pixel coordinates of the image given, clockwise from the top left.
    public var quad: Quad
    /// 0…1: the share of the four sides' length that has an edge across it.
    public var score: Double

    public init(quad: Quad, score: Double) {
        self.quad = quad
        self.score = score
    }
}

extension DocumentCandidate {
    /// The candidate as a `document` item of an image `width` × `height` pixels: its corners
    /// normalized to 0…1, its score as the confidence. What `scan --types document` prints (a camera's
    /// documents are items once `DocumentTracker` has seen them on two passes).
    public func item(inImageOf width: Int, _ height: Int) -> RecognizedItem {
        let (w, h) = (Double(max(1, width)), Double(max(1, height)))
        return RecognizedItem(
            kind: .document, payload: RecognitionTypes.documentName, bounds: quad.map { Point(x: $0.x / w, y: $0.y / h) },
            confidence: score)
    }
}

/// Finds documents in a frame (issue #43). A seam: the classical detector below, or a network.
public protocol DocumentDetector: Sendable {
    /// Every quadrilateral in `image` that may be a document, best first, overlapping ones included
    /// (`DocumentCandidate.select` chooses among them).
    func candidates(in image: DocumentImage) -> [DocumentCandidate]
}

extension DocumentDetector {
    /// The candidates in a gray image (a camera's frame).
    public func candidates(in image: GrayImage) -> [DocumentCandidate] {
        candidates(in: DocumentImage(image))
    }

    /// The documents in `image`, best first, none overlapping another, without knowing what is held
    /// up (`DocumentCandidate.select` with the scene's changes is what the pipeline uses).
    public func documents(in image: DocumentImage) -> [DocumentCandidate] {
        DocumentCandidate.select(candidates(in: image), heldUp: nil).map { $0.refined(in: image) }
    }

    public func documents(in image: GrayImage) -> [DocumentCandidate] {
        documents(in: DocumentImage(image))
    }
}

/// The classical detector: straight edges and the quadrilateral they best bound.
///
/// The frame is brought to `workWidth` and smoothed; every pixel whose gradient is strong votes for
/// the lines through it across its gradient (a Hough transform in angle and distance, each pixel
/// voting only within `angleSpread` of its own edge's angle: a document's edges are long straight
/// runs, the clutter's are short and many-angled). The strongest lines are paired into two
/// roughly parallel pairs at a good angle to each other; each such quadrilateral, convex and large
/// enough, is scored by how much of its four sides has an edge across it, facing the same way all
/// along (a page brighter than the desk at every point of a side, or darker at every point;
/// `EdgeProfile`). A thumb over one corner leaves three sides and most of the fourth.
public struct EdgeQuadDetector: DocumentDetector {
    public struct Configuration: Sendable, Equatable {
        /// Width the frame is brought to (its height in proportion).
        public var workWidth = 320
        /// Gradient magnitude (Sobel on 0–255 luma) an edge pixel needs.
        public var edgeStrength: Float = 48
        /// Degrees either side of a pixel's own edge angle that it votes for.
        public var angleSpread = 3
        /// Lines taken from the transform's peaks, at most, and at most `linesPerAngle` in each 10° of
        /// angle: a card's text rows make many strong lines of one angle, and the card's other two
        /// edges must still be among those taken.
        public var lines = 48
        public var linesPerAngle = 8
        /// A quadrilateral's area, as a share of the frame's, at least.
        public var minimumArea = 0.04
        /// A side's length, as a share of the frame's shorter side, at least.
        public var minimumSide = 0.12
        /// Score a document needs (the share of its sides with an edge along them).
        public var minimumScore = 0.6
        /// And each side on its own (a thumb may hide the rest of one).
        public var minimumSideScore = 0.35

        public init() {}
    }

    public let configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    struct Line {
        /// The line's normal angle, radians, 0..<π; `x cos θ + y sin θ = rho`.
        var theta: Double
        var rho: Double
        var votes: Float
    }

    /// Along a line, pixel by pixel, where an edge crosses it facing one way or the other: prefix
    /// counts, so that any stretch's support is two subtractions (scoring each quadrilateral's sides
    /// by sampling them was nearly all of the detector's time: 150 ms a frame on a label).
    struct EdgeProfile {
        let line: Line
        /// The first sample's position along the line (from the foot of the normal).
        let start: Int
        /// `positive[k]`: samples before `k` with an edge one way; `negative` the other way.
        var positive: [Int32]
        var negative: [Int32]

        init(_ line: Line, _ g: Gradients, strength: Float) {
            self.line = line
            let reach = Int(Double(g.width * g.width + g.height * g.height).squareRoot()) + 1
            start = -reach
            let (nx, ny) = (cos(line.theta), sin(line.theta))
            let foot = (line.rho * nx, line.rho * ny)
            positive = [0]
            negative = [0]
            positive.reserveCapacity(2 * reach + 2)
            negative.reserveCapacity(2 * reach + 2)
            var (p, n): (Int32, Int32) = (0, 0)
            for t in -reach...reach {
                let x = foot.0 - Double(t) * ny
                let y = foot.1 + Double(t) * nx
                if x >= 0, y >= 0, x < Double(g.width), y < Double(g.height) {
                    // The strongest across the line at and a pixel either side of it (rounding).
                    var best: Float = 0
                    for d in [-1.0, 0, 1] {
                        let (gx, gy) = g.at(x + nx * d, y + ny * d)
                        let across = gx * Float(nx) + gy * Float(ny)
                        if abs(across) > abs(best) { best = across }
                    }
                    if best >= strength { p += 1 } else if best <= -strength { n += 1 }
                }
                positive.append(p)
                negative.append(n)
            }
        }

        /// Where `point` (on the line) lies along it.
        func position(_ point: Point) -> Double { -point.x * sin(line.theta) + point.y * cos(line.theta) }

        /// The share of the stretch from `a` to `b` (its middle 80 %) with an edge across it, all
        /// facing one way.
        func support(from a: Point, to b: Point) -> Double {
            let (s, e) = (position(a), position(b))
            let (lo, hi) = (min(s, e), max(s, e))
            let from = Int((lo + 0.1 * (hi - lo)).rounded()) - start
            let to = Int((hi - 0.1 * (hi - lo)).rounded()) - start
            guard from >= 0, to < positive.count - 1, to > from else { return 0 }
            let p = positive[to + 1] - positive[from]
            let n = negative[to + 1] - negative[from]
            return Double(max(p, n)) / Double(to + 1 - from)
        }
    }

    /// Gradients of a smoothed image: x and y components, row-major. Of several planes (luma and
    /// chroma), each pixel's is the plane's whose gradient is strongest there.
    struct Gradients {
        let width: Int
        let height: Int
        var gx: [Float]
        var gy: [Float]

        init(_ image: DocumentImage) {
            width = image.width
            height = image.height
            (gx, gy) = Self.sobel(image.planes[0])
            for plane in image.planes.dropFirst() {
                let (px, py) = Self.sobel(plane)
                for i in gx.indices where px[i] * px[i] + py[i] * py[i] > gx[i] * gx[i] + gy[i] * gy[i] {
                    gx[i] = px[i]
                    gy[i] = py[i]
                }
            }
        }

        /// A 3×3 box smoothing first (sensor noise and JPEG's blocks are edges too), then Sobel.
        static func sobel(_ image: GrayImage) -> ([Float], [Float]) {
            let width = image.width
            let height = image.height
            var smooth = [Float](repeating: 0, count: width * height)
            image.pixels.withUnsafeBufferPointer { p in
                for y in 0..<height {
                    for x in 0..<width {
                        var sum = 0
                        for dy in -1...1 {
                            let yy = min(max(y + dy, 0), height - 1)
                            for dx in -1...1 { sum += Int(p[yy * image.stride + min(max(x + dx, 0), width - 1)]) }
                        }
                        smooth[y * width + x] = Float(sum) / 9
                    }
                }
            }
            var gx = [Float](repeating: 0, count: width * height)
            var gy = [Float](repeating: 0, count: width * height)
            guard width > 2, height > 2 else { return (gx, gy) }
            for y in 1..<(height - 1) {
                for x in 1..<(width - 1) {
                    let i = y * width + x
                    let a = smooth[i - width - 1]
                    let b = smooth[i - width]
                    let c = smooth[i - width + 1]
                    let d = smooth[i - 1]
                    let f = smooth[i + 1]
                    let g = smooth[i + width - 1]
                    let h = smooth[i + width]
                    let k = smooth[i + width + 1]
                    gx[i] = (c + 2 * f + k) - (a + 2 * d + g)
                    gy[i] = (g + 2 * h + k) - (a + 2 * b + c)
                }
            }
            return (gx, gy)
        }

        func at(_ x: Double, _ y: Double) -> (Float, Float) {
            let xi = min(max(Int(x.rounded()), 0), width - 1)
            let yi = min(max(Int(y.rounded()), 0), height - 1)
            return (gx[yi * width + xi], gy[yi * width + xi])
        }
    }

    public func candidates(in image: DocumentImage) -> [DocumentCandidate] {
        guard image.width >= 16, image.height >= 16 else { return [] }
        let factor = min(1, Double(configuration.workWidth) / Double(image.width))
        let small = factor < 1 ? image.scaled(by: factor) : image
        let gradients = Gradients(small)
        let lines = strongestLines(gradients)
        let scale = 1 / factor
        let qs = quads(from: lines, gradients: gradients)
        return qs.map { candidate in
            DocumentCandidate(quad: candidate.quad.map { Point(x: $0.x * scale, y: $0.y * scale) }, score: candidate.score)
        }
    }

    /// The Hough transform's strongest lines.
    func strongestLines(_ g: Gradients) -> [Line] {
        let angles = 180
        let diagonal = Int(Double(g.width * g.width + g.height * g.height).squareRoot()) + 1
        let rhos = 2 * diagonal + 1
        var accumulator = [Float](repeating: 0, count: angles * rhos)
        let cosines = (0..<angles).map { cos(Double($0) * .pi / Double(angles)) }
        let sines = (0..<angles).map { sin(Double($0) * .pi / Double(angles)) }
        let threshold = configuration.edgeStrength
        for y in 1..<(g.height - 1) {
            for x in 1..<(g.width - 1) {
                let i = y * g.width + x
                let magnitude = (g.gx[i] * g.gx[i] + g.gy[i] * g.gy[i]).squareRoot()
                guard magnitude >= threshold else { continue }
                // The gradient points across the edge: its angle is the line's normal.
                var angle = atan2(Double(g.gy[i]), Double(g.gx[i]))
                if angle < 0 { angle += .pi }
                let center = Int((angle / .pi * Double(angles)).rounded()) % angles
                for offset in -configuration.angleSpread...configuration.angleSpread {
                    let a = (center + offset + angles) % angles
                    let rho = Double(x) * cosines[a] + Double(y) * sines[a]
                    accumulator[a * rhos + Int(rho.rounded()) + diagonal] += magnitude
                }
            }
        }
        // Peaks: the largest within 4° and 4 px, strongest first, a few of each angle.
        var peaks: [Line] = []
        var perBucket = [Int](repeating: 0, count: angles / 10 + 1)
        // Only cells with a twentieth of the strongest's votes can be peaks worth taking: sorting the
        // whole accumulator was most of the detector's time.
        let floor = (accumulator.max() ?? 0) / 20
        let order = accumulator.indices.filter { accumulator[$0] > floor }.sorted { accumulator[$0] > accumulator[$1] }
        var taken = [Bool](repeating: false, count: accumulator.count)
        for index in order {
            guard peaks.count < configuration.lines else { break }
            guard !taken[index] else { continue }
            let a = index / rhos
            let r = index % rhos
            guard perBucket[a / 10] < configuration.linesPerAngle else { continue }
            perBucket[a / 10] += 1
            for da in -4...4 {
                for dr in -4...4 {
                    var aa = a + da
                    var rr = r + dr
                    // θ wraps with ρ's sign flipped.
                    if aa < 0 {
                        aa += angles
                        rr = rhos - 1 - rr
                    } else if aa >= angles {
                        aa -= angles
                        rr = rhos - 1 - rr
                    }
                    guard rr >= 0, rr < rhos else { continue }
                    taken[aa * rhos + rr] = true
                }
            }
            peaks.append(Line(theta: Double(a) * .pi / Double(angles), rho: Double(r - diagonal), votes: accumulator[index]))
        }
        return peaks
    }

    /// Convex quadrilaterals from two pairs of lines, each scored, best first.
    func quads(from lines: [Line], gradients g: Gradients) -> [DocumentCandidate] {
        let width = Double(g.width)
        let height = Double(g.height)
        func angleBetween(_ a: Line, _ b: Line) -> Double {
            let d = abs(a.theta - b.theta)
            return min(d, .pi - d)
        }
        // Opposite sides: nearly parallel, and as far apart as a side is long at least (a card's text
        // rows, close together, pair with nothing but each other: most of the pairs, before).
        let apart = configuration.minimumSide * min(width, height)
        let profiles = lines.map { EdgeProfile($0, g, strength: configuration.edgeStrength * 0.75) }
        var pairs: [(Int, Int)] = []
        for i in lines.indices {
            for j in lines.indices where j > i {
                guard angleBetween(lines[i], lines[j]) < 25 * .pi / 180 else { continue }
                let sameSense = abs(lines[i].theta - lines[j].theta) < .pi / 2
                let distance = sameSense ? abs(lines[i].rho - lines[j].rho) : abs(lines[i].rho + lines[j].rho)
                guard distance >= apart else { continue }
                pairs.append((i, j))
            }
        }
        var found: [DocumentCandidate] = []
        for p in pairs.indices {
            for q in pairs.indices where q > p {
                let (a, b) = pairs[p]
                let (c, d) = pairs[q]
                guard angleBetween(lines[a], lines[c]) > 50 * .pi / 180 else { continue }
                // Around the quadrilateral: a∩c, c∩b, b∩d, d∩a; each side on one line (c, b, d, a).
                guard let p0 = Self.intersection(lines[a], lines[c]), let p1 = Self.intersection(lines[c], lines[b]),
                    let p2 = Self.intersection(lines[b], lines[d]), let p3 = Self.intersection(lines[d], lines[a])
                else { continue }
                let cycle = [p0, p1, p2, p3]
                // Inside the frame (a little over its edge for the Hough's rounding).
                guard cycle.allSatisfy({ $0.x > -2 && $0.y > -2 && $0.x < width + 2 && $0.y < height + 2 }) else { continue }
                guard let quad = Self.convexQuad(cycle) else { continue }
                guard Self.area(cycle) >= configuration.minimumArea * width * height else { continue }
                let sides = (0..<4).map { cycle[$0].distance(to: cycle[($0 + 1) % 4]) }
                guard sides.min() ?? 0 >= configuration.minimumSide * min(width, height) else { continue }
                let support = [
                    profiles[c].support(from: p0, to: p1), profiles[b].support(from: p1, to: p2), profiles[d].support(from: p2, to: p3),
                    profiles[a].support(from: p3, to: p0),
                ]
                guard support.min() ?? 0 >= configuration.minimumSideScore else { continue }
                let score = zip(support, sides).reduce(0) { $0 + $1.0 * $1.1 } / sides.reduce(0, +)
                guard score >= configuration.minimumScore else { continue }
                found.append(DocumentCandidate(quad: quad, score: score))
            }
        }
        // Best first — the best-edged, a larger one only a little ahead (a quadrilateral through a
        // card's edges and the desk's lines is larger, and less edged).
        func rank(_ candidate: DocumentCandidate) -> Double {
            candidate.score + 0.1 * (Self.area(candidate.quad.corners) / (width * height)).squareRoot()
        }
        // The same quadrilateral through neighbouring lines (corners a few pixels apart) once, the
        // best-ranked: hundreds of near-copies made choosing among them most of the cost.
        var distinct: [DocumentCandidate] = []
        for candidate in found.sorted(by: { rank($0) > rank($1) }) {
            let corners = candidate.quad.corners
            let copy = distinct.contains { kept in zip(kept.quad.corners, corners).allSatisfy { $0.distance(to: $1) <= 4 } }
            if !copy { distinct.append(candidate) }
        }
        return distinct
    }

    static func intersection(_ a: Line, _ b: Line) -> Point? {
        let (c1, s1, c2, s2) = (cos(a.theta), sin(a.theta), cos(b.theta), sin(b.theta))
        let det = c1 * s2 - s1 * c2
        guard abs(det) > 1e-6 else { return nil }
        return Point(x: (a.rho * s2 - b.rho * s1) / det, y: (c1 * b.rho - c2 * a.rho) / det)
    }

    /// The four points as a convex quad, clockwise (in image coordinates) from the top left; nil when
    /// they are not the corners of a convex one.
    static func convexQuad(_ points: [Point]) -> Quad? {
        guard points.count == 4 else { return nil }
        let center = centroid(points)
        let sorted = points.sorted { atan2($0.y - center.y, $0.x - center.x) < atan2($1.y - center.y, $1.x - center.x) }
        // Convex: every turn the same way.
        var sign = 0.0
        for i in 0..<4 {
            let a = sorted[i]
            let b = sorted[(i + 1) % 4]
            let c = sorted[(i + 2) % 4]
            let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            if sign == 0 { sign = cross.sign == .minus ? -1 : 1 }
            guard cross * sign > 0 else { return nil }
        }
        // Start at the corner nearest the top left (smallest x + y).
        let start = sorted.indices.min { sorted[$0].x + sorted[$0].y < sorted[$1].x + sorted[$1].y }!
        let ordered = (0..<4).map { sorted[(start + $0) % 4] }
        return Quad(topLeft: ordered[0], topRight: ordered[1], bottomRight: ordered[2], bottomLeft: ordered[3])
    }

    static func centroid(_ points: [Point]) -> Point {
        Point(x: points.map(\.x).reduce(0, +) / Double(points.count), y: points.map(\.y).reduce(0, +) / Double(points.count))
    }

    static func area(_ points: [Point]) -> Double {
        var sum = 0.0
        for i in points.indices {
            let a = points[i]
            let b = points[(i + 1) % points.count]
            sum += a.x * b.y - b.x * a.y
        }
        return abs(sum) / 2
    }
}

extension DocumentCandidate {
    /// A held-up document's outline, rather than a rectangle printed inside it (a label's border, a
    /// receipt's ruled block, which may edge better than the outline): a candidate around a chosen
    /// one replaces it when the scene under it changed nearly as much as under the one inside —
    /// within this share. A quadrilateral through a card's edges and the desk's lines or papers beside
    /// it has the unchanged desk under it too (card seed 2: 0.65 against the card's 0.84), and does not.
    public static let outlineMargin = 0.1
    /// And only when it is this much larger: a slightly larger quadrilateral around the best-edged
    /// one is the same document through a blurred or shadowed edge (card seed 2: 17 px wider at
    /// 640, 2.3 % of the diagonal off), not its outline.
    public static let outlineGrowth = 1.25
    /// Something held up has at least this share of the scene under it changed: a white sheet held
    /// over the desk's white papers changes only at its border.
    public static let heldUp = 0.25
    /// The candidate holding the text replaces the documents it overlaps when the scene under it
    /// changed this share as much as under them, at least: a quadrilateral twice a document's size,
    /// through the desk around it, has half its share (a phone's dark screen on a dark desk, its
    /// sides lost: 0.26 against 0.86), a card half over the desk's white papers changes less than
    /// the strip of it over the desk (0.67 against 0.79; the footage, docs/benchmarks.md).
    public static let holdingShare = 0.5

    /// The documents among `candidates` (best first, as `DocumentDetector.candidates` gives them):
    /// those held up (`heldUp(candidate)`: the share of the scene under it that changed, 0…1), none
    /// overlapping another, each the outline of what it shows rather than a rectangle inside it.
    /// Without `heldUp` (nothing known of the scene): the best of each overlapping group.
    public static func select(_ candidates: [DocumentCandidate], heldUp: ((DocumentCandidate) -> Double)?) -> [DocumentCandidate] {
        select(candidates, shares: heldUp.map { candidates.map($0) })
    }

    /// `select(_:heldUp:)` with each candidate's share of changed scene given (`shares[i]` for
    /// `candidates[i]`; nil: nothing known of the scene).
    public static func select(_ candidates: [DocumentCandidate], shares: [Double]?) -> [DocumentCandidate] {
        chosen(candidates, shares: shares).map(\.candidate)
    }

    /// `select(_:shares:)` knowing where the text held up is (`lines`, in the candidates' pixels): a
    /// document holds its text (`TextHolding`). Where the documents chosen by their edges and the
    /// scene hold little of it — a card's strip under its name, bounded by a rule printed across
    /// it; a phone's dark screen cut at a line of its print — they give way to the held-up
    /// candidate holding it under which the scene changed most (a quadrilateral through the card
    /// and the desk's papers holds the text too, with the desk under it; of those within
    /// `outlineMargin` of the most, the best-edged), when the scene under it changed `holdingShare`
    /// as much as under them. Unlike `TextHolding.document` (`scan`), never the text's own
    /// rectangle: live, what no edge bounds is not told.
    public static func select(_ candidates: [DocumentCandidate], shares: [Double], lines: [Quad]) -> [DocumentCandidate] {
        precondition(shares.count == candidates.count, "a share for each candidate")
        var chosen = chosen(candidates, shares: shares)
        let holdsLittle = { (candidate: DocumentCandidate) in TextHolding.share(heldBy: candidate, of: lines) < TextHolding.mostOfTheText }
        // The usual pass, a document holding its text: no holder to look for among the candidates.
        guard chosen.contains(where: { holdsLittle($0.candidate) }) else { return chosen.map(\.candidate) }
        let heldUp = candidates.indices.filter { shares[$0] >= Self.heldUp }
        let holders = TextHolding.holders(among: heldUp.map { candidates[$0] }, lines: lines).map { heldUp[$0] }
        // Of those under which the scene changed nearly as much as the most (`outlineMargin`), the best-edged.
        guard let most = holders.map({ shares[$0] }).max(), let best = holders.first(where: { shares[$0] >= most - Self.outlineMargin })
        else { return chosen.map(\.candidate) }
        let document = (candidate: candidates[best], share: shares[best])
        let overlapped = chosen.filter { document.candidate.overlaps($0.candidate) }
        // Any of them holding little of it (asking it of each, the phones were added twice again at `--pace none`).
        guard overlapped.contains(where: { holdsLittle($0.candidate) }),
            overlapped.allSatisfy({ document.share >= $0.share * Self.holdingShare })
        else { return chosen.map(\.candidate) }
        chosen.removeAll { document.candidate.overlaps($0.candidate) }
        return [document.candidate] + chosen.map(\.candidate)
    }

    private static func chosen(_ candidates: [DocumentCandidate], shares: [Double]?) -> [(candidate: DocumentCandidate, share: Double)] {
        var chosen: [(candidate: DocumentCandidate, share: Double)] = []
        for (index, candidate) in candidates.enumerated() {
            let share = shares?[index] ?? 1
            guard share >= Self.heldUp else { continue }
            if let inside = chosen.firstIndex(where: { candidate.overlaps($0.candidate) }) {
                if shares != nil, candidate.contains(chosen[inside].candidate), share >= chosen[inside].share - Self.outlineMargin,
                    candidate.area >= Self.outlineGrowth * chosen[inside].candidate.area
                {
                    chosen[inside] = (candidate, share)
                }
                continue
            }
            chosen.append((candidate, share))
        }
        return chosen
    }

    /// Its corners fitted to the edges of `image` (`QuadRefiner`), where it was found.
    public func refined(in image: DocumentImage) -> DocumentCandidate {
        DocumentCandidate(quad: QuadRefiner.refine(quad, in: image), score: score)
    }

    public func refined(in image: GrayImage) -> DocumentCandidate {
        refined(in: DocumentImage(image))
    }

    var area: Double { EdgeQuadDetector.area(quad.corners) }

    public func overlaps(_ other: DocumentCandidate) -> Bool { quad.boxOverlap(other.quad) > 0 }

    /// Whether `other` lies inside this one (its corners, give or take a pixel's rounding).
    func contains(_ other: DocumentCandidate) -> Bool {
        let center = quad.center
        // Grown by 2 % about its centre, for the lines' rounding.
        let grown = quad.corners.map { Point(x: center.x + ($0.x - center.x) * 1.02, y: center.y + ($0.y - center.y) * 1.02) }
        return other.quad.corners.allSatisfy { Self.contains(grown, $0) }
    }

    /// The share of the thumbnail cells under the candidate that differ from the scene behind
    /// (`changed`, a `side`×`side` map over an image of `width`×`height`, as `PresenceDetector` keeps
    /// it); 0 when the map does not fit.
    public func changedShare(_ changed: [Bool], side: Int = 32, width: Int, height: Int) -> Double {
        guard changed.count == side * side, width > 0, height > 0 else { return 0 }
        var inside = 0
        var differing = 0
        let corners = quad.corners
        for row in 0..<side {
            for column in 0..<side {
                let point = Point(x: (Double(column) + 0.5) * Double(width) / Double(side), y: (Double(row) + 0.5) * Double(height) / Double(side))
                guard Self.contains(corners, point) else { continue }
                inside += 1
                if changed[row * side + column] { differing += 1 }
            }
        }
        return inside > 0 ? Double(differing) / Double(inside) : 0
    }

    /// Whether `point` lies inside the convex polygon `corners`.
    static func contains(_ corners: [Point], _ point: Point) -> Bool {
        var sign = 0.0
        for i in corners.indices {
            let a = corners[i]
            let b = corners[(i + 1) % corners.count]
            let cross = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if cross == 0 { continue }
            if sign == 0 { sign = cross > 0 ? 1 : -1 } else if cross * sign < 0 { return false }
        }
        return true
    }
}
