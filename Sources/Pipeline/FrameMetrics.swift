import ScannerCore

/// Cheap measurements that decide whether a frame is worth reading.
public enum FrameMetrics {
    /// Variance of the 4-neighbour Laplacian over every `step`-th pixel: high for sharp edges, low for
    /// motion blur, defocus and blank scenes (Pech-Pacheco et al., "Diatom autofocusing", 2000 — the
    /// usual focus measure).
    public static func sharpness(_ image: GrayImage, step: Int = 2) -> Double {
        guard image.width > 2, image.height > 2 else { return 0 }
        var sum = 0.0
        var sumSquares = 0.0
        var count = 0.0
        image.pixels.withUnsafeBufferPointer { p in
            let s = image.stride
            var y = 1
            while y < image.height - 1 {
                var x = 1
                while x < image.width - 1 {
                    let i = y * s + x
                    let v = Double(Int(p[i - 1]) + Int(p[i + 1]) + Int(p[i - s]) + Int(p[i + s]) - 4 * Int(p[i]))
                    sum += v
                    sumSquares += v * v
                    count += 1
                    x += step
                }
                y += step
            }
        }
        let mean = sum / count
        return sumSquares / count - mean * mean
    }

    /// A small box-averaged copy (`size`×`size` cells) for comparing frames.
    public static func thumbnail(_ image: GrayImage, size: Int = 32) -> [UInt8] {
        let cellW = max(1, image.width / size)
        let cellH = max(1, image.height / size)
        var out = [UInt8](repeating: 0, count: size * size)
        image.pixels.withUnsafeBufferPointer { p in
            for cy in 0..<size {
                for cx in 0..<size {
                    var total = 0
                    var n = 0
                    let y0 = min(cy * cellH, image.height - 1)
                    let x0 = min(cx * cellW, image.width - 1)
                    var y = y0
                    while y < min(y0 + cellH, image.height) {
                        var x = x0
                        while x < min(x0 + cellW, image.width) {
                            total += Int(p[y * image.stride + x])
                            n += 1
                            x += 2
                        }
                        y += 2
                    }
                    out[cy * size + cx] = UInt8(total / max(n, 1))
                }
            }
        }
        return out
    }
}
