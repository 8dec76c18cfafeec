import CLeptonica
import ScannerCore

/// Decodes PNG, PNM (PBM/PGM/PPM), TIFF, BMP, GIF and WebP to 8-bit gray with leptonica — the library
/// Tesseract already pulls in, so this costs no extra dependency.
enum LeptonicaDecoder {
    /// Leptonica's and libtiff's messages are taken, not printed (CLeptonica/shim.h): we report one
    /// line per file ourselves, with the file name.
    private static let quiet: Void = {
        _ = setMsgSeverity(Int32(L_SEVERITY_NONE))
        clept_take_library_messages()
    }()

    static func decodeGray(_ data: UnsafeRawBufferPointer, limits: ImageLimits = .default) throws(ScannerError) -> DecodedImage {
        try withPixels(data, limits: limits, as: "gray", converting: toGray) { width, height, row in
            var pixels = [UInt8](repeating: 0, count: width * height)
            pixels.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    // Leptonica packs pixels big-endian inside 32-bit words; its accessor undoes that.
                    let line = row(y)
                    for x in 0..<width { out[y * width + x] = clept_get_byte(line, Int32(x)) }
                }
            }
            return DecodedImage(
                image: GrayImage(width: width, height: height, pixels: pixels), sourceWidth: width, sourceHeight: height)
        }
    }

    /// The image in colour (RGB): every depth converted to 32 bits by leptonica, its alpha dropped.
    static func decodeColor(_ data: UnsafeRawBufferPointer, limits: ImageLimits = .default) throws(ScannerError) -> ColorImage {
        try withPixels(data, limits: limits, as: "colour", converting: toColor) { width, height, row in
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            pixels.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let line = row(y)
                    for x in 0..<width {
                        // A 32-bit pixel is one word: red in its top byte, then green and blue.
                        let word = line[x]
                        let i = (y * width + x) * 3
                        (out[i], out[i + 1], out[i + 2]) = (UInt8(word >> 24 & 0xFF), UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF))
                    }
                }
            }
            return ColorImage(width: width, height: height, pixels: pixels)
        }
    }

    /// pixConvertTo8 handles every depth: 1/2/4-bit, colormapped, 16-bit, and RGB (→ luminance).
    private static func toGray(_ pix: UnsafeMutablePointer<PIX>) -> UnsafeMutablePointer<PIX>? { pixConvertTo8(pix, 0) }

    private static func toColor(_ pix: UnsafeMutablePointer<PIX>) -> UnsafeMutablePointer<PIX>? { pixConvertTo32(pix) }

    /// `body` given the size and the rows (32-bit words) of the image leptonica reads from `data`,
    /// converted by `convert` (named `kind` in the error when it cannot be).
    private static func withPixels<T>(
        _ data: UnsafeRawBufferPointer, limits: ImageLimits, as kind: String,
        converting convert: (UnsafeMutablePointer<PIX>) -> UnsafeMutablePointer<PIX>?,
        _ body: (Int, Int, (Int) -> UnsafeMutablePointer<UInt32>) -> T
    ) throws(ScannerError) -> T {
        try withPix(data, limits: limits) { readPix throws(ScannerError) in
            guard let converted = convert(readPix) else {
                throw .unreadableImage(path: "", reason: "cannot convert image of depth \(pixGetDepth(readPix)) to \(kind)")
            }
            var pix: UnsafeMutablePointer<PIX>? = converted
            defer { pixDestroy(&pix) }
            let width = Int(pixGetWidth(converted))
            let height = Int(pixGetHeight(converted))
            let wpl = Int(pixGetWpl(converted))
            guard width > 0, height > 0, let words = pixGetData(converted) else {
                throw .unreadableImage(path: "", reason: "image has no pixels")
            }
            return body(width, height) { words.advanced(by: $0 * wpl) }
        }
    }

    /// `body` given the image leptonica reads from `data`, once its declared size passed `limits` and
    /// nothing was reported damaged while reading it.
    private static func withPix<T>(
        _ data: UnsafeRawBufferPointer, limits: ImageLimits, _ body: (UnsafeMutablePointer<PIX>) throws(ScannerError) -> T
    ) throws(ScannerError) -> T {
        _ = quiet
        guard let base = data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count > 0 else {
            throw .unreadableImage(path: "", reason: "empty file")
        }
        try checkDeclaredSize(base, count: data.count, limits: limits)
        clept_reset_errors()
        guard let readPix = pixReadMem(base, data.count) else {
            throw .unreadableImage(path: "", reason: "not a readable image (truncated, damaged or an unsupported format)")
        }
        var pix: UnsafeMutablePointer<PIX>? = readPix
        defer { pixDestroy(&pix) }
        // A truncated TIFF: Leptonica says "Bad file: amount too big" for each strip past the end (or
        // libtiff reports a damaged strip) and carries on, returning an image with rows missing. Such a
        // file is damaged, and saying nothing would hide it.
        if clept_error_count() > 0 {
            throw .unreadableImage(path: "", reason: "damaged image: \(String(cString: clept_first_error_text()))")
        }
        return try body(readPix)
    }

    /// Reads the size the header declares (without decoding) and refuses it past the limits. GIF is
    /// read here: Leptonica's header reader decodes a whole GIF to learn its size.
    static func checkDeclaredSize(_ base: UnsafePointer<UInt8>, count: Int, limits: ImageLimits) throws(ScannerError) {
        var width: Int32 = 0
        var height: Int32 = 0
        if count >= 10, base[0] == UInt8(ascii: "G"), base[1] == UInt8(ascii: "I"), base[2] == UInt8(ascii: "F") {
            // Logical screen width and height, little-endian, after "GIF87a"/"GIF89a". An image inside
            // may not be larger than its screen (giflib refuses it), so this bounds the whole file.
            width = Int32(base[6]) | Int32(base[7]) << 8
            height = Int32(base[8]) | Int32(base[9]) << 8
        } else {
            var format: Int32 = 0
            var bitsPerSample: Int32 = 0
            var samples: Int32 = 0
            var colormap: Int32 = 0
            guard pixReadHeaderMem(base, count, &format, &width, &height, &bitsPerSample, &samples, &colormap) == 0 else {
                throw .unreadableImage(path: "", reason: "not a readable image (truncated, damaged or an unsupported format)")
            }
        }
        if let problem = limits.problem(width: Int(width), height: Int(height)) { throw .unreadableImage(path: "", reason: problem) }
    }
}
