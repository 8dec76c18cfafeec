import Foundation
import ImageDecoding
import ScannerCore
import TestSupport
import Testing

@Suite struct DecodingTests {
    let decoder = try! ImageDecoder()

    @Test func jpegDecodesToGrayAtFullSize() throws {
        let decoded = try decoder.decodeFile(atPath: Fixtures.path("card-us.jpg"))
        #expect(decoded.image.width == 1280 && decoded.image.height == 720)
        #expect(decoded.sourceWidth == 1280 && decoded.scale == 1)
        #expect(decoded.image.pixels.count == 1280 * 720)
    }

    @Test(arguments: [
        (nil as Int?, 1280, 720), (1280, 1280, 720), (1000, 1280, 720), (640, 640, 360), (600, 640, 360),
        (320, 320, 180), (100, 160, 90),
    ])
    func dctScalingPicksTheSmallestReductionAtLeastTheTargetWidth(target: Int?, width: Int, height: Int) throws {
        let decoded = try decoder.decodeFile(atPath: Fixtures.path("card-us.jpg"), targetWidth: target)
        #expect(decoded.image.width == width && decoded.image.height == height)
        #expect(decoded.sourceWidth == 1280 && decoded.sourceHeight == 720)
    }

    @Test func scaledDecodeMatchesTheFullDecodeInBrightness() throws {
        let full = try decoder.decodeFile(atPath: Fixtures.path("card-us.jpg")).image
        let quarter = try decoder.decodeFile(atPath: Fixtures.path("card-us.jpg"), targetWidth: 320).image
        func mean(_ image: GrayImage) -> Double { Double(image.pixels.reduce(0) { $0 + Int($1) }) / Double(image.pixels.count) }
        #expect(abs(mean(full) - mean(quarter)) < 2)
        #expect(mean(full) > 200, "a light card with dark text")
    }

    @Test func pngAndPgmDecodeThroughLeptonica() throws {
        let png = try decoder.decodeFile(atPath: Fixtures.path("qr.png")).image
        #expect(png.width == 360 && png.height == 360)
        #expect(png[0, 0] == 255, "white quiet zone")
        #expect(png.pixels.contains(0), "black modules")
        let pgm = try decoder.decodeFile(atPath: Fixtures.path("qr.pgm")).image
        #expect(pgm.width == pgm.height && pgm.width > 100)
        #expect(pgm[0, 0] == 255)
    }

    @Test(arguments: [
        ("truncated.jpg", "Premature end of JPEG file"),
        ("garbage.jpg", "not a readable image"),
        ("not-an-image.txt", "not a readable image"),
        ("zero-bytes.png", "empty file"),
        ("no-such-file.jpg", "no such file"),
    ])
    func brokenFilesGiveAnErrorNamingTheFileAndTheReason(name: String, reason: String) {
        let path = Fixtures.path(name)
        #expect {
            try decoder.decodeFile(atPath: path)
        } throws: { error in
            guard case ScannerError.unreadableImage(let errorPath, let message) = error else { return false }
            return errorPath == path && message.contains(reason)
        }
    }

    @Test func formatIsSniffedFromTheBytesNotTheName() throws {
        #expect(ImageFormat(sniffing: try Fixtures.data("qr.png")) == .png)
        #expect(ImageFormat(sniffing: try Fixtures.data("card-us.jpg")) == .jpeg)
        #expect(ImageFormat(sniffing: try Fixtures.data("qr.pgm")) == .pnm)
        #expect(ImageFormat(sniffing: try Fixtures.data("garbage.jpg")) == .other)
    }
}

@Suite struct EncodingTests {
    @Test func grayJPEGRoundTrips() throws {
        let original = try ImageDecoder().decodeFile(atPath: Fixtures.path("qr.png")).image
        let jpeg = try JPEGEncoder().encode(original, quality: 90)
        #expect(ImageFormat(sniffing: jpeg) == .jpeg)
        let decoded = try ImageDecoder().decode(jpeg).image
        #expect(decoded.width == original.width && decoded.height == original.height)
        let error = zip(decoded.pixels, original.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / decoded.pixels.count
        #expect(error < 4, "mean error \(error)")
    }
}
