import CLeptonica
import ScannerCore

/// Decodes PNG, PNM (PBM/PGM/PPM), TIFF, BMP and GIF to 8-bit gray with leptonica — the library
/// Tesseract already pulls in, so this costs no extra dependency.
enum LeptonicaDecoder {
    /// Leptonica prints its own errors to stderr; we report them ourselves, once, with the file name.
    private static let silenced: Void = { _ = setMsgSeverity(Int32(L_SEVERITY_NONE)) }()

    static func decodeGray(_ data: UnsafeRawBufferPointer) throws(ScannerError) -> DecodedImage {
        _ = silenced
        guard let base = data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count > 0 else {
            throw .unreadableImage(path: "", reason: "empty file")
        }
        guard let readPix = pixReadMem(base, data.count) else {
            throw .unreadableImage(path: "", reason: "not a readable image (truncated or unsupported format)")
        }
        var pix: UnsafeMutablePointer<PIX>? = readPix
        defer { pixDestroy(&pix) }
        // pixConvertTo8 handles every depth: 1/2/4-bit, colormapped, 16-bit, and RGB (→ luminance).
        guard let grayPix = pixConvertTo8(readPix, 0) else {
            throw .unreadableImage(path: "", reason: "cannot convert image of depth \(pixGetDepth(readPix)) to gray")
        }
        var gray: UnsafeMutablePointer<PIX>? = grayPix
        defer { pixDestroy(&gray) }
        let width = Int(pixGetWidth(grayPix)), height = Int(pixGetHeight(grayPix))
        let wpl = Int(pixGetWpl(grayPix))
        guard width > 0, height > 0, let words = pixGetData(grayPix) else {
            throw .unreadableImage(path: "", reason: "image has no pixels")
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                // Leptonica packs pixels big-endian inside 32-bit words; its accessor undoes that.
                let line = words.advanced(by: y * wpl)
                for x in 0..<width { out[y * width + x] = clept_get_byte(line, Int32(x)) }
            }
        }
        return DecodedImage(
            image: GrayImage(width: width, height: height, pixels: pixels), sourceWidth: width, sourceHeight: height)
    }
}
