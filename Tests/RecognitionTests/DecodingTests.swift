import Foundation
import ImageDecoding
import Recognition
import ScannerCore
import TestSupport
import TestTraits
import Testing

@Suite(.offThePool(minutes: 2)) struct DecodingTests {
    let decoder = try! ImageDecoder()

    /// The colour decode (documents, captures) checks the same limits before decoding, and refuses a
    /// damaged file; a colour JPEG and PNG come back in colour, a gray one with equal channels.
    @Test func colourDecodingIsBoundedAndKeepsColour() throws {
        for name in ["bomb.jpg", "bomb-65535.png", "bomb-20000-rgb.png", "truncated.tif"] {
            #expect(throws: ScannerError.self, "\(name)") { try decoder.decodeColor(try Fixtures.data("hostile/" + name)) }
        }
        let pink = ColorImage(width: 64, height: 48, pixels: (0..<(64 * 48)).flatMap { _ in [UInt8(240), 120, 120] })
        let decoded = try decoder.decodeColor(try JPEGEncoder().encode(pink, quality: 95))
        #expect(decoded.width == 64 && decoded.height == 48 && decoded.hasColor(tolerance: 80))
        let gray = try decoder.decodeColor(try Fixtures.data("qr.png"))
        let luma = try decoder.decode(try Fixtures.data("qr.png")).image
        #expect(!gray.hasColor(tolerance: 0) && gray.luma.pixels == luma.pixels)
    }

    /// CMYK JPEGs as print and scan workflows write them (issue #54): Adobe's (channels inverted, the
    /// APP14 marker saying so) and plain ones (the ink itself) decode in colour and to gray — the red
    /// patch red, the paper white, the QR code read — at full size and reduced (generate_cmyk.py).
    @Test(arguments: ["cmyk-adobe.jpg", "cmyk-plain.jpg"]) func cmykJPEGsDecode(name: String) throws {
        let data = try Fixtures.data(name)
        let color = try decoder.decodeColor(data)
        #expect(color.width == 500 && color.height == 360)
        func rgb(_ image: ColorImage, _ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(image.pixels[(y * image.width + x) * 3 + $0]) } }
        let patch = rgb(color, 430, 60)
        #expect(abs(patch[0] - 220) < 16 && patch[1] < 50 && patch[2] < 50, "\(name): the patch is \(patch)")
        #expect(rgb(color, 490, 350).allSatisfy { $0 > 235 }, "\(name): the paper is \(rgb(color, 490, 350))")
        let gray = try decoder.decode(data).image
        #expect(abs(Int(gray[430, 60]) - Int(color.luma[430, 60])) <= 2 && gray[490, 350] > 235, "\(name)")
        let reduced = try decoder.decode(data, targetWidth: 250)
        #expect(reduced.image.width == 250 && reduced.sourceWidth == 500)
        let scanner = try ImageScanner(options: ScanOptions(types: RecognitionTypes(symbologies: [.qr], contentTypes: [])))
        #expect(scanner.scan(gray).map(\.payload) == ["https://example.com/scannerd"], "\(name)")
        // Cut anywhere (inside a marker's length, inside the Adobe marker, in the scan): an error.
        for cut in [3, 5, 20, 30, 200, data.count / 2] {
            #expect(throws: ScannerError.self, "\(name) cut at \(cut)") { try decoder.decode(data.prefix(cut)) }
            #expect(throws: ScannerError.self, "\(name) cut at \(cut)") { try decoder.decodeColor(data.prefix(cut)) }
        }
    }

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

@Suite(.offThePool(minutes: 2)) struct EncodingTests {
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

/// Images that claim more than they hold, or are no image at all (issue #11, docs/security.md):
/// refused from the header, before anything is decoded.
@Suite(.offThePool(minutes: 2)) struct ImageLimitsTests {
    @Test(arguments: [
        ("bomb-65535.png", "65535×65535"), ("bomb-20000-rgb.png", "20000×20000"), ("bomb.pgm", "60000×60000"),
        ("bomb.tif", "40000×40000"), ("bomb.gif", "65535×65535"), ("bomb.jpg", "65500×65500"), ("bomb.webp", "16384×16384"),
    ])
    func aDeclaredSizePastTheLimitIsRefusedBeforeDecoding(name: String, size: String) throws {
        let path = Fixtures.path("hostile/" + name)
        #expect(throws: ScannerError.unreadableImage(path: path, reason: "image too large (\(size); at most 50 megapixels)")) {
            try ImageDecoder().decodeFile(atPath: path)
        }
    }

    @Test func headersThatDoNotReadAreRefused() throws {
        for name in ["bomb.bmp", "truncated.tif"] {
            #expect(throws: ScannerError.self, "\(name)") { try ImageDecoder().decodeFile(atPath: Fixtures.path("hostile/" + name)) }
        }
    }

    @Test func theLimitsAreTheCallers() throws {
        let small = ImageLimits(maximumPixels: 100 * 100, maximumBytes: 1 << 20)
        let qr = Fixtures.path("qr.png")
        #expect(throws: ScannerError.self) { try ImageDecoder(limits: small).decodeFile(atPath: qr) }
        #expect(try ImageDecoder().decodeFile(atPath: qr).image.width > 100)
        let tiny = ImageLimits(maximumPixels: 50_000_000, maximumBytes: 100)
        #expect(
            throws: ScannerError.unreadableImage(
                path: qr, reason: "file too large (\(try Data(contentsOf: URL(fileURLWithPath: qr)).count) bytes; at most 0 MiB)")
        ) {
            try ImageDecoder(limits: tiny).decodeFile(atPath: qr)
        }
    }

    @Test func onlyRegularFilesAreRead() throws {
        let fifo = NSTemporaryDirectory() + "scannerd-\(UUID().uuidString).fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        for (path, reason) in [
            (fifo, "not a regular file"), ("/dev/zero", "not a regular file"), (NSTemporaryDirectory(), "is a directory"),
            ("/no/such.png", "no such file"),
        ] {
            #expect(throws: ScannerError.unreadableImage(path: path, reason: reason)) { try ImageDecoder().decodeFile(atPath: path) }
        }
    }

    @Test func oneGarbageJPEGDoesNotSpoilTheDecoderForTheNext() throws {
        // libjpeg-turbo 2.1 leaves a handle unusable after a header it cannot read.
        var garbage = Data([0xFF, 0xD8])
        var generator = SystemRandomNumberGenerator()
        garbage += Data((0..<4000).map { _ in UInt8.random(in: 0...255, using: &generator) }) + Data([0xFF, 0xD9])
        let good = try Fixtures.data("empty.jpg")
        let decoder = try ImageDecoder()
        #expect(throws: ScannerError.self) { try decoder.decode(garbage) }
        #expect(try decoder.decode(good).image.width > 0)
        let frames = try FrameDecoder()
        _ = try garbage.withUnsafeBytes { raw in
            #expect(throws: ScannerError.self) { try frames.decode(raw, format: .mjpeg, width: 640, height: 480, bytesPerLine: 0, targetWidth: nil) }
        }
        let size = try decoder.decode(good)
        try good.withUnsafeBytes { raw in
            let image = try frames.decode(raw, format: .mjpeg, width: size.sourceWidth, height: size.sourceHeight, bytesPerLine: 0, targetWidth: nil)
            #expect(image.image.width == size.sourceWidth)
        }
    }

    /// A YUYV camera's frame in colour (issue #53: its captures are in colour): BT.601 at video range,
    /// each pixel its own Y and its pair's U and V, rows padded as a driver pads them; reduced as its
    /// luma is. A GREY frame has none; a short frame is refused.
    @Test func aYUYVFrameDecodesInColour() throws {
        let (width, height) = (64, 32)
        let red = [220, 40, 40]
        let gray = [128, 128, 128]
        let scene = ColorImage(
            width: width, height: height, pixels: (0..<(width * height)).flatMap { ($0 % width < width / 2 ? red : gray).map(UInt8.init) })
        let (bytes, bytesPerLine) = YUYVFrame.encode(scene, bytesPerLine: width * 2 + 16)
        let frames = try FrameDecoder()
        try bytes.withUnsafeBytes { raw in
            for target in [nil, 32] {
                let color = try #require(
                    try frames.decodeColor(raw, format: .yuyv, width: width, height: height, bytesPerLine: bytesPerLine, targetWidth: target))
                let scale = target == nil ? 1 : 2
                #expect(color.width == width / scale && color.height == height / scale)
                for (x, expected) in [(4, red), (width - 6, gray)] {
                    let o = ((color.height / 2) * color.width + x / scale) * 3
                    let got = (0..<3).map { Int(color.pixels[o + $0]) }
                    #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 4 }, "target \(String(describing: target)), x \(x): \(got)")
                }
            }
            #expect(try frames.decodeColor(raw, format: .grey, width: width, height: height, bytesPerLine: bytesPerLine, targetWidth: nil) == nil)
            #expect(throws: ScannerError.self) {
                try frames.decodeColor(raw, format: .yuyv, width: width, height: height + 1, bytesPerLine: bytesPerLine, targetWidth: nil)
            }
        }
    }

    @Test func aCameraFrameOfAnotherSizeIsRefused() throws {
        // A frame may declare any size: only the one the camera was set to is decoded.
        let bomb = try Fixtures.data("hostile/bomb.jpg")
        _ = try bomb.withUnsafeBytes { raw in
            #expect(throws: ScannerError.unreadableImage(path: "", reason: "frame is 65500x65500, the camera was set to 640x480")) {
                try FrameDecoder().decode(raw, format: .mjpeg, width: 640, height: 480, bytesPerLine: 0, targetWidth: 640)
            }
        }
    }
}
