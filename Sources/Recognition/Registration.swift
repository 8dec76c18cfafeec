import ScannerCore

/// Where a patch of one frame lies in another: the one registration of the stacks that average frames
/// (`LineStack`, a line's strips; `RegionStack`, a held-up region).
enum Registration {
    /// The offset by which `patch` (cut from its frame at `origin`) lies in `image`, to a fraction of a
    /// pixel: the least mean absolute difference over offsets within `radius` of `predicted`, refined
    /// by the parabola through the costs either side. Nil when the best match is no clear match: its
    /// cost above `mismatch` times the mean over the search (a frame blurred by a motion, covered, or
    /// of something else matches about as badly everywhere).
    static func offset(
        of patch: GrayImage, at origin: (x: Int, y: Int), in image: GrayImage, predicted: Point, radius: Int, mismatch: Double
    ) -> Point? {
        let px = Int(predicted.x.rounded())
        let py = Int(predicted.y.rounded())
        let side = 2 * radius + 1
        var costs = [Double](repeating: .infinity, count: side * side)
        image.pixels.withUnsafeBufferPointer { frame in
            patch.pixels.withUnsafeBufferPointer { template in
                for j in 0..<side {
                    // The template's rows and columns that fall inside the frame at this offset.
                    let oy = origin.y + py + j - radius
                    let (top, bottom) = (max(0, -oy), min(patch.height, image.height - oy))
                    guard top < bottom else { continue }
                    let rows = top..<bottom
                    for i in 0..<side {
                        let ox = origin.x + px + i - radius
                        let (left, right) = (max(0, -ox), min(patch.width, image.width - ox))
                        guard left < right else { continue }
                        let columns = left..<right
                        let count = rows.count * columns.count
                        // Most of the template must be in the frame for the match to say anything.
                        guard count * 2 >= patch.width * patch.height else { continue }
                        var sum = 0
                        for y in rows {
                            let f = frame.baseAddress! + ((oy + y) * image.stride + ox + left)
                            let t = template.baseAddress! + (y * patch.stride + left)
                            var rowSum: Int32 = 0
                            for x in 0..<columns.count {
                                let (a, b) = (f[x], t[x])
                                rowSum &+= Int32(max(a, b) &- min(a, b))
                            }
                            sum += Int(rowSum)
                        }
                        costs[j * side + i] = Double(sum) / Double(count)
                    }
                }
            }
        }
        let measured = costs.filter(\.isFinite)
        guard let best = costs.indices.min(by: { costs[$0] < costs[$1] }), costs[best].isFinite, measured.count > 1,
            costs[best] <= mismatch * measured.reduce(0, +) / Double(measured.count)
        else { return nil }
        let (j, i) = (best / side, best % side)
        /// The vertex of the parabola through the costs either side of the best one: its fraction of a pixel.
        func fraction(_ before: Double?, _ at: Double, _ after: Double?) -> Double {
            guard let before, let after, before.isFinite, after.isFinite else { return 0 }
            let curvature = before - 2 * at + after
            return curvature > 0 ? max(-0.5, min(0.5, (before - after) / (2 * curvature))) : 0
        }
        let fx = fraction(i > 0 ? costs[best - 1] : nil, costs[best], i < side - 1 ? costs[best + 1] : nil)
        let fy = fraction(j > 0 ? costs[best - side] : nil, costs[best], j < side - 1 ? costs[best + side] : nil)
        return Point(x: Double(px + i - radius) + fx, y: Double(py + j - radius) + fy)
    }
}
