extension GrayImage {
    /// Outlines `points` (a closed polygon): a black line `width` px wide with a white one inside it,
    /// visible on light and dark ground alike.
    public mutating func strokePolygon(_ points: [Point], width: Int = 3) {
        let (w, h, stride) = (self.width, self.height, self.stride)
        Drawing.strokePolygon(points, width: width, inside: w, h) { x, y, inner in pixels[y * stride + x] = inner ? 255 : 0 }
    }
}

extension ColorImage {
    /// Outlines `points` (a closed polygon) as `GrayImage.strokePolygon` does, the inner line in
    /// `color` (red, green, blue).
    public mutating func strokePolygon(_ points: [Point], width: Int = 3, color: (UInt8, UInt8, UInt8) = (0, 220, 90)) {
        let w = self.width
        Drawing.strokePolygon(points, width: width, inside: w, height) { x, y, inner in
            let i = (y * w + x) * 3
            (pixels[i], pixels[i + 1], pixels[i + 2]) = inner ? color : (0, 0, 0)
        }
    }
}

/// Where a polygon's outline falls, for images of any pixel layout.
enum Drawing {
    /// Calls `plot` for each pixel of a `width`-wide dark outline of `points` inside a `width` ×
    /// `height` image, then (`inner` true) for each pixel of a line half as wide along it.
    static func strokePolygon(
        _ points: [Point], width: Int, inside imageWidth: Int, _ imageHeight: Int, plot: (Int, Int, Bool) -> Void
    ) {
        guard points.count > 1 else { return }
        for (radius, inner) in [(width, false), (max(1, width / 2), true)] {
            for (i, a) in points.enumerated() {
                let b = points[(i + 1) % points.count]
                let steps = max(1, Int(max(abs(b.x - a.x), abs(b.y - a.y)).rounded(.up)))
                for s in 0...steps {
                    let t = Double(s) / Double(steps)
                    let cx = Int((a.x + (b.x - a.x) * t).rounded())
                    let cy = Int((a.y + (b.y - a.y) * t).rounded())
                    for dy in -radius / 2...radius / 2 {
                        for dx in -radius / 2...radius / 2 {
                            let x = cx + dx
                            let y = cy + dy
                            if x >= 0 && x < imageWidth && y >= 0 && y < imageHeight { plot(x, y, inner) }
                        }
                    }
                }
            }
        }
    }
}
