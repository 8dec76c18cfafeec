import ContentTypes
import LineNetwork
import ScannerCore
import TextDetection
import TextRecognition

/// Text in an image the way a person reads a camera frame: find the lines first (a `LineDetector`),
/// then read each line on its own (a `LineRecognizer`), and type what each line says. This is the
/// geometry of a line's reading: which of its ends are cut, where along it an item lies, a coarse
/// picture of it to tell whether it changed.
///
/// Why not a recognizer's own layout analysis: on camera frames (uneven light, noise, JPEG blocking,
/// perspective) Tesseract's PSM 11 and PSM 3 miss lines a person reads at a glance; given the line, it
/// reads it (issue #13, docs/recognition.md). Typing per line also means a URL is never joined to the
/// next line, nor cut where the line does not end.
public struct LineReader: Sendable {
    /// Height lines are straightened to (the line's box, padding included): 36 px, the input height
    /// of Tesseract's English LSTM. Measured 2026-11-22 on the footage (`scannerd-bench
    /// --reading-heights`, 84 typed items at 1280×720 and 42 at 640×480, three seeds), items read
    /// right at 32/34/36/38/40/42/48 px: 74/75/78/76/–/73/74 and 36/31/33/32/29/–/31; the spread
    /// between neighbouring heights is mostly noise, but 36 is at the top of both and reads a line
    /// ~12% faster than 48 (11.4 against 12.9 ms at 1280×720).
    public static let standardHeight = 36
    public let readingHeight: Int
    public init(readingHeight: Int = LineReader.standardHeight) {
        self.readingHeight = readingHeight
    }

    /// Whether a line's text may go on past its start or its end, out of sight.
    public struct CutEnds: Sendable, Equatable {
        public var start: Bool
        public var end: Bool
        public static let none = CutEnds(start: false, end: false)
    }

    /// The columns of `straight` (a line normalized for reading: dark ink on light ground) from just
    /// past the last column before `before` that is not clear ground to the first one past `after`
    /// (the line's ends when there is none). A column is not clear ground when its middle is far from
    /// the ground (a thumb: a third of the way to the ink, as `cutEnds` judges past an end) or holds
    /// ink (the remains of a letter: 8 % of it, as `cutEnds`). Columns within a quarter of the
    /// line's height of what was read are left out: the network places a symbol by the steps it
    /// was read at, which need not begin where its ink does.
    static func unreadEnds(of straight: GrayImage, before: Int, after: Int) -> Range<Int> {
        let levels = LevelHistogram(straight)
        let ground = levels.level(atRank: levels.total * 9 / 10)
        let ink = levels.level(atRank: levels.total * 3 / 100)
        let contrast = Double(ground - ink)
        let margin = straight.height / 4
        let rows = (straight.height * 15 / 100)..<(straight.height * 85 / 100)
        /// Counts, not a sorted column: its median is far from the ground when more than half of it is.
        func clear(_ x: Int) -> Bool {
            func count(fartherThan distance: Double) -> Int {
                rows.count { Double(ground - Int(straight.pixels[$0 * straight.stride + x])) > distance }
            }
            return count(fartherThan: contrast / 3) <= rows.count / 2 && Double(count(fartherThan: contrast / 2)) <= 0.08 * Double(rows.count)
        }
        guard contrast > 0, !rows.isEmpty else { return 0..<straight.width }
        let start = stride(from: min(straight.width, before - margin) - 1, through: 0, by: -1).first { !clear($0) }.map { $0 + 1 } ?? 0
        let end = (min(straight.width, max(0, after + margin))..<straight.width).first { !clear($0) } ?? straight.width
        return start..<max(start, end)
    }

    /// A network reading as a line of words (split at its spaces), each symbol with its columns.
    static func reading(_ read: NetworkReading, quad: Quad, cut: CutEnds) -> LineReading? {
        let height = LineNetwork.lineHeight
        var words: [RecognizedWord] = []
        var current: [RecognizedSymbol] = []
        func endWord() {
            guard !current.isEmpty else { return }
            words.append(
                RecognizedWord(
                    text: current.map(\.text).joined(), box: PixelRect.union(current.map(\.box))!,
                    confidence: current.map(\.confidence).reduce(0, +) / Double(current.count), symbols: current))
            current = []
        }
        for symbol in read.symbols {
            if symbol.text.allSatisfy(\.isWhitespace) {
                endWord()
            } else {
                current.append(
                    RecognizedSymbol(
                        text: symbol.text, box: PixelRect(x: symbol.columns.lowerBound, y: 0, width: symbol.columns.count, height: height),
                        confidence: symbol.confidence))
            }
        }
        endWord()
        guard let box = PixelRect.union(words.map(\.box)) else { return nil }
        return LineReading(line: RecognizedLine(words: words, box: box), quad: quad, width: read.width, height: height, cut: cut)
    }

    /// Which ends of the line at `quad` are cut: just past the end lies the image's edge, something
    /// that is not the line's ground (a thumb over the card), or the remains of glyphs the line did
    /// not take in (letters half under a thumb). A line stops where its text stops or where the text
    /// can no longer be seen; only in the first case is there clean ground past it. Text read up to
    /// a cut end may go on out of sight ("lo@oldmill-studios.com" for "hello@oldmill-studios.com"),
    /// so `ImageScanner` reports no typed item that reaches one.
    ///
    /// Two probes past the padded end, in units of the line's height (padding included, about 1.4
    /// glyph heights): the ground probe, 0.05–0.6 out and the middle 60 % of the height, is cut when
    /// its median lies more than a third of the way from the line's ground towards its ink; the ink
    /// probe, 0.05–0.35 out (closer than the gap to a next word, which would have joined the line),
    /// when more than 8 % of it is ink. Measured on the footage's scan frames (3 seeds, 640×480 and
    /// 1280×720): typed payloads in no truth item 22 → 10, items read right 154 → 152.
    ///
    /// The probes are laid from the line's ink (`inkQuad`), not from the detector's quad: the
    /// detector network's quads reach about one glyph height past the text on every side (DB's
    /// unclipping), and probes laid from there went past a phone screen's edge a glyph before its
    /// lines (1280×720, phone seeds 1 and 3: the e-mail address and the link never added).
    public func cutEnds(of detected: Quad, in image: GrayImage) -> CutEnds {
        let quad = Self.inkQuad(of: detected, in: image)
        let height = quad.meanHeight
        let top = quad.topRight - quad.topLeft
        let length = top.distance(to: Point(x: 0, y: 0))
        guard height >= 2, length >= 1 else { return .none }
        let line = LevelHistogram(image.rectified(quad, height: 12))
        let ground = line.level(atRank: line.total / 2)
        let contrast = Double(max(ground - line.level(atRank: line.total * 3 / 100), line.level(atRank: line.total * 97 / 100) - ground))
        guard contrast > 0 else { return .none }
        func shifted(_ p: Point, _ distance: Double) -> Point {
            Point(x: p.x + top.x / length * distance * height, y: p.y + top.y / length * distance * height)
        }
        func between(_ a: Point, _ b: Point, _ t: Double) -> Point { Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t) }
        /// The levels between `near` and `far` line heights out (negative: before the start), across
        /// `rows` of the line's height; nil when that leaves the image.
        func probe(_ near: Double, _ far: Double, _ top: Point, _ bottom: Point, rows: ClosedRange<Double>) -> LevelHistogram? {
            let upper = between(top, bottom, rows.lowerBound)
            let lower = between(top, bottom, rows.upperBound)
            let probe = Quad(
                topLeft: shifted(upper, min(near, far)), topRight: shifted(upper, max(near, far)),
                bottomRight: shifted(lower, max(near, far)), bottomLeft: shifted(lower, min(near, far)))
            let inside = probe.corners.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x <= Double(image.width) && $0.y <= Double(image.height) }
            return inside ? LevelHistogram(image.rectified(probe, height: 6)) : nil
        }
        // The ground as it is at each end, not the whole line's median: light falls unevenly across
        // a line (a phone screen's glare), and dense light-on-dark text pulls the median towards the
        // ink (a dark-mode e-mail address: ground 18 at its start, 39 at its end, median 46). Over
        // one and a half line heights inside the end: a thumb the quad took in fills the first half
        // height (a poster's `hello@…` found as `o@oldmill-studios.com`, the thumb judged its ground).
        let lightInk = line.level(atRank: line.total * 97 / 100) - ground > ground - line.level(atRank: line.total * 3 / 100)
        func groundLevel(_ levels: LevelHistogram) -> Int {
            levels.level(atRank: lightInk ? levels.total / 4 : levels.total * 3 / 4)
        }
        /// Whether that end is cut: by something over the line's ground, or by glyphs on it.
        func isCut(_ side: Double, _ top: Point, _ bottom: Point) -> Bool {
            guard let past = probe(side * 0.05, side * 0.6, top, bottom, rows: 0.2...0.8),
                let near = probe(side * 0.05, side * 0.35, top, bottom, rows: 0.15...0.85),
                let inside = probe(-side * min(1.5, length / height), 0, top, bottom, rows: 0.2...0.8)
            else { return true }
            let ground = groundLevel(inside)
            // Only towards the ink: a thumb over a card is darker than its paper, over a phone's dark
            // screen lighter. Paper lighter than the ground inside is no cut: blurred small print
            // never shows its paper between dense glyphs, so the ground measured inside (`WWW.…` of
            // a receipt held up) is darker than the clean paper past the line's end.
            let pastLevel = past.level(atRank: past.total / 2)
            if Double(lightInk ? pastLevel - ground : ground - pastLevel) > contrast / 3 { return true }
            let ink = near.count { Double(abs($0 - ground)) > contrast / 2 }
            return Double(ink) > 0.08 * Double(near.total)
        }
        return CutEnds(start: isCut(-1, quad.topLeft, quad.bottomLeft), end: isCut(1, quad.topRight, quad.bottomRight))
    }

    /// `quad` narrowed to the ink inside it, padded as the classical detector pads its lines (a fifth
    /// of the ink's height on every side), never wider than `quad`; `quad` itself when it holds no
    /// ink. Ink is what lies more than half the line's contrast from its ground (its median), as the
    /// probes of `cutEnds` judge it; a row or column holds ink when 5 % of it (at least one sample)
    /// does. Only the line's own rows count (`ownRows`), not a neighbour's the quad took in.
    static func inkQuad(of quad: Quad, in image: GrayImage) -> Quad {
        guard let ink = OwnInk(quad, in: image) else { return quad }
        // The columns of the line's own rows: a longer neighbour's glyphs reach past its ends.
        let columnInk = (0..<ink.straight.width).map { x in (ink.top...ink.bottom).count { ink.isInk(x, $0) } }
        let columnNeed = max(1, OwnInk.rows / 20)
        guard let left = columnInk.firstIndex(where: { $0 >= columnNeed }), let right = columnInk.lastIndex(where: { $0 >= columnNeed })
        else { return quad }
        let pad = Double(ink.bottom - ink.top + 1) * 0.2
        let u0 = max(0, (Double(left) - pad) / Double(ink.straight.width))
        let u1 = min(1, (Double(right + 1) + pad) / Double(ink.straight.width))
        return Self.quad(u0...u1, on: quad, rows: ink.rows(padded: 0.2))
    }

    /// `quad` narrowed across the line to its own inked rows (`ownRows`), padded by `frameRowPadding`
    /// of their height on each side, its ends kept; `quad` itself when it holds no ink. What a frame's
    /// line is read from (`ReadingFusion.frame`): at 1280×720 a receipt's small print (lines 10–15 px
    /// apart) is found in quads two to three times its glyphs' height, which take in the glyphs of
    /// the lines above and below, and the network read them into the line (`(636)57-297`).
    public static func ownRowsQuad(of quad: Quad, in image: GrayImage) -> Quad {
        guard let ink = OwnInk(quad, in: image) else { return quad }
        return Self.quad(0...1, on: quad, rows: ink.rows(padded: frameRowPadding))
    }

    /// The padding of `ownRowsQuad`, a share of the line's inked height on each side: crops about
    /// 1.6 times the glyphs' height, as the detector's own (its unclipping) are on well-spaced print.
    /// Measured on the development receipts held up (`make score-real-live`, unpaced, 82 clips):
    /// the detector's quads 35 of 67 items, 0.2 40, 0.3 39, 0.4 39, 0.6 35; false items 2, 6, 4, 5, 4.
    /// Stills keep the detector's quads: there the same crops (0.3) read 256 of 298 against 261, with
    /// 15 false against 8 (`make score-real`): well-spaced print is read best as the network was trained.
    static let frameRowPadding = 0.3

    /// A line's straightened picture (24 rows) and the run of rows that is its own (`ownRows`).
    struct OwnInk {
        static let rows = 24
        let straight: GrayImage
        let top: Int
        let bottom: Int
        private let ground: Int
        private let contrast: Int

        init?(_ quad: Quad, in image: GrayImage) {
            let straight = image.rectified(quad, height: Self.rows)
            let levels = LevelHistogram(straight)
            let ground = levels.level(atRank: levels.total / 2)
            let contrast = max(ground - levels.level(atRank: levels.total * 3 / 100), levels.level(atRank: levels.total * 97 / 100) - ground)
            guard contrast > 0, straight.width >= 2 else { return nil }
            (self.straight, self.ground, self.contrast) = (straight, ground, contrast)
            let rowInk = (0..<Self.rows).map { y in (0..<straight.width).count { Self.isInk(straight, $0, y, ground, contrast) } }
            guard let (top, bottom) = LineReader.ownRows(rowInk, need: max(1, straight.width / 20)) else { return nil }
            (self.top, self.bottom) = (top, bottom)
        }

        /// Ink lies more than half the line's contrast from its ground.
        private static func isInk(_ straight: GrayImage, _ x: Int, _ y: Int, _ ground: Int, _ contrast: Int) -> Bool {
            Double(abs(Int(straight.pixels[y * straight.stride + x]) - ground)) > Double(contrast) / 2
        }

        func isInk(_ x: Int, _ y: Int) -> Bool { Self.isInk(straight, x, y, ground, contrast) }

        /// Its own rows padded by `pad` of their height on each side, as a share of the quad's height.
        func rows(padded pad: Double) -> ClosedRange<Double> {
            let margin = Double(bottom - top + 1) * pad
            return max(0, (Double(top) - margin) / Double(Self.rows))...min(1, (Double(bottom + 1) + margin) / Double(Self.rows))
        }
    }

    /// The line's own rows among `rowInk` (ink per row, top to bottom): the run of rows holding ink
    /// (`need` each) nearest the middle, the most ink on a tie; nil when no row does. A detector's
    /// quad is taller than its glyphs, and on a receipt it takes in the glyphs of the lines above and
    /// below (lines ~1.4 glyph heights apart): counted as the line's, they made its ink reach past its
    /// ends wherever a neighbour is longer, and the line was taken as cut there (`cutEnds`).
    static func ownRows(_ rowInk: [Int], need: Int) -> (top: Int, bottom: Int)? {
        var runs: [ClosedRange<Int>] = []
        var start: Int?
        for (row, ink) in rowInk.enumerated() {
            if ink >= need {
                if start == nil { start = row }
            } else if let first = start {
                runs.append(first...(row - 1))
                start = nil
            }
        }
        if let first = start { runs.append(first...(rowInk.count - 1)) }
        let middle = Double(rowInk.count - 1) / 2
        func distance(_ run: ClosedRange<Int>) -> Double {
            run.contains(Int(middle.rounded(.down))) || run.contains(Int(middle.rounded(.up)))
                ? 0 : min(abs(Double(run.lowerBound) - middle), abs(Double(run.upperBound) - middle))
        }
        func ink(_ run: ClosedRange<Int>) -> Int { run.reduce(0) { $0 + rowInk[$1] } }
        guard let own = runs.min(by: { (distance($0), -ink($0)) < (distance($1), -ink($1)) }) else { return nil }
        return (own.lowerBound, own.upperBound)
    }

    /// A coarse picture of the line at `quad` for telling whether it changed since it was read:
    /// 3 × 16 cell means of the straightened line, normalized to zero mean and unit spread (so a
    /// change of exposure is no change). Cell means, not samples, so hand jitter of a pixel or two
    /// changes little.
    public func signature(of quad: Quad, in image: GrayImage) -> [Double] {
        let rows = 3
        let columns = 16
        let cell = 6
        let small = image.rectified(quad, height: rows * cell)
        guard small.width >= columns else { return [] }
        var means = [Double](repeating: 0, count: rows * columns)
        var counts = [Int](repeating: 0, count: rows * columns)
        for y in 0..<small.height {
            for x in 0..<small.width {
                let i = (y / cell) * columns + min(columns - 1, x * columns / small.width)
                means[i] += Double(small.pixels[y * small.stride + x])
                counts[i] += 1
            }
        }
        for i in means.indices { means[i] /= Double(max(1, counts[i])) }
        let mean = means.reduce(0, +) / Double(means.count)
        let spread = max(4, (means.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(means.count)).squareRoot())
        return means.map { ($0 - mean) / spread }
    }

    /// Where the columns of `box` (in the straightened line `reading` was read from) lie along the
    /// line, as fractions of its length.
    public static func span(of box: PixelRect, in reading: LineReading) -> ClosedRange<Double> {
        let s0 = max(0, min(1, Double(box.x) / Double(reading.width)))
        let s1 = max(s0, min(1, Double(box.x + box.width) / Double(reading.width)))
        return s0...s1
    }

    /// The part of `quad` (a line, top-left first, clockwise) between fractions `span` of its length
    /// and fractions `rows` of its height.
    public static func quad(_ span: ClosedRange<Double>, on quad: Quad, rows: ClosedRange<Double> = 0...1) -> Quad {
        func along(_ a: Point, _ b: Point, _ s: Double) -> Point { Point(x: a.x + (b.x - a.x) * s, y: a.y + (b.y - a.y) * s) }
        let s0 = span.lowerBound
        let s1 = span.upperBound
        let top = (along(quad.topLeft, quad.topRight, s0), along(quad.topLeft, quad.topRight, s1))
        let bottom = (along(quad.bottomLeft, quad.bottomRight, s0), along(quad.bottomLeft, quad.bottomRight, s1))
        return Quad(
            topLeft: along(top.0, bottom.0, rows.lowerBound), topRight: along(top.1, bottom.1, rows.lowerBound),
            bottomRight: along(top.1, bottom.1, rows.upperBound), bottomLeft: along(top.0, bottom.0, rows.upperBound))
    }
}

/// An item read from a line, with where along the line it lies: when the line is found again
/// elsewhere (the card moved) and not read again, the item is placed on the line's new quad.
/// One line read: its text as words, and where each word lies along the line (0…1 from its left end).
public struct LineReading: Sendable {
    public private(set) var line: RecognizedLine
    public var quad: Quad
    /// Size of the straightened image the word and symbol boxes refer to.
    public var width: Int
    public var height: Int
    /// Which of its ends are cut (`LineReader.cutEnds`).
    public var cut: LineReader.CutEnds = .none
    /// Where each UTF-8 byte of `line.text` lies, one box a byte (its symbol's box; a space between
    /// words, the next word's first symbol's): an item's span and whether it reaches a cut end are
    /// then the item's own, not its words' (the network reads `Tel.512.555.0173` as one word).
    public private(set) var byteBoxes: [PixelRect]
    /// The recognizer's confidence in the symbol each byte belongs to (1 for the spaces between words).
    public private(set) var byteConfidences: [Double]
    /// The columns of the straightened line between its ends and what was read that are clear
    /// ground, `clear.lowerBound` just past the last column before the first symbol that is not
    /// (`LineReader.unreadEnds`; nil: the whole width). An item at a cut end has room for a glyph
    /// before it only on clear ground: a thumb's edge the quad took in is no room, nor the remains of
    /// letters under it (whether the recognizer reads nothing of them, as the network does, or reads
    /// them as `|`, as Tesseract does).
    public var clear: Range<Int>? = nil

    /// A reading of the line at `quad`: `line`'s boxes lie in the straightened line, `width` × `height`.
    public init(line: RecognizedLine, quad: Quad, width: Int, height: Int, cut: LineReader.CutEnds = .none, clear: Range<Int>? = nil) {
        self.line = line
        self.quad = quad
        self.width = width
        self.height = height
        self.cut = cut
        self.clear = clear
        var boxes: [PixelRect] = []
        var confidences: [Double] = []
        for (index, word) in line.words.enumerated() {
            // The space before it.
            if index > 0 {
                boxes.append(word.symbols.first?.box ?? word.box)
                confidences.append(1)
            }
            // Its symbols where they make up its text (a recognizer that places words only, or
            // symbols that do not add up, put every byte in the word's box): so there is one box and
            // one confidence for each byte of `line.text`.
            let placed = !word.symbols.isEmpty && word.symbols.map(\.text).joined() == word.text
            let symbols = placed ? word.symbols : [RecognizedSymbol(text: word.text, box: word.box, confidence: word.confidence)]
            for symbol in symbols {
                boxes += Array(repeating: symbol.box, count: symbol.text.utf8.count)
                confidences += Array(repeating: symbol.confidence, count: symbol.text.utf8.count)
            }
        }
        byteBoxes = boxes
        byteConfidences = confidences
    }

    /// Sets `clear` where an end is cut, from `normalized`, the straightened line stretched to full
    /// contrast, dark on light (`GrayImage.normalizedForReading`).
    mutating func findClearGround(in normalized: GrayImage) {
        guard cut.start || cut.end, let first = byteBoxes.first, let last = byteBoxes.last else { return }
        clear = LineReader.unreadEnds(of: normalized, before: first.x, after: last.x + last.width)
    }
}

public struct LineItem: Sendable, Equatable {
    /// Bounds in the pixel coordinates of the image the line was read in.
    public var item: RecognizedItem
    public var span: ClosedRange<Double>
    /// The item reaches an end of its line that is cut, either end (`LineReader.cutEnds`): it may be
    /// a part of what is printed ("lo@…" of "hello@…"). Not enough to add an item; enough to keep one
    /// (`LiveReadingPolicy.admitted`).
    public var reachesCutEnd: Bool
    /// The cut end it reaches is its line's start: what came before it may be hidden (a number's
    /// `Order #`), not only a part of it.
    public var reachesCutStart: Bool

    /// `reachesCutEnd`: the item reaches its line's cut end (its last character's side);
    /// `reachesCutStart`: its cut start. Either makes it reach a cut end.
    public init(item: RecognizedItem, span: ClosedRange<Double>, reachesCutEnd: Bool = false, reachesCutStart: Bool = false) {
        self.item = item
        self.span = span
        self.reachesCutEnd = reachesCutEnd || reachesCutStart
        self.reachesCutStart = reachesCutStart
    }

    /// Both are typed, of one content type, over overlapping spans of the line: readings of the
    /// same item, whatever each says.
    public func sharesPlace(with other: LineItem) -> Bool {
        item.contentType != nil && item.contentType == other.item.contentType && span.overlaps(other.span)
    }

    /// The item placed on `line`, the quad its line has now.
    public func placed(on line: Quad) -> RecognizedItem {
        var item = item
        item.bounds = LineReader.quad(span, on: line)
        return item
    }
}
