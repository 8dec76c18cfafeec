extension GrayImage {
    /// Draws the closed polygon through `points` (pixel coordinates): a white line with a black edge,
    /// visible on light and dark backgrounds. For annotated photos.
    public mutating func strokePolygon(_ points: [Point], width: Int = 3) {
        guard points.count > 1 else { return }
        for (i, a) in points.enumerated() {
            let b = points[(i + 1) % points.count]
            line(from: a, to: b, radius: width, value: 0)
        }
        for (i, a) in points.enumerated() {
            let b = points[(i + 1) % points.count]
            line(from: a, to: b, radius: max(1, width / 2), value: 255)
        }
    }

    private mutating func line(from a: Point, to b: Point, radius: Int, value: UInt8) {
        let steps = max(1, Int(max(abs(b.x - a.x), abs(b.y - a.y)).rounded(.up)))
        for s in 0...steps {
            let t = Double(s) / Double(steps)
            let cx = Int((a.x + (b.x - a.x) * t).rounded())
            let cy = Int((a.y + (b.y - a.y) * t).rounded())
            for dy in -radius / 2...radius / 2 {
                for dx in -radius / 2...radius / 2 {
                    let x = cx + dx
                    let y = cy + dy
                    if x >= 0 && x < width && y >= 0 && y < height { pixels[y * stride + x] = value }
                }
            }
        }
    }
}
