import ScannerCore

/// A held-up region over the last few frames, each registered to the newest and averaged: what the
/// live detector looks at closely instead of one noisy frame (issue #52).
///
/// Small print held at arm's length is a few pixels high, and each frame carries its own sensor noise
/// and JPEG blocking; the detector, even at twice the size, finds such lines in one frame seldom and
/// in the average of eight often. `LineStack` averages the lines already found, for their reading;
/// this averages the region before any line is found. A hand's jitter moves the region as a whole
/// between frames, by a few pixels and fractions of one: each frame is registered to the newest by
/// where the region's pixels match best (coarsely on frames reduced, then to a fraction of a pixel),
/// resampled there, and averaged; a frame that matches nowhere clearly (a motion, a cover) ends the
/// stack, and the frames before it are left out too.
///
/// Measured on the real development receipts held up to the camera (docs/benchmarks.md, "Frames
/// averaged before the detector looks").
///
/// A function: frames in, an image out; no clock, no thread.
public enum RegionStack {
    public struct Configuration: Sendable, Equatable {
        /// Frames averaged at most, the newest among them.
        public var depth = 8
        /// How far a frame may lie from the newest (px): a hand's jitter over a quarter of a second.
        public var maximumShift = 12
        /// A frame registers when its best match is clear (`Registration`'s `mismatch`).
        public var mismatch = 0.8
        /// The coarse registration's reduction, and the side (px) of the patch the fine one matches.
        static let coarse = 4
        static let fineSide = 192

        public init() {}
    }

    /// The newest of `frames` (oldest first, all one size) with `region` replaced by the average of the
    /// frames that register to it, and how many frames that average holds (1: the newest alone).
    public static func stacked(
        _ frames: [GrayImage], region: PixelRect, configuration: Configuration = Configuration()
    )
        -> (image: GrayImage, count: Int)
    {
        guard let newest = frames.last else { preconditionFailure("RegionStack.stacked needs a frame") }
        let r = region.clamped(width: newest.width, height: newest.height)
        let c = Configuration.coarse
        let earlier = frames.dropLast().suffix(max(0, configuration.depth - 1)).reversed()
        guard !earlier.isEmpty, r.width >= 4 * c, r.height >= 4 * c,
            earlier.allSatisfy({ $0.width == newest.width && $0.height == newest.height })
        else { return (newest, 1) }
        // The coarse template: the region reduced; the fine one: its middle at full resolution.
        let reducedNewest = reduced(newest, by: c)
        let coarseRect = PixelRect(x: r.x / c, y: r.y / c, width: r.width / c, height: r.height / c)
        let coarsePatch = reducedNewest.cropped(to: coarseRect)
        let fineRect = PixelRect(
            x: r.x + max(0, (r.width - Configuration.fineSide) / 2), y: r.y + max(0, (r.height - Configuration.fineSide) / 2),
            width: min(r.width, Configuration.fineSide), height: min(r.height, Configuration.fineSide))
        let finePatch = newest.cropped(to: fineRect)
        var sums = [Float](repeating: 0, count: r.width * r.height)
        add(newest, at: Point(x: 0, y: 0), region: r, to: &sums)
        var count = 1
        for frame in earlier {
            guard
                let rough = Registration.offset(
                    of: coarsePatch, at: (coarseRect.x, coarseRect.y), in: reduced(frame, by: c), predicted: Point(x: 0, y: 0),
                    radius: (configuration.maximumShift + c - 1) / c, mismatch: configuration.mismatch),
                let fine = Registration.offset(
                    of: finePatch, at: (fineRect.x, fineRect.y), in: frame, predicted: Point(x: rough.x * Double(c), y: rough.y * Double(c)),
                    radius: c / 2 + 1, mismatch: configuration.mismatch),
                abs(fine.x) <= Double(configuration.maximumShift), abs(fine.y) <= Double(configuration.maximumShift)
            else { break }
            add(frame, at: fine, region: r, to: &sums)
            count += 1
        }
        guard count > 1 else { return (newest, 1) }
        var pixels = newest.isPacked ? newest.pixels : newest.cropped(to: PixelRect(x: 0, y: 0, width: newest.width, height: newest.height)).pixels
        let scale = 1 / Float(count)
        for y in 0..<r.height {
            for x in 0..<r.width {
                pixels[(r.y + y) * newest.width + r.x + x] = UInt8(min(255, max(0, sums[y * r.width + x] * scale + 0.5)))
            }
        }
        return (GrayImage(width: newest.width, height: newest.height, pixels: pixels), count)
    }

    /// Adds `frame` sampled at each pixel of `region` moved by `offset` (bilinear; clamped at the edges).
    private static func add(_ frame: GrayImage, at offset: Point, region r: PixelRect, to sums: inout [Float]) {
        let ix = Int(offset.x.rounded(.down))
        let iy = Int(offset.y.rounded(.down))
        let fx = Float(offset.x - Double(ix))
        let fy = Float(offset.y - Double(iy))
        let (w00, w10, w01, w11) = ((1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy)
        frame.pixels.withUnsafeBufferPointer { p in
            for y in 0..<r.height {
                let y0 = min(max(r.y + y + iy, 0), frame.height - 1)
                let y1 = min(y0 + 1, frame.height - 1)
                for x in 0..<r.width {
                    let x0 = min(max(r.x + x + ix, 0), frame.width - 1)
                    let x1 = min(x0 + 1, frame.width - 1)
                    let v =
                        w00 * Float(p[y0 * frame.stride + x0]) + w10 * Float(p[y0 * frame.stride + x1]) + w01 * Float(p[y1 * frame.stride + x0])
                        + w11 * Float(p[y1 * frame.stride + x1])
                    sums[y * r.width + x] += v
                }
            }
        }
    }

    /// `image` reduced by `factor` in each direction (box means).
    static func reduced(_ image: GrayImage, by factor: Int) -> GrayImage {
        let (w, h) = (max(1, image.width / factor), max(1, image.height / factor))
        var out = [UInt8](repeating: 0, count: w * h)
        let area = factor * factor
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0
                    for dy in 0..<factor {
                        let row = (y * factor + dy) * image.stride + x * factor
                        for dx in 0..<factor { sum += Int(p[row + dx]) }
                    }
                    out[y * w + x] = UInt8((sum + area / 2) / area)
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}
