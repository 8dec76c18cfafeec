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

    /// The two chroma planes (ITU-R BT.601, full range, as JPEG's Cb and Cr: 128 where a pixel is
    /// gray): where two colours of one luma meet — a red card on a gray desk — luma shows no edge and
    /// chroma does (issue #53).
    public var chroma: (blue: GrayImage, red: GrayImage) {
        var cb = [UInt8](repeating: 0, count: width * height)
        var cr = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeBufferPointer { p in
            for i in 0..<(width * height) {
                let (r, g, b) = (Int(p[3 * i]), Int(p[3 * i + 1]), Int(p[3 * i + 2]))
                // 65,536 × (−0.168736, −0.331264, 0.5) and (0.5, −0.418688, −0.081312), rounded, +128.
                cb[i] = UInt8(clamping: (-11_059 * r - 21_709 * g + 32_768 * b + 8_421_376) >> 16)
                cr[i] = UInt8(clamping: (32_768 * r - 27_439 * g - 5_329 * b + 8_421_376) >> 16)
            }
        }
        return (GrayImage(width: width, height: height, pixels: cb), GrayImage(width: width, height: height, pixels: cr))
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
