import Capture
import Foundation
import ImageDecoding
import ScannerCore
import TestSupport
import Testing

/// A frame keeps its bytes so that text can be read at full resolution (issue #13). Those bytes come
/// from a camera or a replayed file and are decoded a second time: a hostile frame must give no full
/// image (the reduced one is read instead), never a crash or an unbounded decode.
@Suite(.timeLimit(.minutes(1))) struct EncodedFrameTests {
    func reduced(_ encoded: EncodedFrame) -> Frame {
        let small = GrayImage(width: 640, height: 360, filledWith: 200)
        return Frame(index: 0, decoded: DecodedImage(image: small, sourceWidth: 1280, sourceHeight: 720), format: encoded.format, encoded: encoded)
    }

    @Test func aGoodFrameDecodesAtFullSize() throws {
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("bench-1280x720.jpg")))
        let frame = reduced(EncodedFrame(bytes: jpeg, format: .mjpeg, width: 1280, height: 720, bytesPerLine: 0))
        let full = try #require(frame.fullResolution())
        #expect(full.width == 1280 && full.height == 720)
    }

    /// The barcode and text threads are handed copies of the same frame: the first to ask decodes it,
    /// the other gets that image (the same pixel storage), not a decode of its own — asked one after
    /// the other, or at once from two threads.
    @Test func copiesOfAFrameShareOneDecode() async throws {
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("bench-1280x720.jpg")))
        func storage(_ image: GrayImage?) -> UnsafeRawPointer? { image?.pixels.withUnsafeBytes { $0.baseAddress } }
        let frame = reduced(EncodedFrame(bytes: jpeg, format: .mjpeg, width: 1280, height: 720, bytesPerLine: 0))
        let copy = frame
        let first = frame.fullResolution()
        #expect(storage(first) != nil && storage(copy.fullResolution()) == storage(first))
        let fresh = reduced(EncodedFrame(bytes: jpeg, format: .mjpeg, width: 1280, height: 720, bytesPerLine: 0))
        let (a, b) = (fresh, fresh)
        async let one = Task.detached { a.fullResolution() }.value
        async let two = Task.detached { b.fullResolution() }.value
        let (x, y) = await (one, two)
        #expect(x?.width == 1280 && storage(x) == storage(y))
    }

    /// The documents' edges look in colour too (issue #53): a reduced MJPEG frame (or a replayed
    /// JPEG) decodes in colour at the processing image's size, and so does a YUYV frame; GREY gives none.
    @Test func aReducedFramesColourIsAtTheProcessingSize() throws {
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("bench-1280x720.jpg")))
        for format in [PixelFormat.mjpeg, nil] {
            let color = try #require(reduced(EncodedFrame(bytes: jpeg, format: format, width: 1280, height: 720, bytesPerLine: 0)).color())
            #expect(color.width == 640 && color.height == 360, "\(String(describing: format))")
        }
        let yuyv = EncodedFrame(bytes: Data(count: 1280 * 720 * 2), format: .yuyv, width: 1280, height: 720, bytesPerLine: 2560)
        #expect(reduced(yuyv).color().map { [$0.width, $0.height] } == [640, 360])
        let grey = EncodedFrame(bytes: Data(count: 1280 * 720), format: .grey, width: 1280, height: 720, bytesPerLine: 1280)
        #expect(reduced(grey).color() == nil)
    }

    @Test(arguments: ["garbage", "truncated", "other size", "bomb"])
    func aHostileFrameGivesNoFullImage(kind: String) throws {
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("bench-1280x720.jpg")))
        let encoded: EncodedFrame
        switch kind {
        case "garbage":
            encoded = EncodedFrame(
                bytes: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }), format: .mjpeg, width: 1280, height: 720, bytesPerLine: 0)
        case "truncated":
            encoded = EncodedFrame(bytes: jpeg.prefix(200), format: .mjpeg, width: 1280, height: 720, bytesPerLine: 0)
        case "other size":
            // A camera frame must be the size the camera was set to.
            encoded = EncodedFrame(bytes: jpeg, format: .mjpeg, width: 640, height: 480, bytesPerLine: 0)
        default:
            // A replayed file declaring 65535×65535: refused from its header by the image limits.
            let bomb = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("hostile/bomb.jpg")))
            encoded = EncodedFrame(bytes: bomb, format: nil, width: 1280, height: 720, bytesPerLine: 0)
        }
        #expect(reduced(encoded).fullResolution() == nil, "\(kind)")
        #expect(reduced(encoded).color() == nil, "\(kind)")
    }
}
