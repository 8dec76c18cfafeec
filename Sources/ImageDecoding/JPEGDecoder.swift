import CTurboJPEG
import ScannerCore

/// Decodes JPEG (and MJPEG frames) straight to 8-bit luma with libjpeg-turbo.
///
/// Asking turbojpeg for `TJPF_GRAY` from a YCbCr JPEG makes libjpeg skip the chroma IDCT and the
/// colour conversion entirely, so gray output is cheaper than RGB, not just smaller. DCT scaling
/// (1/2, 1/4, 1/8) happens inside the IDCT, so a 1280×720 frame scanned at 640×360 never pays for a
/// full-size decode.
///
/// One decoder owns one `tjhandle`; it is not thread-safe, use one per thread.
///
/// After a failed call the handle is replaced: in libjpeg-turbo 2.1 (Debian 12's 2.1.5) a
/// `tjDecompressHeader3` that fails leaves the decompressor in the middle of a header, and every
/// later call on that handle fails with the same error (measured: one garbage frame from a camera,
/// FF D8 … FF D9 with noise between, and no frame after it decoded again). 3.0 aborts the
/// decompressor itself; a fresh handle costs microseconds and is right with either.
public final class JPEGDecoder {
    private var handle: tjhandle

    /// The reductions we allow. turbojpeg offers others (e.g. 3/8), but only powers of two are
    /// cheap in the IDCT and keep pixel edges aligned.
    static let reductions: [(num: Int32, denom: Int32)] = [(1, 1), (1, 2), (1, 4), (1, 8)]

    public init() throws(ScannerError) {
        guard let handle = tjInitDecompress() else {
            throw .libraryFailure(library: "turbojpeg", reason: "tjInitDecompress failed")
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// The size of the image in `data` without decoding it.
    public func dimensions(of data: UnsafeRawBufferPointer) throws(ScannerError) -> (width: Int, height: Int) {
        let header = try header(of: data)
        return (header.width, header.height)
    }

    /// The size and whether the image is CMYK or YCCK (print workflows' JPEGs), from the header.
    func header(of data: UnsafeRawBufferPointer) throws(ScannerError) -> (width: Int, height: Int, cmyk: Bool) {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let rc = tjDecompressHeader3(
            handle, data.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(data.count),
            &width, &height, &subsampling, &colorspace)
        guard rc == 0, width > 0, height > 0 else {
            let message = lastError
            renew()
            throw .unreadableImage(path: "", reason: "not a readable JPEG (\(message))")
        }
        let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        return (Int(width), Int(height), cmyk)
    }

    /// Decodes `data` (its header already read: `width` × `height` at full size) to `pixelFormat`
    /// with `channels` bytes a pixel, reduced by `factor`. A warning is an error when `strict`.
    private func decompress(
        _ data: UnsafeRawBufferPointer, width: Int, height: Int, factor: (num: Int32, denom: Int32), pixelFormat: TJPF, channels: Int,
        fast: Bool, strict: Bool
    ) throws(ScannerError) -> (width: Int, height: Int, pixels: [UInt8]) {
        let outWidth = Int(ctj_scaled(Int32(width), factor.num, factor.denom))
        let outHeight = Int(ctj_scaled(Int32(height), factor.num, factor.denom))
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight * channels)
        let flags = (fast ? TJFLAG_FASTDCT : 0) | (strict ? TJFLAG_STOPONWARNING : 0)
        let rc = pixels.withUnsafeMutableBufferPointer { out in
            tjDecompress2(
                handle, data.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(data.count),
                out.baseAddress, Int32(outWidth), Int32(outWidth * channels), Int32(outHeight),
                Int32(pixelFormat.rawValue), flags)
        }
        if rc != 0 {
            // Without STOPONWARNING a warning still leaves a full (partly gray) image: keep it.
            let isWarning = tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
            if strict || !isWarning {
                let message = lastError
                renew()
                throw .unreadableImage(path: "", reason: "JPEG decode failed: \(message)")
            }
        }
        return (outWidth, outHeight, pixels)
    }

    /// Decodes `data` to gray, reduced by the largest power of two that keeps the width at or above
    /// `targetWidth` (no reduction when nil).
    ///
    /// - Parameter strict: treat libjpeg warnings (truncated data, corrupt segments) as errors. Files
    ///   given by a person are decoded strictly; camera frames may tolerate a warning.
    public func decodeGray(
        _ data: UnsafeRawBufferPointer, targetWidth: Int? = nil, strict: Bool = true
    ) throws(ScannerError) -> DecodedImage {
        let header = try header(of: data)
        let factor = Self.reduction(forWidth: header.width, targetWidth: targetWidth)
        let image: GrayImage
        if header.cmyk {
            let cmyk = try decompress(
                data, width: header.width, height: header.height, factor: factor, pixelFormat: TJPF_CMYK, channels: 4, fast: true,
                strict: strict)
            // Its luma as a YCbCr JPEG's gray decode gives it (BT.601: `ColorImage.luma`).
            let rgb = CMYKConversion.rgb(cmyk.pixels, inverted: CMYKConversion.hasAdobeMarker(data))
            image = ColorImage(width: cmyk.width, height: cmyk.height, pixels: rgb).luma
        } else {
            let gray = try decompress(
                data, width: header.width, height: header.height, factor: factor, pixelFormat: TJPF_GRAY, channels: 1, fast: true,
                strict: strict)
            image = GrayImage(width: gray.width, height: gray.height, pixels: gray.pixels)
        }
        return DecodedImage(image: image, sourceWidth: header.width, sourceHeight: header.height)
    }

    /// Decodes `data` to interleaved 8-bit RGB, at full size (for photos handed to clients, and as
    /// the naive baseline the benchmarks compare gray decoding against) or reduced as `decodeGray`
    /// reduces (a camera frame's colour where documents are looked for).
    public func decodeRGB(
        _ data: UnsafeRawBufferPointer, targetWidth: Int? = nil, strict: Bool = true
    ) throws(ScannerError) -> (width: Int, height: Int, rgb: [UInt8]) {
        let header = try header(of: data)
        let factor = Self.reduction(forWidth: header.width, targetWidth: targetWidth)
        let fast = targetWidth != nil
        if header.cmyk {
            let cmyk = try decompress(
                data, width: header.width, height: header.height, factor: factor, pixelFormat: TJPF_CMYK, channels: 4, fast: fast,
                strict: strict)
            return (cmyk.width, cmyk.height, CMYKConversion.rgb(cmyk.pixels, inverted: CMYKConversion.hasAdobeMarker(data)))
        }
        let rgb = try decompress(
            data, width: header.width, height: header.height, factor: factor, pixelFormat: TJPF_RGB, channels: 3, fast: fast, strict: strict)
        return (rgb.width, rgb.height, rgb.pixels)
    }

    /// The largest reduction whose output is still at least `targetWidth` wide.
    static func reduction(forWidth width: Int, targetWidth: Int?) -> (num: Int32, denom: Int32) {
        guard let targetWidth, targetWidth > 0 else { return (1, 1) }
        var chosen = reductions[0]
        for factor in reductions where Int(ctj_scaled(Int32(width), factor.num, factor.denom)) >= targetWidth {
            chosen = factor
        }
        return chosen
    }

    /// A fresh handle in place of one a failure may have left unusable (see the type's comment).
    private func renew() {
        guard let fresh = tjInitDecompress() else { return }
        tjDestroy(handle)
        handle = fresh
    }

    private var lastError: String {
        guard let message = tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: message)
    }
}
