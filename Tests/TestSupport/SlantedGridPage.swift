import Foundation
import ScannerCore

/// A 400×300 page with a grid line (2 units wide) every 25 units, seen by a pinhole camera
/// (focal length 700, 640×480) with the page turned 35° about its vertical axis and 20° about its
/// horizontal one, 900 units away: rendered by casting each pixel's ray onto the page's plane
/// (no homography involved), white page on a darker desk.
public struct SlantedGridPage: Sendable {
    public static let pageWidth = 400.0
    public static let pageHeight = 300.0
    public static let spacing = 25.0
    public let f = 700.0
    public let cx = 320.0
    public let cy = 240.0
    public let rotation: [[Double]]
    public let translation = [0.0, 0.0, 900.0]

    public init(yaw: Double = 35, pitch: Double = 20) {
        let (a, b) = (yaw * .pi / 180, pitch * .pi / 180)
        let ry = [[cos(a), 0, sin(a)], [0, 1, 0], [-sin(a), 0, cos(a)]]
        let rx = [[1, 0, 0], [0, cos(b), -sin(b)], [0, sin(b), cos(b)]]
        rotation = (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + ry[i][$1] * rx[$1][j] } } }
    }

    /// The page point (X, Y), centred, to the image.
    public func project(_ x: Double, _ y: Double) -> Point {
        let p = (0..<3).map { rotation[$0][0] * x + rotation[$0][1] * y + translation[$0] }
        return Point(x: cx + f * p[0] / p[2], y: cy + f * p[1] / p[2])
    }

    /// The page's size in the image, px: its longer top or bottom side, its longer left or right side
    /// (what a straightened document is made as large as).
    public var ownSize: (width: Double, height: Double) {
        let c = corners
        return (max(c[0].distance(to: c[1]), c[3].distance(to: c[2])), max(c[0].distance(to: c[3]), c[1].distance(to: c[2])))
    }

    public var corners: [Point] {
        let (w, h) = (Self.pageWidth / 2, Self.pageHeight / 2)
        return [project(-w, -h), project(w, -h), project(w, h), project(-w, h)]
    }

    public func render() -> GrayImage {
        var image = GrayImage(width: 640, height: 480, filledWith: 90)
        paint { i, onLine in image.pixels[i] = onLine ? 20 : 235 }
        return image
    }

    /// The same scene in colour: the page `page` (red, green, blue) with its grid near black, on a
    /// desk of gray `desk`; grid lines only `margin` units or more inside the page's sides (with a
    /// margin, where the page meets the desk nothing is printed).
    public func renderColor(page: (UInt8, UInt8, UInt8), desk: UInt8 = 90, margin: Double = 0) -> ColorImage {
        var image = ColorImage(width: 640, height: 480, pixels: [UInt8](repeating: desk, count: 640 * 480 * 3))
        paint(margin: margin) { i, onLine in
            (image.pixels[3 * i], image.pixels[3 * i + 1], image.pixels[3 * i + 2]) = onLine ? (20, 20, 20) : page
        }
        return image
    }

    /// A red page on a gray desk of the same luma (BT.601): no edge in luma where they meet.
    public static let redOnGrayOfItsLuma: (page: (UInt8, UInt8, UInt8), desk: UInt8) = ((205, 40, 40), 89)

    /// Calls `body` with each pixel (index) the page covers and whether a grid line does.
    func paint(margin: Double = 0, _ body: (Int, Bool) -> Void) {
        let normal = (0..<3).map { rotation[$0][2] }
        let along = zip(normal, translation).reduce(0) { $0 + $1.0 * $1.1 }
        for py in 0..<480 {
            for px in 0..<640 {
                let ray = [(Double(px) - cx) / f, (Double(py) - cy) / f, 1]
                let t = along / zip(normal, ray).reduce(0) { $0 + $1.0 * $1.1 }
                let hit = ray.map { $0 * t }
                let d = zip(hit, translation).map { $0 - $1 }
                // Into the page's own coordinates (the rotation's transpose).
                let x = (0..<3).reduce(0) { $0 + rotation[$1][0] * d[$1] } + Self.pageWidth / 2
                let y = (0..<3).reduce(0) { $0 + rotation[$1][1] * d[$1] } + Self.pageHeight / 2
                guard x >= 0, y >= 0, x < Self.pageWidth, y < Self.pageHeight else { continue }
                let onLine = { (v: Double, extent: Double) in
                    v >= margin && v <= extent - margin && v.truncatingRemainder(dividingBy: Self.spacing) < 2
                }
                body(py * 640 + px, onLine(x, Self.pageWidth) || onLine(y, Self.pageHeight))
            }
        }
    }

    /// How straight and even the grid is in `image`: for the columns (or rows), each dark band's
    /// share of its darkness within two pixels of its peak (1 for a line straight down) and the
    /// spacing of the peaks (largest over smallest).
    public static func grid(_ image: GrayImage, across: Bool) -> (straightness: Double, evenness: Double, lines: Int) {
        let (length, breadth) = across ? (image.width, image.height) : (image.height, image.width)
        // Darkness per column (across) or per row, away from the edges.
        var darkness = [Double](repeating: 0, count: length)
        for i in 0..<length {
            var sum = 0.0
            for j in (breadth / 10)..<(breadth - breadth / 10) {
                let value: UInt8 = across ? image[i, j] : image[j, i]
                sum += Double(255 - Int(value))
            }
            darkness[i] = sum
        }
        // Above the baseline: the lines the other way darken every column alike.
        let baseline = darkness.sorted()[length / 2]
        let residual = darkness.map { max(0, $0 - baseline) }
        let strongest = residual.max() ?? 0
        var peaks: [Int] = []
        for i in 2..<(length - 2) where residual[i] > 0.3 * strongest && residual[i] == residual[(i - 2)...(i + 2)].max() {
            if let last = peaks.last, i - last < 5 { continue }
            peaks.append(i)
        }
        let inner = peaks.filter { $0 > 4 && $0 < length - 5 }
        var near = 0.0
        var band = 0.0
        for p in inner {
            near += residual[(p - 2)...(p + 2)].reduce(0, +)
            band += residual[max(0, p - 6)...min(length - 1, p + 6)].reduce(0, +)
        }
        let gaps: [Double] = zip(inner.dropFirst(), inner).map { Double($0.0 - $0.1) }
        let largest: Double = gaps.max() ?? 0
        let smallest: Double = max(1, gaps.min() ?? 1)
        return (band > 0 ? near / band : 0, largest / smallest, inner.count)
    }
}
