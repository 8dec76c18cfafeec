import CTurboJPEG
import Foundation
import ScannerCore

/// Encodes gray images as JPEG with libjpeg-turbo: photos for clients (capturePhoto), and clips made
/// at run time by the benchmarks. One encoder owns one `tjhandle`; use one per thread.
public final class JPEGEncoder {
    private let handle: tjhandle

    public init() throws(ScannerError) {
        guard let handle = tjInitCompress() else {
            throw .libraryFailure(library: "turbojpeg", reason: "tjInitCompress failed")
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// `image` as a baseline gray JPEG at `quality` (1…100).
    public func encode(_ image: GrayImage, quality: Int = 85) throws(ScannerError) -> Data {
        // Encode into a buffer we own, sized by turbojpeg's worst case, so it never reallocates.
        var capacity = tjBufSize(Int32(image.width), Int32(image.height), Int32(TJSAMP_GRAY.rawValue))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let rc = image.pixels.withUnsafeBufferPointer { pixels in
            output.withUnsafeMutableBufferPointer { out in
                var pointer: UnsafeMutablePointer<UInt8>? = out.baseAddress
                return tjCompress2(
                    handle, pixels.baseAddress, Int32(image.width), Int32(image.stride), Int32(image.height),
                    Int32(TJPF_GRAY.rawValue), &pointer, &capacity, Int32(TJSAMP_GRAY.rawValue),
                    Int32(min(max(quality, 1), 100)), TJFLAG_NOREALLOC)
            }
        }
        guard rc == 0 else {
            throw .libraryFailure(library: "turbojpeg", reason: String(cString: tjGetErrorStr2(handle)))
        }
        return Data(output.prefix(Int(capacity)))
    }
}
