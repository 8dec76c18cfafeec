import Foundation
import ScannerCore

/// Turns an encoded image (file or memory) into a `DecodedImage`: JPEG through libjpeg-turbo with
/// DCT scaling, everything else through leptonica.
///
/// Not thread-safe (it owns a turbojpeg handle): use one per thread.
public final class ImageDecoder {
    private let jpeg: JPEGDecoder

    public init() throws(ScannerError) {
        jpeg = try JPEGDecoder()
    }

    /// Decodes `data`. `targetWidth` lets JPEG decoding reduce by 1/2, 1/4 or 1/8 while staying at least
    /// that wide; other formats are decoded at full size.
    public func decode(_ data: Data, targetWidth: Int? = nil) throws(ScannerError) -> DecodedImage {
        guard !data.isEmpty else { throw .unreadableImage(path: "", reason: "empty file") }
        let format = ImageFormat(sniffing: data)
        let result: Result<DecodedImage, ScannerError> = data.withUnsafeBytes { raw in
            do throws(ScannerError) {
                switch format {
                case .jpeg: return .success(try jpeg.decodeGray(raw, targetWidth: targetWidth, strict: true))
                case .png, .pnm, .other: return .success(try LeptonicaDecoder.decodeGray(raw))
                }
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads and decodes the file at `path`; errors name the file.
    public func decodeFile(atPath path: String, targetWidth: Int? = nil) throws(ScannerError) -> DecodedImage {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as CocoaError {
            throw .unreadableImage(path: path, reason: Self.describe(error))
        } catch {
            throw .unreadableImage(path: path, reason: "\(error)")
        }
        do {
            return try decode(data, targetWidth: targetWidth)
        } catch .unreadableImage(_, let reason) {
            throw .unreadableImage(path: path, reason: reason)
        } catch {
            throw error
        }
    }

    private static func describe(_ error: CocoaError) -> String {
        switch error.code {
        case .fileReadNoSuchFile: "no such file"
        case .fileReadNoPermission: "permission denied"
        default:
            if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
                underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code))
            {
                String(cString: strerror(code.rawValue))
            } else {
                error.localizedDescription
            }
        }
    }
}
