import Foundation
import ScannerCore

/// Finds lines of printed text in a gray camera frame: four corners per line, tilted lines included,
/// dark-on-light and light-on-dark alike. The recognizer then reads each line on its own
/// (issue #13: Tesseract's page layout analysis does not find these lines in a whole camera frame;
/// given the line, it reads it).
///
/// Classical and cheap, one pass over the pixels plus work per candidate:
/// 1. **Ink, in both polarities.** A pixel darker than the mean of its neighbourhood is dark ink, one
///    lighter is light ink (dark-mode screens, white on a coloured header): two masks, so uneven
///    light and vignetting need no global threshold. (The 3×3 morphological gradient was tried
///    first: it thickens every stroke by a pixel on each side, and close lines merged.)
/// 2. **Noise floor.** The ink threshold is a multiple of the frame's noise (the median difference
///    of horizontal neighbours: most of a frame is flat), never below an absolute floor. A dim,
///    noisy frame raises its own bar.
/// 3. **Character candidates.** Connected components of each mask, kept when their size and fill
///    look like glyphs (or a few glyphs run together), not like edges of objects.
/// 4. **Lines.** Candidates of similar height whose centres lie close along a common direction are
///    joined; a line needs at least `minimumGlyphs` of them, or fewer that are wide together.
/// 5. **Corners.** A straight line fitted through the glyph centres gives the direction; the glyph
///    boxes projected on it and its normal give the quad, padded by a fraction of the height.
///
/// Pure: an image in, quads out; no threads, no C.
public struct TextLineDetector: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Glyph heights considered, in pixels of the image given.
        public var minimumGlyphHeight = 7
        public var maximumGlyphHeightFraction = 0.2
        /// Lines steeper than this (degrees) are not text held up to a camera.
        public var maximumTilt = 35.0
        public var minimumGlyphs = 3
        /// The local mean is taken over a square this many pixels on a side.
        public var inkWindow = 25
        /// A pixel is ink when it differs from the local mean by `inkNoiseFactor` × the
        /// frame's noise level, and by at least `minimumInkContrast`.
        public var inkNoiseFactor = 3.5
        public var minimumInkContrast = 14
        public init() {}
    }

    /// One line: its corners (top-left first, clockwise, in the image's pixels, padded by a fifth of
    /// its letters' height), the height of its ink across the line (without the padding) and the
    /// number of glyph candidates it was built from.
    public struct GlyphLine: Sendable, Equatable {
        public var quad: Quad
        public var textHeight: Double
        public var angle: Double
        public var glyphs: Int
        /// 0: dark text, 1: light text on a darker ground.
        public var polarity = 0
        /// Mean gray level of the glyph pixels.
        var inkLevel = 0.0

        public init(quad: Quad, textHeight: Double, angle: Double = 0, glyphs: Int, polarity: Int = 0) {
            self.quad = quad
            self.textHeight = textHeight
            self.angle = angle
            self.glyphs = glyphs
            self.polarity = polarity
        }
    }

    public var configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public func detect(_ image: GrayImage) -> [GlyphLine] {
        let (dark, light) = inkMasks(image)
        let glyphs = components(dark, image: image, polarity: 0) + components(light, image: image, polarity: 1)
        return Self.oneReadingPerPlace(lines(from: glyphs), in: image)
    }

    /// Dark text also makes light "glyphs": the paper inside and between its letters is lighter than
    /// the local mean that the letters darken. Those chain into a line at the same place, which would
    /// be read twice. Of two lines of opposite polarity that mostly overlap, the real one is the line
    /// whose glyphs differ most from the ground around them (the median of its box).
    static func oneReadingPerPlace(_ lines: [GlyphLine], in image: GrayImage) -> [GlyphLine] {
        var dropped = Set<Int>()
        for i in lines.indices where lines[i].polarity == 0 {
            for j in lines.indices where lines[j].polarity == 1 && !dropped.contains(j) && !dropped.contains(i) {
                guard lines[i].quad.boxOverlap(lines[j].quad) > 0.5 else { continue }
                let ground = median(of: image, in: lines[i].quad)
                let darkContrast = ground - lines[i].inkLevel
                let lightContrast = lines[j].inkLevel - ground
                dropped.insert(darkContrast >= lightContrast ? j : i)
            }
        }
        return lines.indices.filter { !dropped.contains($0) }.map { lines[$0] }
    }

    /// The median gray level inside `quad`'s bounding box (sampled on a grid of at most ~4000 points).
    static func median(of image: GrayImage, in quad: Quad) -> Double {
        let box = quad.boundingBox
        let x0 = max(0, Int(box.minX))
        let x1 = min(image.width - 1, Int(box.maxX))
        let y0 = max(0, Int(box.minY))
        let y1 = min(image.height - 1, Int(box.maxY))
        guard x1 >= x0, y1 >= y0 else { return 0 }
        let step = max(1, Int((Double((x1 - x0 + 1) * (y1 - y0 + 1)) / 4000).squareRoot()))
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        for y in stride(from: y0, through: y1, by: step) {
            for x in stride(from: x0, through: x1, by: step) {
                histogram[Int(image.pixels[y * image.stride + x])] += 1
                count += 1
            }
        }
        var seen = 0
        for (level, n) in histogram.enumerated() {
            seen += n
            if seen * 2 >= count { return Double(level) }
        }
        return 255
    }

    // MARK: 1–2: darker or lighter than the neighbourhood, beyond the noise

    func inkMasks(_ image: GrayImage) -> (dark: [Bool], light: [Bool]) {
        let w = image.width
        let h = image.height
        // Integral image for box means in O(1) per pixel.
        var integral = [Int](repeating: 0, count: (w + 1) * (h + 1))
        var differences = [Int](repeating: 0, count: 256)
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                var rowSum = 0
                let row = y * image.stride
                for x in 0..<w {
                    rowSum += Int(p[row + x])
                    integral[(y + 1) * (w + 1) + x + 1] = integral[y * (w + 1) + x + 1] + rowSum
                    if x > 0 { differences[abs(Int(p[row + x]) - Int(p[row + x - 1]))] += 1 }
                }
            }
        }
        // Noise: most neighbouring pixels lie on flat ground, so the median difference between
        // horizontal neighbours measures sensor noise and JPEG ringing (σ ≈ median / 0.95 for
        // Gaussian noise; the factor is folded into `inkNoiseFactor`).
        let total = differences.reduce(0, +)
        var seen = 0
        var median = 0
        for (level, count) in differences.enumerated() {
            seen += count
            if seen * 2 >= total {
                median = level
                break
            }
        }
        let threshold = max(configuration.minimumInkContrast, Int((Double(median) * configuration.inkNoiseFactor).rounded()))
        let r = max(1, configuration.inkWindow / 2)
        var dark = [Bool](repeating: false, count: w * h)
        var light = [Bool](repeating: false, count: w * h)
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                let y0 = max(0, y - r)
                let y1 = min(h, y + r + 1)
                for x in 0..<w {
                    let x0 = max(0, x - r)
                    let x1 = min(w, x + r + 1)
                    let sum = integral[y1 * (w + 1) + x1] - integral[y0 * (w + 1) + x1] - integral[y1 * (w + 1) + x0] + integral[y0 * (w + 1) + x0]
                    let area = (y1 - y0) * (x1 - x0)
                    let delta = Int(p[y * image.stride + x]) * area - sum
                    if delta < -threshold * area { dark[y * w + x] = true } else if delta > threshold * area { light[y * w + x] = true }
                }
            }
        }
        return (dark, light)
    }

    // MARK: 3: glyph candidates

    struct Glyph {
        var minX: Int, minY: Int, maxX: Int, maxY: Int
        var pixels: Int
        /// Sum of the gray levels of its pixels.
        var levels = 0
        /// 0 for dark ink, 1 for light ink: glyphs join only their own kind.
        var polarity = 0
        /// The first and last pixel of each of its rows (x, y): its outline as far as any straight
        /// projection can tell (`fit`). The box alone is not: on a tilted line, letters run together
        /// into one component whose box is far taller than the letters.
        var rowEnds: [(x: Int, y: Int)] = []
        var width: Int { maxX - minX + 1 }
        var height: Int { maxY - minY + 1 }
        /// How tall its letters are: the box's height, but for a component wider than twice that (a
        /// word whose letters ran together) its thinnest extent across the directions a line may take,
        /// which on a tilted line is its letters' height, not its box's (`thickness(within:)`).
        var letterHeight = 0
        var center: Point { Point(x: Double(minX + maxX) / 2, y: Double(minY + maxY) / 2) }

        /// Its least extent across directions up to `maximumTilt` degrees from horizontal (every 2.5°),
        /// in whole pixels.
        func thickness(within maximumTilt: Double) -> Int {
            var least = Double(height)
            for step in stride(from: -maximumTilt, through: maximumTilt, by: 2.5) {
                let angle = step * .pi / 180
                let vx = -sin(angle)
                let vy = cos(angle)
                var low = Double.infinity
                var high = -Double.infinity
                for (x, y) in rowEnds {
                    let v = Double(x) * vx + Double(y) * vy
                    low = min(low, v)
                    high = max(high, v)
                }
                least = min(least, high - low + abs(vx) + abs(vy))
            }
            return max(1, Int(least.rounded()))
        }
    }

    func components(_ mask: [Bool], image: GrayImage, polarity: Int) -> [Glyph] {
        let h = image.height
        return allComponents(mask, image: image, polarity: polarity) { g in
            let fill = Double(g.pixels) / Double(g.width * g.height)
            return g.height >= configuration.minimumGlyphHeight && g.height <= Int(Double(h) * configuration.maximumGlyphHeightFraction)
                && g.width <= g.height * 40 && fill > 0.12
                // Solid blobs are not glyphs, but a thin upright stroke ("l", "1", "I" in small print,
                // a pixel or two wide) is solid too, and dropping it splits "kestrel-labs" in two.
                && (fill < 0.95 || g.width * 3 <= g.height)
        }
    }

    /// The connected components of `mask` that `keep` accepts, with their row ends.
    func allComponents(_ mask: [Bool], image: GrayImage, polarity: Int, keep: (Glyph) -> Bool) -> [Glyph] {
        let w = image.width
        let h = image.height
        var label = [Int32](repeating: -1, count: w * h)
        var glyphs: [Glyph] = []
        var stack: [Int] = []
        var members: [Int] = []
        // Each kept component's first and last column per row, indexed by image row: made once, and
        // put back to empty over the component's rows after use (no allocation per glyph).
        var first = [Int](repeating: Int.max, count: h)
        var last = [Int](repeating: Int.min, count: h)
        var id: Int32 = 0
        for start in 0..<(w * h) where mask[start] && label[start] < 0 {
            var g = Glyph(minX: start % w, minY: start / w, maxX: start % w, maxY: start / w, pixels: 0, polarity: polarity)
            label[start] = id
            stack.append(start)
            members.removeAll(keepingCapacity: true)
            while let i = stack.popLast() {
                let x = i % w
                let y = i / w
                members.append(i)
                g.pixels += 1
                g.levels += Int(image.pixels[y * image.stride + x])
                g.minX = min(g.minX, x)
                g.maxX = max(g.maxX, x)
                g.minY = min(g.minY, y)
                g.maxY = max(g.maxY, y)
                for dy in -1...1 {
                    let ny = y + dy
                    guard ny >= 0, ny < h else { continue }
                    for dx in -1...1 {
                        let nx = x + dx
                        guard nx >= 0, nx < w else { continue }
                        let j = ny * w + nx
                        if mask[j] && label[j] < 0 {
                            label[j] = id
                            stack.append(j)
                        }
                    }
                }
            }
            id += 1
            guard keep(g) else { continue }
            for i in members {
                let y = i / w
                let x = i % w
                first[y] = min(first[y], x)
                last[y] = max(last[y], x)
            }
            g.rowEnds.reserveCapacity(2 * g.height)
            for y in g.minY...g.maxY {
                g.rowEnds.append((first[y], y))
                if last[y] != first[y] { g.rowEnds.append((last[y], y)) }
                first[y] = Int.max
                last[y] = Int.min
            }
            g.letterHeight = g.width > 2 * g.height ? g.thickness(within: configuration.maximumTilt) : g.height
            glyphs.append(g)
        }
        return glyphs
    }

    // MARK: 4–5: glyphs into lines

    func lines(from glyphs: [Glyph]) -> [GlyphLine] {
        guard !glyphs.isEmpty else { return [] }
        var parent = Array(0..<glyphs.count)
        func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        // Each glyph links to its nearest plausible right-hand neighbour, and each glyph keeps only
        // its nearest left-hand link: chains along lines, never ladders across them (a glyph of the
        // next line down and to the right is plausible too, but farther than the next one on its own).
        let order = glyphs.indices.sorted { glyphs[$0].minX < glyphs[$1].minX }
        let maxSlope = tan(configuration.maximumTilt * .pi / 180)
        // Each glyph's plausible right-hand neighbours, nearest first.
        var candidates = [[(j: Int, distance: Double)]](repeating: [], count: glyphs.count)
        for (position, i) in order.enumerated() {
            let a = glyphs[i]
            let reach = Double(a.maxX) + Double(a.letterHeight) * 1.5 * 2.6  // the largest gap to a glyph up to 2.6× as tall
            for j in order[(position + 1)...] {
                let b = glyphs[j]
                if Double(b.minX) > reach { break }
                guard a.polarity == b.polarity else { continue }
                let ha = Double(a.letterHeight)
                let hb = Double(b.letterHeight)
                guard Self.sameLineHeights(a, b) else { continue }
                let dx = b.center.x - a.center.x
                let dy = b.center.y - a.center.y
                guard dx > 0, abs(dy) <= dx * maxSlope + 0.35 * min(ha, hb) else { continue }
                let gap = Double(b.minX - a.maxX)
                // The next glyph of a line starts where this one ends (a little overlap for kerning
                // and italics): a word of the line below, starting further left, is not the next.
                guard gap <= 1.5 * max(ha, hb), gap >= -0.25 * min(ha, hb) else { continue }
                candidates[i].append((j, max(0, gap) + 2 * abs(dy)))
            }
            candidates[i].sort { $0.distance < $1.distance }
        }
        // A glyph whose nearest neighbour keeps a nearer left link instead tries the ones before that
        // neighbour: it skipped the glyph between them. Measured: "avery.lindqvist" at 1280×720,
        // where "ry" reached past the tall "l" to the "i" (its height-centre nearer), and "l" kept
        // the "i": "ry" then linked to nothing and the address was cut in two at the dot.
        var bestLeft: [Int: (from: Int, distance: Double)] = [:]
        var tried = [Int](repeating: 0, count: glyphs.count)
        var before = [Int](repeating: Int.max, count: glyphs.count)  // only neighbours starting left of this
        var waiting = Array(order.reversed())
        while let i = waiting.popLast() {
            while tried[i] < candidates[i].count {
                let (j, distance) = candidates[i][tried[i]]
                tried[i] += 1
                guard glyphs[j].minX < before[i] else { continue }
                if let held = bestLeft[j] {
                    guard distance < held.distance else {
                        before[i] = min(before[i], glyphs[j].minX)
                        continue
                    }
                    before[held.from] = min(before[held.from], glyphs[j].minX)
                    waiting.append(held.from)
                }
                bestLeft[j] = (i, distance)
                break
            }
        }
        for (j, link) in bestLeft { parent[find(j)] = find(link.from) }
        var groups: [Int: [Int]] = [:]
        for i in glyphs.indices { groups[find(i), default: []].append(i) }
        var result: [GlyphLine] = []
        for members in groups.values {
            let parts = members.map { glyphs[$0] }
            let heights = parts.map { Double($0.letterHeight) }.sorted()
            let height = heights[heights.count / 2]
            let span = Double(parts.map(\.maxX).max()! - parts.map(\.minX).min()!)
            guard parts.count >= configuration.minimumGlyphs || (parts.count >= 2 && span >= height * 3) || (parts.count == 1 && span >= height * 4)
            else {
                continue
            }
            guard span >= height * 2 else { continue }
            if var line = Self.fit(parts, height: height), abs(line.angle) <= configuration.maximumTilt * .pi / 180 {
                line.polarity = parts[0].polarity
                line.inkLevel = Double(parts.map(\.levels).reduce(0, +)) / Double(max(1, parts.map(\.pixels).reduce(0, +)))
                result.append(line)
            }
        }
        return result.sorted { ($0.quad.topLeft.y, $0.quad.topLeft.x) < ($1.quad.topLeft.y, $1.quad.topLeft.x) }
    }

    /// Glyphs of one line have similar heights, except that a capital, an ascender or a slash is
    /// up to twice as tall as an x-height letter beside it ("Avery", "uk/team"): then the smaller
    /// must lie within the taller's rows, as a lowercase letter lies within a capital's.
    static func sameLineHeights(_ a: Glyph, _ b: Glyph) -> Bool {
        let (small, tall) = a.letterHeight <= b.letterHeight ? (a, b) : (b, a)
        let ratio = Double(tall.letterHeight) / Double(small.letterHeight)
        if ratio < 1.7 { return true }
        guard ratio < 2.6 else { return false }
        let shared = min(small.maxY, tall.maxY) - max(small.minY, tall.minY) + 1
        return Double(shared) >= 0.8 * Double(small.height)
    }

    /// The quad around `parts`: direction by least squares through the glyph centres, extent by
    /// projecting the glyphs' pixels (their row ends) on the direction and its normal, padded by a
    /// fifth of the height. (Box corners made the quad of a line tilted 11° whose letters ran together
    /// three times as tall as its text: "oldmill-studios.com/info" then read as "oldmil-s".)
    static func fit(_ parts: [Glyph], height: Double) -> GlyphLine? {
        let centers = parts.map(\.center)
        let n = Double(centers.count)
        let mx = centers.map(\.x).reduce(0, +) / n
        let my = centers.map(\.y).reduce(0, +) / n
        var sxx = 0.0
        var sxy = 0.0
        for c in centers {
            sxx += (c.x - mx) * (c.x - mx)
            sxy += (c.x - mx) * (c.y - my)
        }
        let angle = sxx > 1e-9 && parts.count >= 2 ? atan(sxy / sxx) : 0
        let ux = cos(angle)
        let uy = sin(angle)  // along the line
        let vx = -uy
        let vy = ux  // across it, pointing down
        var minU = Double.infinity
        var maxU = -Double.infinity
        var minV = Double.infinity
        var maxV = -Double.infinity
        for g in parts {
            // Pixel (x, y) is the square from (x, y) to (x + 1, y + 1): its centre's projection, give
            // or take half the square's extent in that direction.
            for (x, y) in g.rowEnds {
                let px = Double(x) + 0.5 - mx
                let py = Double(y) + 0.5 - my
                let u = px * ux + py * uy
                let v = px * vx + py * vy
                minU = min(minU, u)
                maxU = max(maxU, u)
                minV = min(minV, v)
                maxV = max(maxV, v)
            }
        }
        let halfU = (abs(ux) + abs(uy)) / 2
        let halfV = (abs(vx) + abs(vy)) / 2
        minU -= halfU
        maxU += halfU
        minV -= halfV
        maxV += halfV
        let ink = maxV - minV
        let pad = height * 0.2
        minU -= pad
        maxU += pad
        minV -= pad
        maxV += pad
        func point(_ u: Double, _ v: Double) -> Point { Point(x: mx + u * ux + v * vx, y: my + u * uy + v * vy) }
        return GlyphLine(
            quad: Quad(topLeft: point(minU, minV), topRight: point(maxU, minV), bottomRight: point(maxU, maxV), bottomLeft: point(minU, maxV)),
            textHeight: ink, angle: angle, glyphs: parts.count)
    }
}
