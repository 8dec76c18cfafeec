import ScannerCore

/// One line of text a `LineDetector` found: what every detector really produces (issue #55).
public struct DetectedLine: Sendable, Equatable {
    /// Its corners in the image's pixels, inside the image, top-left first and clockwise, the top edge
    /// along the text's top: the part of the image its recognizer reads, the detector's own margin
    /// around the ink included (the classical detector pads its ink by a fifth of the letters' height;
    /// the network's box is the one it was trained to draw around a line).
    public var quad: Quad
    /// How tall its text is across the line, in the image's pixels: its ink from the top of its tallest
    /// letter to the bottom of its lowest, without the quad's margin. One meaning for every detector:
    /// guidance's "closer" compares it with what is legible, the live stage ranks lines by their
    /// length in it.
    public var textHeight: Double
    /// How sure the detector is that this is a line of text, 0–1: the network's mean probability
    /// inside its box; 1 from a detector that does not grade the lines it keeps (the classical one).
    /// Comparable between lines of one detector only.
    public var score: Double

    public init(quad: Quad, textHeight: Double, score: Double = 1) {
        self.quad = quad
        self.textHeight = textHeight
        self.score = score
    }

    /// Its length in its text's heights.
    public var length: Double { textHeight > 0 ? quad.meanLength / textHeight : 0 }

    /// About how many glyphs long it is, from its length: what the live stage ranks lines by and
    /// counts its minimum in, whichever detector found them.
    public var glyphEstimate: Int { Int((length * Self.glyphsPerTextHeight).rounded()) }

    /// Glyphs to a text height of a line's length: a glyph and its space are about 0.6 of a letter's
    /// height wide, and a line's ink about 1.4 letter heights tall.
    public static let glyphsPerTextHeight = 2.4

    /// The line moved by `dx`, `dy` (from a part of an image to the whole).
    public func offset(by dx: Double, _ dy: Double) -> DetectedLine {
        var moved = self
        moved.quad = quad.map { Point(x: $0.x + dx, y: $0.y + dy) }
        return moved
    }
}
