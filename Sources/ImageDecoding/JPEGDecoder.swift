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
        return (Int(width), Int(height))
    }

    /// Decodes `data` to gray, reduced by the largest power of two that keeps the width at or above
    /// `targetWidth` (no reduction when nil).
    ///
    /// - Parameter strict: treat libjpeg warnings (truncated data, corrupt segments) as errors. Files
    ///   given by a person are decoded strictly; camera frames may tolerate a warning.
    public func decodeGray(
        _ data: UnsafeRawBufferPointer, targetWidth: Int? = nil, strict: Bool = true
    ) throws(ScannerError) -> DecodedImage {
        let (width, height) = try dimensions(of: data)
        let factor = Self.reduction(forWidth: width, targetWidth: targetWidth)
        let outWidth = Int(ctj_scaled(Int32(width), factor.num, factor.denom))
        let outHeight = Int(ctj_scaled(Int32(height), factor.num, factor.denom))
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight)
        let flags = TJFLAG_FASTDCT | (strict ? TJFLAG_STOPONWARNING : 0)
        let rc = pixels.withUnsafeMutableBufferPointer { out in
            tjDecompress2(
                handle, data.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(data.count),
                out.baseAddress, Int32(outWidth), Int32(outWidth), Int32(outHeight),
                Int32(TJPF_GRAY.rawValue), flags)
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
        return DecodedImage(
            image: GrayImage(width: outWidth, height: outHeight, pixels: pixels),
            sourceWidth: width, sourceHeight: height)
    }

    /// Decodes `data` to interleaved 8-bit RGB, at full size (for photos handed to clients, and as
    /// the naive baseline the benchmarks compare gray decoding against) or reduced as `decodeGray`
    /// reduces (a camera frame's colour where documents are looked for).
    public func decodeRGB(
        _ data: UnsafeRawBufferPointer, targetWidth: Int? = nil, strict: Bool = true
    ) throws(ScannerError) -> (width: Int, height: Int, rgb: [UInt8]) {
        let (fullWidth, fullHeight) = try dimensions(of: data)
        let factor = Self.reduction(forWidth: fullWidth, targetWidth: targetWidth)
        let width = Int(ctj_scaled(Int32(fullWidth), factor.num, factor.denom))
        let height = Int(ctj_scaled(Int32(fullHeight), factor.num, factor.denom))
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let flags = targetWidth == nil ? TJFLAG_STOPONWARNING : TJFLAG_FASTDCT | (strict ? TJFLAG_STOPONWARNING : 0)
        let rc = rgb.withUnsafeMutableBufferPointer { out in
            tjDecompress2(
                handle, data.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(data.count), out.baseAddress,
                Int32(width), Int32(width * 3), Int32(height), Int32(TJPF_RGB.rawValue), flags)
        }
        if rc != 0 {
            let isWarning = tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
            if strict || !isWarning {
                let message = lastError
                renew()
                throw .unreadableImage(path: "", reason: "JPEG decode failed: \(message)")
            }
        }
        return (width, height, rgb)
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
