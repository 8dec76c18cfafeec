import ScannerCore

/// Turns a raw camera frame (MJPEG, YUYV or GREY bytes) into the gray processing image.
///
/// - MJPEG: turbojpeg straight to gray with DCT scaling to the processing width, so a 1280×720 frame
///   scanned at 640×360 never pays for a full-size decode. Decoding is lenient: a camera frame with a
///   libjpeg warning (a corrupt segment) still yields an image.
/// - YUYV: the luma bytes, taking every n-th sample when the processing width asks for a reduction.
///   That copy is unavoidable (zbar and Tesseract read one byte per pixel), but it is a copy, not a
///   colour conversion; the colour (`decodeColor`) only where it is asked for (a document's edges,
///   a capture).
/// - GREY: the rows as they are (or decimated likewise).
///
/// Not thread-safe (owns a turbojpeg handle): one per thread.
public final class FrameDecoder {
    private let jpeg: JPEGDecoder

    public init() throws(ScannerError) {
        jpeg = try JPEGDecoder()
    }

    public func decode(
        _ bytes: UnsafeRawBufferPointer, format: PixelFormat, width: Int, height: Int, bytesPerLine: Int,
        targetWidth: Int?
    ) throws(ScannerError) -> DecodedImage {
        switch format {
        case .mjpeg:
            // The size the JPEG declares must be the size the camera was set to: a frame may claim
            // any size (65535×65535 in 20 bytes), and a camera does not change size on its own. Such
            // a frame is refused (counted as corrupt); a camera that really changed its size sends
            // nothing usable, times out, and is opened again with the size it now reports.
            let declared = try jpeg.dimensions(of: bytes)
            guard declared.width == width, declared.height == height else {
                throw .unreadableImage(path: "", reason: "frame is \(declared.width)x\(declared.height), the camera was set to \(width)x\(height)")
            }
            return try jpeg.decodeGray(bytes, targetWidth: targetWidth, strict: false)
        case .yuyv:
            return try Self.luma(
                bytes, width: width, height: height, bytesPerLine: max(bytesPerLine, width * 2), pixelStep: 2, targetWidth: targetWidth)
        case .grey:
            return try Self.luma(bytes, width: width, height: height, bytesPerLine: max(bytesPerLine, width), pixelStep: 1, targetWidth: targetWidth)
        }
    }

    /// A camera frame in colour, reduced as `decode` reduces it; nil for GREY (no colour).
    public func decodeColor(
        _ bytes: UnsafeRawBufferPointer, format: PixelFormat, width: Int, height: Int, bytesPerLine: Int = 0, targetWidth: Int?
    ) throws(ScannerError) -> ColorImage? {
        switch format {
        case .mjpeg:
            let declared = try jpeg.dimensions(of: bytes)
            guard declared.width == width, declared.height == height else {
                throw .unreadableImage(path: "", reason: "frame is \(declared.width)x\(declared.height), the camera was set to \(width)x\(height)")
            }
            let decoded = try jpeg.decodeRGB(bytes, targetWidth: targetWidth, strict: false)
            return ColorImage(width: decoded.width, height: decoded.height, pixels: decoded.rgb)
        case .yuyv:
            return try Self.color(yuyv: bytes, width: width, height: height, bytesPerLine: max(bytesPerLine, width * 2), targetWidth: targetWidth)
        case .grey:
            return nil
        }
    }

    /// A YUYV frame (`Y0 U Y1 V` for each two pixels, ITU-R BT.601 at video range, V4L2's default for
    /// the format) as RGB, decimated as `luma` decimates: each pixel its own Y and its pair's U and V.
    static func color(
        yuyv bytes: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerLine: Int, targetWidth: Int?
    ) throws(ScannerError) -> ColorImage {
        guard width > 1, height > 0, bytes.count >= (height - 1) * bytesPerLine + width * 2 else {
            throw .unreadableImage(path: "", reason: "frame of \(bytes.count) bytes is too short for \(width)x\(height)")
        }
        let factor = reduction(width: width, targetWidth: targetWidth)
        let outWidth = width / factor
        let outHeight = height / factor
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight * 3)
        pixels.withUnsafeMutableBufferPointer { out in
            func clamped(_ value: Int) -> UInt8 { UInt8(max(0, min(255, value >> 8))) }
            for y in 0..<outHeight {
                let row = y * factor * bytesPerLine
                for x in 0..<outWidth {
                    let column = x * factor
                    let pair = row + (column / 2) * 4
                    let c = 298 * (Int(bytes[row + column * 2]) - 16) + 128
                    let d = Int(bytes[pair + 1]) - 128
                    let e = Int(bytes[pair + 3]) - 128
                    let o = (y * outWidth + x) * 3
                    out[o] = clamped(c + 409 * e)
                    out[o + 1] = clamped(c - 100 * d - 208 * e)
                    out[o + 2] = clamped(c + 516 * d)
                }
            }
        }
        return ColorImage(width: outWidth, height: outHeight, pixels: pixels)
    }

    /// The decimation of a raw frame `width` wide for `targetWidth`: a power of two chosen like the
    /// JPEG reduction (the largest, at most 8, that keeps at least `targetWidth`); 1 without a target.
    static func reduction(width: Int, targetWidth: Int?) -> Int {
        var factor = 1
        if let targetWidth, targetWidth > 0 {
            while factor < 8 && width / (factor * 2) >= targetWidth { factor *= 2 }
        }
        return factor
    }

    /// Every `factor`-th luma sample of every `factor`-th row, `factor` a power of two chosen like the
    /// JPEG reduction (largest that keeps at least `targetWidth`).
    static func luma(
        _ bytes: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerLine: Int, pixelStep: Int, targetWidth: Int?
    ) throws(ScannerError) -> DecodedImage {
        guard width > 0, height > 0, bytes.count >= (height - 1) * bytesPerLine + width * pixelStep else {
            throw .unreadableImage(path: "", reason: "frame of \(bytes.count) bytes is too short for \(width)x\(height)")
        }
        let factor = reduction(width: width, targetWidth: targetWidth)
        let outWidth = width / factor
        let outHeight = height / factor
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight)
        pixels.withUnsafeMutableBufferPointer { out in
            let step = pixelStep * factor
            for y in 0..<outHeight {
                let row = y * factor * bytesPerLine
                var source = row
                for x in 0..<outWidth {
                    out[y * outWidth + x] = bytes[source]
                    source += step
                }
            }
        }
        return DecodedImage(image: GrayImage(width: outWidth, height: outHeight, pixels: pixels), sourceWidth: width, sourceHeight: height)
    }
}
