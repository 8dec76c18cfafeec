import Capture
import Foundation
import ImageDecoding
import ScannerCore
import TestSupport
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

    /// `capture` with `"document": true`: the tracked document's corners (normalized), the frame at
    /// full resolution straightened — a printed grid at a slant comes out straight and even; with no
    /// document tracked, the detector's on the frame; with none in view, a refusal.
    @Test func theDocumentComesOutStraightened() throws {
        let scene = SlantedGridPage()
        let frame = scene.render()
        let photo = Photo(jpeg: try JPEGEncoder().encode(frame, quality: 90), luma: nil, width: frame.width, height: frame.height)
        let c = scene.corners.map { Point(x: $0.x / Double(frame.width), y: $0.y / Double(frame.height)) }
        let tracked = Quad(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3])
        let elsewhere = Quad(x: 0.05, y: 0.05, width: 0.1, height: 0.1)
        for (name, quads) in [("tracked", [elsewhere, tracked]), ("found", [])] {
            let document = try PhotoRendering.document(of: photo, tracked: quads).get()
            let flat = try ImageDecoder().decode(document.jpeg).image
            #expect(flat.width == document.width && flat.height == document.height)
            for across in [true, false] {
                let measured = SlantedGridPage.grid(flat, across: across)
                #expect(
                    measured.straightness > 0.85 && measured.evenness < 1.2 && measured.lines >= (across ? 12 : 8),
                    "\(name), across \(across): \(measured)")
            }
        }
        let blank = Photo(jpeg: nil, luma: luma, width: 320, height: 240)
        guard case .failure(let refusal) = PhotoRendering.document(of: blank, tracked: []) else {
            Issue.record("a document was found on a blank frame")
            return
        }
        #expect(refusal.message == "no document in view")
    }

    /// Issue #53: from a colour camera frame (a pink card with a dark grid on a gray desk), the
    /// straightened document and the annotated capture come out in colour; the document at its own
    /// size in the frame (its longer sides), its grid straight.
    @Test func aColourFramesDocumentAndDrawingStayInColour() throws {
        let scene = SlantedGridPage()
        let frame = scene.renderColor(page: (240, 120, 120))
        let photo = Photo(jpeg: try JPEGEncoder().encode(frame, quality: 90), luma: nil, width: frame.width, height: frame.height)
        let c = scene.corners
        let tracked = Quad(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3]).map {
            Point(x: $0.x / Double(frame.width), y: $0.y / Double(frame.height))
        }
        for (name, quads) in [("tracked", [tracked]), ("found", [])] {
            let document = try PhotoRendering.document(of: photo, tracked: quads).get()
            let flat = try ImageDecoder().decodeColor(document.jpeg)
            #expect(flat.hasColor(tolerance: 40), "\(name): the document is gray")
            let own = scene.ownSize
            #expect(abs(Double(flat.width) - own.0) < 6 && abs(Double(flat.height) - own.1) < 6, "\(name): \(flat.width)x\(flat.height), \(own)")
            // The page's own colour, away from the grid lines: red well above green and blue.
            let middle = ((flat.height / 2 + 12) * flat.width + flat.width / 2 + 12) * 3
            #expect(flat.pixels[middle] > flat.pixels[middle + 1] &+ 60, "\(name): \(flat.pixels[middle..<(middle + 3)])")
            for across in [true, false] {
                let measured = SlantedGridPage.grid(flat.luma, across: across)
                #expect(measured.straightness > 0.85 && measured.evenness < 1.2, "\(name), across \(across): \(measured)")
            }
        }
        let drawn = try ImageDecoder().decodeColor(try PhotoRendering.jpeg(of: photo, annotating: [tracked]).get().jpeg)
        #expect(drawn.width == 640 && drawn.height == 480 && drawn.hasColor(tolerance: 40))
    }

    /// A YUYV frame shorter than its size says (a driver's bad buffer) is a refusal with its reason,
    /// for the frame and for the document alike.
    @Test func aShortYUYVFrameIsRefused() {
        let short = EncodedFrame(bytes: Data(count: 100), format: .yuyv, width: 320, height: 240, bytesPerLine: 640)
        let photo = Photo(jpeg: nil, luma: nil, yuyv: short, width: 320, height: 240)
        for result in [PhotoRendering.jpeg(of: photo, annotating: nil), PhotoRendering.document(of: photo, tracked: [])] {
            guard case .failure(let refusal) = result else {
                Issue.record("a photo was made of 100 bytes")
                continue
            }
            #expect(refusal.message.contains("too short for 320x240"), "\(refusal.message)")
        }
    }

    /// Issue #53: a red card on a gray desk of its luma (no edge in the luma where they meet), no
    /// document tracked: found by its chroma, it comes out red, at its own size in the frame, its
    /// grid straight and even — from an MJPEG camera's JPEG, and from a YUYV camera's frame.
    @Test(arguments: ["MJPEG", "YUYV"]) func aRedCardOnADeskOfItsLumaIsFoundAndComesOutInColour(camera: String) throws {
        let scene = SlantedGridPage()
        let (page, desk) = SlantedGridPage.redOnGrayOfItsLuma
        let frame = scene.renderColor(page: page, desk: desk, margin: 12.5)
        let yuyv = YUYVFrame.encode(frame)
        let photo =
            camera == "MJPEG"
            ? Photo(jpeg: try JPEGEncoder().encode(frame, quality: 90), luma: nil, width: frame.width, height: frame.height)
            : Photo(
                jpeg: nil, luma: nil,
                yuyv: EncodedFrame(bytes: Data(yuyv.bytes), format: .yuyv, width: frame.width, height: frame.height, bytesPerLine: yuyv.bytesPerLine),
                width: frame.width, height: frame.height)
        let document = try PhotoRendering.document(of: photo, tracked: []).get()
        let flat = try ImageDecoder().decodeColor(document.jpeg)
        let own = scene.ownSize
        #expect(abs(Double(flat.width) - own.0) < 6 && abs(Double(flat.height) - own.1) < 6, "\(flat.width)x\(flat.height), \(own)")
        let middle = ((flat.height / 2 + 12) * flat.width + flat.width / 2 + 12) * 3
        #expect(flat.pixels[middle] > flat.pixels[middle + 1] &+ 100, "\(flat.pixels[middle..<(middle + 3)])")
        for across in [true, false] {
            let measured = SlantedGridPage.grid(flat.luma, across: across)
            #expect(
                measured.straightness > 0.85 && measured.evenness < 1.2 && measured.lines >= (across ? 14 : 10), "across \(across): \(measured)")
        }
    }

    /// With no document tracked, the quadrilateral holding the items clients were told of is the
    /// document (`TextHolding`): a card with a picture printed on it gives the card, where the best
    /// edges alone give the picture (`CardWithPicture`).
    @Test func untrackedTheDocumentHoldsTheItems() throws {
        let frame = CardWithPicture.render(cardFixture: try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image)
        let photo = Photo(jpeg: try JPEGEncoder().encode(frame, quality: 92), luma: nil, width: frame.width, height: frame.height)
        let card = try PhotoRendering.document(of: photo, tracked: [], holding: CardWithPicture.lines).get()
        #expect(abs(card.width - CardWithPicture.card.width) < 25, "\(card.width)x\(card.height)")
        let edges = try PhotoRendering.document(of: photo, tracked: []).get()
        #expect(edges.width < 500, "by edges alone the picture: \(edges.width)x\(edges.height)")
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
