/// An 8-bit RGB image, interleaved (red, green, blue), rows packed: what a person sees of a capture
/// or a straightened document (issue #53). Recognition works on `GrayImage`, the luma.
public struct ColorImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width × height × 3` bytes, row after row.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 3, "pixels must be width × height × 3 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The gray image of its luma (ITU-R BT.601, as JPEG's YCbCr and libjpeg's gray output weigh it).
    public var luma: GrayImage {
        var gray = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeBufferPointer { p in
            for i in 0..<(width * height) {
                let (r, g, b) = (Int(p[3 * i]), Int(p[3 * i + 1]), Int(p[3 * i + 2]))
                gray[i] = UInt8((19_595 * r + 38_470 * g + 7_471 * b + 32_768) >> 16)
            }
        }
        return GrayImage(width: width, height: height, pixels: gray)
    }

    /// Whether any pixel's channels differ by more than `tolerance`: a colour picture, not a gray one
    /// stored as RGB.
    public func hasColor(tolerance: Int = 8) -> Bool {
        pixels.withUnsafeBufferPointer { p in
            for i in 0..<(width * height) {
                let (r, g, b) = (Int(p[3 * i]), Int(p[3 * i + 1]), Int(p[3 * i + 2]))
                if max(r, g, b) - min(r, g, b) > tolerance { return true }
            }
            return false
        }
    }
}
