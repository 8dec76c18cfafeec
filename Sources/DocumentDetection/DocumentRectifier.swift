import ScannerCore

/// A document's picture as if photographed straight on (issue #43): the quadrilateral's perspective
/// taken out by the homography that maps it onto a rectangle, each pixel sampled bilinearly from the
/// image. The rectangle's sides are the quadrilateral's longer opposite sides (a page seen at a slant
/// keeps the resolution of its nearer edge), at most `maximumSide` pixels.
public enum DocumentRectifier {
    public static func rectify(_ image: GrayImage, quad: Quad, maximumSide: Int = 4096) -> GrayImage? {
        image.pixels.withUnsafeBufferPointer { p in
            rectified(quad, maximumSide: maximumSide, channels: 1) { point, _ in sample(p, image, point) }.map {
                GrayImage(width: $0.width, height: $0.height, pixels: $0.pixels)
            }
        }
    }

    /// The same in colour: each channel sampled as the gray image's one is.
    public static func rectify(_ image: ColorImage, quad: Quad, maximumSide: Int = 4096) -> ColorImage? {
        image.pixels.withUnsafeBufferPointer { p in
            rectified(quad, maximumSide: maximumSide, channels: 3) { point, channel in
                let value = bilinear(p, width: image.width, height: image.height, rowLength: image.width * 3, channels: 3, channel, point)
                return UInt8(max(0, min(255, value.rounded())))
            }.map { ColorImage(width: $0.width, height: $0.height, pixels: $0.pixels) }
        }
    }

    /// The rectangle's pixels, `channels` interleaved, each `sample`d at the point of the quadrilateral
    /// the homography maps it to; nil for a degenerate quadrilateral.
    static func rectified(
        _ quad: Quad, maximumSide: Int, channels: Int, sample: (Point, Int) -> UInt8
    ) -> (width: Int, height: Int, pixels: [UInt8])? {
        let c = quad.corners
        var width = max(c[0].distance(to: c[1]), c[3].distance(to: c[2]))
        var height = max(c[0].distance(to: c[3]), c[1].distance(to: c[2]))
        guard width >= 2, height >= 2, width.isFinite, height.isFinite else { return nil }
        let shrink = min(1, Double(maximumSide) / max(width, height))
        width = (width * shrink).rounded()
        height = (height * shrink).rounded()
        let w = Int(width)
        let h = Int(height)
        // From the output rectangle's corners to the quadrilateral's.
        let rectangle = [Point(x: 0, y: 0), Point(x: width - 1, y: 0), Point(x: width - 1, y: height - 1), Point(x: 0, y: height - 1)]
        guard let map = Homography(from: rectangle, to: c) else { return nil }
        var pixels = [UInt8](repeating: 0, count: w * h * channels)
        for y in 0..<h {
            for x in 0..<w {
                let source = map.apply(Point(x: Double(x), y: Double(y)))
                for channel in 0..<channels { pixels[(y * w + x) * channels + channel] = sample(source, channel) }
            }
        }
        return (w, h, pixels)
    }

    /// Bilinear, clamped to the image, rounded to a level.
    static func sample(_ p: UnsafeBufferPointer<UInt8>, _ image: GrayImage, _ point: Point) -> UInt8 {
        UInt8(max(0, min(255, bilinear(p, image, point).rounded())))
    }

    /// Bilinear, clamped to the image.
    static func bilinear(_ p: UnsafeBufferPointer<UInt8>, _ image: GrayImage, _ point: Point) -> Double {
        bilinear(p, width: image.width, height: image.height, rowLength: image.stride, channels: 1, 0, point)
    }

    /// Bilinear in `channel` of pixels `channels` bytes each, rows `rowLength` bytes apart; clamped to the image.
    static func bilinear(
        _ p: UnsafeBufferPointer<UInt8>, width: Int, height: Int, rowLength: Int, channels: Int, _ channel: Int, _ point: Point
    ) -> Double {
        let x = min(max(point.x, 0), Double(width - 1))
        let y = min(max(point.y, 0), Double(height - 1))
        let x0 = Int(x)
        let y0 = Int(y)
        let x1 = min(x0 + 1, width - 1)
        let y1 = min(y0 + 1, height - 1)
        let fx = x - Double(x0)
        let fy = y - Double(y0)
        func at(_ x: Int, _ y: Int) -> Double { Double(p[y * rowLength + x * channels + channel]) }
        return (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy
    }
}

/// The projective map taking four points onto four others (the direct linear transform, solved by
/// Gaussian elimination with partial pivoting).
struct Homography {
    /// Row-major 3×3, the last entry 1.
    var h: [Double]

    init?(from source: [Point], to target: [Point]) {
        guard source.count == 4, target.count == 4 else { return nil }
        var a = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
        for i in 0..<4 {
            let (x, y) = (source[i].x, source[i].y)
            let (u, v) = (target[i].x, target[i].y)
            a[2 * i] = [x, y, 1, 0, 0, 0, -u * x, -u * y, u]
            a[2 * i + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y, v]
        }
        for column in 0..<8 {
            guard let pivot = (column..<8).max(by: { abs(a[$0][column]) < abs(a[$1][column]) }), abs(a[pivot][column]) > 1e-12 else {
                return nil
            }
            a.swapAt(column, pivot)
            for row in 0..<8 where row != column {
                let factor = a[row][column] / a[column][column]
                if factor == 0 { continue }
                for k in column..<9 { a[row][k] -= factor * a[column][k] }
            }
        }
        h = (0..<8).map { a[$0][8] / a[$0][$0] } + [1]
    }

    func apply(_ p: Point) -> Point {
        let w = h[6] * p.x + h[7] * p.y + h[8]
        return Point(x: (h[0] * p.x + h[1] * p.y + h[2]) / w, y: (h[3] * p.x + h[4] * p.y + h[5]) / w)
    }
}
