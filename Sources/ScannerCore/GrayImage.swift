/// An 8-bit luma image: the one currency every recognizer takes.
///
/// Rows are `stride` bytes apart (`stride >= width`), so a decoder can hand over its own row layout
/// without repacking. Pixel (x, y) is `pixels[y * stride + x]`, origin top-left.
public struct GrayImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let stride: Int
    public var pixels: [UInt8]

    /// Creates an image over `pixels`; the buffer must hold `height` rows of `stride` bytes
    /// (the last row may be just `width` long).
    public init(width: Int, height: Int, stride: Int? = nil, pixels: [UInt8]) {
        let stride = stride ?? width
        precondition(width > 0 && height > 0, "GrayImage needs a positive size")
        precondition(stride >= width, "stride \(stride) is shorter than width \(width)")
        precondition(pixels.count >= (height - 1) * stride + width, "pixel buffer too small for \(width)x\(height)")
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = pixels
    }

    /// A uniform image (tests, padding).
    public init(width: Int, height: Int, filledWith value: UInt8) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: value, count: width * height))
    }

    public subscript(x: Int, y: Int) -> UInt8 {
        pixels[y * stride + x]
    }

    /// True when rows follow each other with no padding (what zbar's Y800 input requires).
    public var isPacked: Bool { stride == width }

    /// A copy of the pixels inside `rect` (clamped to the image), packed.
    public func cropped(to rect: PixelRect) -> GrayImage {
        let r = rect.clamped(width: width, height: height)
        if r.x == 0 && r.y == 0 && r.width == width && r.height == height && isPacked { return self }
        var out = [UInt8](repeating: 0, count: r.width * r.height)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<r.height {
                    let from = (r.y + row) * stride + r.x
                    let to = row * r.width
                    dst.baseAddress!.advanced(by: to)
                        .update(from: src.baseAddress!.advanced(by: from), count: r.width)
                }
            }
        }
        return GrayImage(width: r.width, height: r.height, pixels: out)
    }

    /// The negative (light-on-dark codes for decoders that only look for dark-on-light), packed.
    public func inverted() -> GrayImage {
        var image = packed()
        for i in image.pixels.indices { image.pixels[i] = 255 &- image.pixels[i] }
        return image
    }

    /// This image with padding removed (returns `self` when already packed).
    public func packed() -> GrayImage {
        cropped(to: PixelRect(x: 0, y: 0, width: width, height: height))
    }
}

/// An integer pixel rectangle, top-left origin.
public struct PixelRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part of this rectangle inside a `width`×`height` image (at least 1×1).
    public func clamped(width imageWidth: Int, height imageHeight: Int) -> PixelRect {
        let x0 = min(max(x, 0), imageWidth - 1)
        let y0 = min(max(y, 0), imageHeight - 1)
        let x1 = min(max(x + width, x0 + 1), imageWidth)
        let y1 = min(max(y + height, y0 + 1), imageHeight)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Whether `point` (pixel coordinates) lies inside this rectangle or on its edge.
    public func contains(_ point: Point) -> Bool {
        Double(x) <= point.x && point.x <= Double(x + width) && Double(y) <= point.y && point.y <= Double(y + height)
    }

    /// The part of this rectangle inside `other`; nil when they do not overlap.
    public func intersection(_ other: PixelRect) -> PixelRect? {
        let x0 = max(x, other.x)
        let y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width)
        let y1 = min(y + height, other.y + other.height)
        return x1 > x0 && y1 > y0 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    /// This rectangle grown by `margin` pixels on every side.
    public func grown(by margin: Int) -> PixelRect {
        PixelRect(x: x - margin, y: y - margin, width: width + 2 * margin, height: height + 2 * margin)
    }

    /// The smallest rectangle holding all of `rects` (nil for none).
    public static func union(_ rects: some Collection<PixelRect>) -> PixelRect? {
        guard !rects.isEmpty else { return nil }
        let x0 = rects.map(\.x).min()!
        let y0 = rects.map(\.y).min()!
        let x1 = rects.map { $0.x + $0.width }.max()!
        let y1 = rects.map { $0.y + $0.height }.max()!
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
