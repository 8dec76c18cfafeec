import Foundation
import ScannerCore
import TestSupport
import Testing

@testable import DocumentDetection

/// Issue #43: the captured document is rectified — a printed grid photographed at a slant comes out
/// with its lines straight across and down, evenly spaced, whether the corners are the true ones or
/// the detector's.
@Suite struct DocumentRectifierTests {
    /// The printed grid at a slant (TestSupport: the daemon's capture is measured on it too).
    typealias Scene = SlantedGridPage

    @Test func aGridAtASlantComesOutStraightAndEven() throws {
        let scene = Scene()
        let photo = scene.render()
        // The photo itself is neither: its columns lean and crowd together (measured inside the page).
        let c = scene.corners
        let inside = PixelRect(
            x: Int(c.map(\.x).max()! * 0 + c[0].x + 40), y: Int(max(c[0].y, c[1].y) + 20), width: Int(c[1].x - c[0].x - 80),
            height: Int(min(c[3].y, c[2].y) - max(c[0].y, c[1].y) - 40))
        let slanted = Scene.grid(photo.cropped(to: inside), across: true)
        #expect(slanted.straightness < 0.8 || slanted.evenness > 1.3, "the photo's own grid: \(slanted)")
        let flat = try #require(
            DocumentRectifier.rectify(photo, quad: Quad(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3])))
        for across in [true, false] {
            let measured = Scene.grid(flat, across: across)
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
            let measured = Scene.grid(flat, across: across)
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
