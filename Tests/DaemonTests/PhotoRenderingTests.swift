import Capture
import Foundation
import ImageDecoding
import ScannerCore
import TestTraits
import Testing

@testable import Daemon

/// docs/protocol.md "capture": the camera's own JPEG when nothing is drawn; otherwise the frame with
/// the items' bounds drawn, encoded here; a frame that cannot be read is said so.
@Suite(.offThePool(minutes: 2)) struct PhotoRenderingTests {
    let luma = GrayImage(width: 320, height: 240, filledWith: 128)

    @Test func theCamerasJPEGGoesOutUntouched() throws {
        let jpeg = Data([0xFF, 0xD8, 1, 2, 3, 0xFF, 0xD9])
        let photo = Photo(jpeg: jpeg, luma: nil, width: 1280, height: 720)
        let rendered = try PhotoRendering.jpeg(of: photo, annotating: nil).get()
        #expect(rendered.jpeg == jpeg && rendered.width == 1280 && rendered.height == 720)
    }

    @Test func itemsAreDrawnOnTheFrame() throws {
        let photo = Photo(jpeg: nil, luma: luma, width: 320, height: 240)
        let plain = try ImageDecoder().decode(try PhotoRendering.jpeg(of: photo, annotating: []).get().jpeg).image
        let quad = Quad(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        let drawn = try ImageDecoder().decode(try PhotoRendering.jpeg(of: photo, annotating: [quad]).get().jpeg).image
        #expect(drawn.width == 320 && drawn.height == 240)
        // On the quad's left edge (x = 80) the drawing shows; in the middle of it, the frame.
        #expect(abs(Int(drawn[80, 120]) - Int(plain[80, 120])) > 40, "\(drawn[80, 120]) vs \(plain[80, 120])")
        #expect(abs(Int(drawn[160, 120]) - Int(plain[160, 120])) < 8)
    }

    @Test func aFrameThatCannotBeReadIsSaidSo() {
        let photo = Photo(jpeg: Data([0xFF, 0xD8, 0, 0]), luma: nil, width: 1280, height: 720)
        guard case .failure(let refusal) = PhotoRendering.jpeg(of: photo, annotating: []) else {
            Issue.record("a broken frame was rendered")
            return
        }
        #expect(refusal.message.hasPrefix("cannot encode the photo"), "\(refusal.message)")
    }
}
