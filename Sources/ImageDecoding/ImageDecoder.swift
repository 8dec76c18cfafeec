import Foundation
import ScannerCore

/// Turns an encoded image (file or memory) into a `DecodedImage`: JPEG through libjpeg-turbo with
/// DCT scaling, everything else through leptonica.
///
/// Not thread-safe (it owns a turbojpeg handle): use one per thread.
public final class ImageDecoder {
    private let jpeg: JPEGDecoder
    public let limits: ImageLimits

    public init(limits: ImageLimits = .default) throws(ScannerError) {
        jpeg = try JPEGDecoder()
        self.limits = limits
    }

    /// Decodes `data`. `targetWidth` lets JPEG decoding reduce by 1/2, 1/4 or 1/8 while staying at least
    /// that wide; other formats are decoded at full size. The size the header declares is checked
    /// against `limits` before anything is decoded.
    public func decode(_ data: Data, targetWidth: Int? = nil) throws(ScannerError) -> DecodedImage {
        try decoded(data) { raw throws(ScannerError) in
            try jpeg.decodeGray(raw, targetWidth: targetWidth, strict: true)
        } other: { raw, limits throws(ScannerError) in
            try LeptonicaDecoder.decodeGray(raw, limits: limits)
        }
    }

    /// Decodes `data` in colour at full size (a photo of a person's, a straightened document):
    /// JPEG through libjpeg-turbo, the rest through leptonica; a gray image comes back with its three
    /// channels equal. The same limits, checked before decoding.
    public func decodeColor(_ data: Data) throws(ScannerError) -> ColorImage {
        try decoded(data) { raw throws(ScannerError) in
            let decoded = try jpeg.decodeRGB(raw)
            return ColorImage(width: decoded.width, height: decoded.height, pixels: decoded.rgb)
        } other: { raw, limits throws(ScannerError) in
            try LeptonicaDecoder.decodeColor(raw, limits: limits)
        }
    }

    /// `data` through `jpeg` (a JPEG whose header declares a size within the limits) or `other`
    /// (every other format, given the limits to check), once its byte count is within them.
    private func decoded<T>(
        _ data: Data, jpeg decodeJPEG: (UnsafeRawBufferPointer) throws(ScannerError) -> T,
        other decodeOther: (UnsafeRawBufferPointer, ImageLimits) throws(ScannerError) -> T
    ) throws(ScannerError) -> T {
        guard !data.isEmpty else { throw .unreadableImage(path: "", reason: "empty file") }
        guard data.count <= limits.maximumBytes else {
            throw .unreadableImage(path: "", reason: "file too large (\(data.count) bytes; at most \(limits.maximumBytes >> 20) MiB)")
        }
        let format = ImageFormat(sniffing: data)
        let limits = self.limits
        // Foundation's `Data.withUnsafeBytes` only rethrows untyped errors (the standard library's
        // `withUnsafeBytes(of:)` carries typed ones), so the error travels back as a `Result`.
        let result: Result<T, ScannerError> = data.withUnsafeBytes { raw in
            do throws(ScannerError) {
                switch format {
                case .jpeg:
                    let (width, height) = try jpeg.dimensions(of: raw)
                    if let problem = limits.problem(width: width, height: height) { throw .unreadableImage(path: "", reason: problem) }
                    return .success(try decodeJPEG(raw))
                case .png, .pnm, .other:
                    return .success(try decodeOther(raw, limits))
                }
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads and decodes the file at `path` in colour (`decodeColor`); errors name the file.
    public func decodeColorFile(atRawPath path: [UInt8]) throws(ScannerError) -> ColorImage {
        let data = try ImageFile.read(rawPath: path, limits: limits)
        do {
            return try decodeColor(data)
        } catch .unreadableImage(_, let reason) {
            throw .unreadableImage(path: String(decoding: path, as: UTF8.self), reason: reason)
        } catch {
            throw error
        }
    }

    /// Reads and decodes the file at `path`; errors name the file.
    public func decodeFile(atPath path: String, targetWidth: Int? = nil) throws(ScannerError) -> DecodedImage {
        try decodeFile(atRawPath: Array(path.utf8), targetWidth: targetWidth)
    }

    /// The same for a path given as bytes (a file name need not be UTF-8); errors name the file as
    /// well as text can show it.
    public func decodeFile(atRawPath path: [UInt8], targetWidth: Int? = nil) throws(ScannerError) -> DecodedImage {
        try decodeFileKeepingBytes(atRawPath: path, targetWidth: targetWidth).image
    }

    /// The same, with the file's bytes (a replay keeps them to decode the frame again at full size).
    public func decodeFileKeepingBytes(atRawPath path: [UInt8], targetWidth: Int? = nil) throws(ScannerError) -> (image: DecodedImage, bytes: Data) {
        let data = try ImageFile.read(rawPath: path, limits: limits)
        do {
            return (try decode(data, targetWidth: targetWidth), data)
        } catch .unreadableImage(_, let reason) {
            throw .unreadableImage(path: String(decoding: path, as: UTF8.self), reason: reason)
        } catch {
            throw error
        }
    }
}
