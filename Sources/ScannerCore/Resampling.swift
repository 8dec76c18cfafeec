extension GrayImage {
    /// This image resized by `factor` with bilinear interpolation (packed output).
    ///
    /// Used to enlarge small text before OCR: Tesseract's LSTM reads best at an x-height of
    /// 20–30 px, and camera frames of a card at arm's length give less.
    public func scaled(by factor: Double) -> GrayImage {
        precondition(factor > 0 && factor.isFinite)
        let outWidth = max(1, Int((Double(width) * factor).rounded()))
        let outHeight = max(1, Int((Double(height) * factor).rounded()))
        if outWidth == width && outHeight == height { return packed() }
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        let sx = Double(width) / Double(outWidth)
        let sy = Double(height) / Double(outHeight)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<outHeight {
                    let fy = max(0, (Double(y) + 0.5) * sy - 0.5)
                    let y0 = min(Int(fy), height - 1)
                    let y1 = min(y0 + 1, height - 1)
                    let wy = fy - Double(y0)
                    for x in 0..<outWidth {
                        let fx = max(0, (Double(x) + 0.5) * sx - 0.5)
                        let x0 = min(Int(fx), width - 1)
                        let x1 = min(x0 + 1, width - 1)
                        let wx = fx - Double(x0)
                        let top = Double(src[y0 * stride + x0]) * (1 - wx) + Double(src[y0 * stride + x1]) * wx
                        let bottom = Double(src[y1 * stride + x0]) * (1 - wx) + Double(src[y1 * stride + x1]) * wx
                        dst[y * outWidth + x] = UInt8(min(255, max(0, (top * (1 - wy) + bottom * wy).rounded())))
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }
}

extension GrayImage {
    /// The inside of `quad` (pixel coordinates, top-left first, clockwise) straightened into a
    /// `height`-pixel-high image as long as the quad's aspect asks, sampled bilinearly: a tilted or
    /// foreshortened line of text, upright for a single-line recognizer. The quad's sides are
    /// interpolated linearly, which is exact for rectangles and parallelograms and close for the
    /// mild perspective of a line. `stretch` widens (> 1) or narrows the result beyond that aspect.
    public func rectified(_ quad: Quad, height: Int, stretch: Double = 1) -> GrayImage {
        let top = quad.topRight.distance(to: quad.topLeft)
        let bottom = quad.bottomRight.distance(to: quad.bottomLeft)
        let left = quad.bottomLeft.distance(to: quad.topLeft)
        let right = quad.bottomRight.distance(to: quad.topRight)
        let aspect = max(top, bottom) / max(1, (left + right) / 2) * (stretch.isFinite && stretch > 0 ? stretch : 1)
        let outHeight = max(1, height)
        let outWidth = max(1, min(8192, Int((Double(outHeight) * aspect).rounded())))
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        pixels.withUnsafeBufferPointer { p in
            for v in 0..<outHeight {
                let t = (Double(v) + 0.5) / Double(outHeight)
                let l = Point(
                    x: quad.topLeft.x + (quad.bottomLeft.x - quad.topLeft.x) * t, y: quad.topLeft.y + (quad.bottomLeft.y - quad.topLeft.y) * t)
                let r = Point(
                    x: quad.topRight.x + (quad.bottomRight.x - quad.topRight.x) * t, y: quad.topRight.y + (quad.bottomRight.y - quad.topRight.y) * t)
                for u in 0..<outWidth {
                    let s = (Double(u) + 0.5) / Double(outWidth)
                    let x = l.x + (r.x - l.x) * s - 0.5
                    let y = l.y + (r.y - l.y) * s - 0.5
                    let x0 = Int(x.rounded(.down))
                    let y0 = Int(y.rounded(.down))
                    let fx = x - Double(x0)
                    let fy = y - Double(y0)
                    func at(_ xx: Int, _ yy: Int) -> Double {
                        Double(p[min(max(yy, 0), self.height - 1) * stride + min(max(xx, 0), self.width - 1)])
                    }
                    let value = (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy
                    out[v * outWidth + u] = UInt8(max(0, min(255, value.rounded())))
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// Dark text on a light ground, stretched to the full range: the 2nd and 98th percentiles become
    /// 0 and 255, and a dark ground (light-on-dark text, a dark-mode screen) is inverted first.
    public func normalizedForReading() -> GrayImage {
        let histogram = LevelHistogram(self)
        let total = histogram.total
        func percentile(_ p: Double) -> Int { histogram.level(coveringAtLeast: p * Double(total)) }
        let low = percentile(0.02)
        let high = percentile(0.98)
        let median = percentile(0.5)
        // The ground is the majority: nearer the dark end means light text on a dark ground.
        let invert = median - low < high - median
        let span = Double(max(1, high - low))
        var out = [UInt8](repeating: 0, count: total)
        for y in 0..<height {
            for x in 0..<width {
                var value = (Double(Int(pixels[y * stride + x]) - low) / span * 255).rounded()
                value = max(0, min(255, value))
                out[y * width + x] = UInt8(invert ? 255 - value : value)
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }
}

/// How many pixels of an image are at each gray level: percentiles and counts without sorting.
public struct LevelHistogram: Sendable {
    public private(set) var counts = [Int](repeating: 0, count: 256)
    public let total: Int

    public init(_ image: GrayImage) {
        for y in 0..<image.height { for x in 0..<image.width { counts[Int(image.pixels[y * image.stride + x])] += 1 } }
        total = image.width * image.height
    }

    /// The lowest level that at least `count` pixels are at or below (255 when none is).
    public func level(coveringAtLeast count: Double) -> Int {
        var seen = 0
        for (level, n) in counts.enumerated() {
            seen += n
            if Double(seen) >= count { return level }
        }
        return 255
    }

    /// The level at `rank` (from 0) of all pixels' levels in ascending order.
    public func level(atRank rank: Int) -> Int { level(coveringAtLeast: Double(rank + 1)) }

    /// Pixels whose level satisfies `predicate`.
    public func count(where predicate: (Int) -> Bool) -> Int {
        counts.indices.reduce(0) { $0 + (predicate($1) ? counts[$1] : 0) }
    }
}
