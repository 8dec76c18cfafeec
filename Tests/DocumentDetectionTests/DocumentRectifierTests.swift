import Foundation
import ScannerCore
import Testing

@testable import DocumentDetection

/// Issue #43: the captured document is rectified — a printed grid photographed at a slant comes out
/// with its lines straight across and down, evenly spaced, whether the corners are the true ones or
/// the detector's.
@Suite struct DocumentRectifierTests {
    /// A 400×300 page with a grid line (2 units wide) every 25 units, seen by a pinhole camera
    /// (focal length 700, 640×480) with the page turned 35° about its vertical axis and 20° about its
    /// horizontal one, 900 units away: rendered by casting each pixel's ray onto the page's plane
    /// (no homography involved), white page on a darker desk.
    struct Scene {
        static let pageWidth = 400.0
        static let pageHeight = 300.0
        static let spacing = 25.0
        let f = 700.0
        let cx = 320.0
        let cy = 240.0
        let rotation: [[Double]]
        let translation = [0.0, 0.0, 900.0]

        init(yaw: Double = 35, pitch: Double = 20) {
            let (a, b) = (yaw * .pi / 180, pitch * .pi / 180)
            let ry = [[cos(a), 0, sin(a)], [0, 1, 0], [-sin(a), 0, cos(a)]]
            let rx = [[1, 0, 0], [0, cos(b), -sin(b)], [0, sin(b), cos(b)]]
            rotation = (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + ry[i][$1] * rx[$1][j] } } }
        }

        /// The page point (X, Y), centred, to the image.
        func project(_ x: Double, _ y: Double) -> Point {
            let p = (0..<3).map { rotation[$0][0] * x + rotation[$0][1] * y + translation[$0] }
            return Point(x: cx + f * p[0] / p[2], y: cy + f * p[1] / p[2])
        }

        var corners: [Point] {
            let (w, h) = (Self.pageWidth / 2, Self.pageHeight / 2)
            return [project(-w, -h), project(w, -h), project(w, h), project(-w, h)]
        }

        func render() -> GrayImage {
            var image = GrayImage(width: 640, height: 480, filledWith: 90)
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
                    let onLine = { (v: Double) in v.truncatingRemainder(dividingBy: Self.spacing) < 2 }
                    image.pixels[py * 640 + px] = onLine(x) || onLine(y) ? 20 : 235
                }
            }
            return image
        }
    }

    /// How straight and even the grid is in `image`: for the columns (or rows), each dark band's
    /// share of its darkness within two pixels of its peak (1 for a line straight down) and the
    /// spacing of the peaks (largest over smallest).
    static func grid(_ image: GrayImage, across: Bool) -> (straightness: Double, evenness: Double, lines: Int) {
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

    @Test func aGridAtASlantComesOutStraightAndEven() throws {
        let scene = Scene()
        let photo = scene.render()
        // The photo itself is neither: its columns lean and crowd together (measured inside the page).
        let c = scene.corners
        let inside = PixelRect(
            x: Int(c.map(\.x).max()! * 0 + c[0].x + 40), y: Int(max(c[0].y, c[1].y) + 20), width: Int(c[1].x - c[0].x - 80),
            height: Int(min(c[3].y, c[2].y) - max(c[0].y, c[1].y) - 40))
        let slanted = Self.grid(photo.cropped(to: inside), across: true)
        #expect(slanted.straightness < 0.8 || slanted.evenness > 1.3, "the photo's own grid: \(slanted)")
        let flat = try #require(
            DocumentRectifier.rectify(photo, quad: Quad(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3])))
        for across in [true, false] {
            let measured = Self.grid(flat, across: across)
            #expect(measured.straightness > 0.9 && measured.evenness < 1.15, "across \(across): \(measured)")
            #expect(measured.lines >= (across ? 12 : 8), "across \(across): \(measured)")
        }
    }

    /// With the corners the detector finds, not the true ones, the grid is still straight and even.
    @Test func theDetectorsCornersRectifyItToo() throws {
        let scene = Scene(yaw: 25, pitch: 15)
        let photo = scene.render()
        let found = try #require(EdgeQuadDetector().documents(in: photo).first)
        let error = zip(found.quad.corners, scene.corners).map { $0.distance(to: $1) }.max() ?? .infinity
        #expect(error < 0.02 * 800, "corners off by \(error) px")
        let flat = try #require(DocumentRectifier.rectify(photo, quad: found.quad))
        for across in [true, false] {
            let measured = Self.grid(flat, across: across)
            #expect(measured.straightness > 0.85 && measured.evenness < 1.2, "across \(across): \(measured)")
        }
    }

    @Test func aDegenerateQuadIsRefused() {
        let image = GrayImage(width: 64, height: 64, filledWith: 128)
        let point = Point(x: 10, y: 10)
        #expect(DocumentRectifier.rectify(image, quad: Quad(topLeft: point, topRight: point, bottomRight: point, bottomLeft: point)) == nil)
        let flat = DocumentRectifier.rectify(image, quad: Quad(x: 0, y: 0, width: 6000, height: 30), maximumSide: 500)
        #expect(flat.map { max($0.width, $0.height) } == 500)
    }
}
