import CTurboJPEG
import Foundation
import ScannerCore

/// Encodes gray and colour images as JPEG with libjpeg-turbo: photos for clients (capturePhoto), and clips made
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
        try encode(
            image.pixels, width: image.width, height: image.height, rowLength: image.stride, format: TJPF_GRAY, sampling: TJSAMP_GRAY,
            quality: quality)
    }

    /// `image` as a baseline colour JPEG at `quality`, its chroma at full resolution (4:4:4): a
    /// straightened document's coloured print (a red logo, a stamp) stays as sharp as its black.
    public func encode(_ image: ColorImage, quality: Int = 85) throws(ScannerError) -> Data {
        try encode(
            image.pixels, width: image.width, height: image.height, rowLength: image.width * 3, format: TJPF_RGB, sampling: TJSAMP_444,
            quality: quality)
    }

    private func encode(
        _ pixels: [UInt8], width: Int, height: Int, rowLength: Int, format: TJPF, sampling: TJSAMP, quality: Int
    ) throws(ScannerError) -> Data {
        // Encode into a buffer we own, sized by turbojpeg's worst case, so it never reallocates.
        var capacity = tjBufSize(Int32(width), Int32(height), Int32(sampling.rawValue))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let rc = pixels.withUnsafeBufferPointer { pixels in
            output.withUnsafeMutableBufferPointer { out in
                var pointer: UnsafeMutablePointer<UInt8>? = out.baseAddress
                return tjCompress2(
                    handle, pixels.baseAddress, Int32(width), Int32(rowLength), Int32(height),
                    Int32(format.rawValue), &pointer, &capacity, Int32(sampling.rawValue),
                    Int32(min(max(quality, 1), 100)), TJFLAG_NOREALLOC)
            }
        }
        guard rc == 0 else {
            throw .libraryFailure(library: "turbojpeg", reason: String(cString: tjGetErrorStr2(handle)))
        }
        return Data(output.prefix(Int(capacity)))
    }
}
