extension GrayImage {
    /// This image resized by `factor` with bilinear interpolation (packed output).
    ///
    /// Used to enlarge small text before OCR: Tesseract's LSTM reads best at an x-height of
    /// 20–30 px, and camera frames of a card at arm's length give less.
    public func scaled(by factor: Double) -> GrayImage {
        precondition(factor > 0 && factor.isFinite)
        let outWidth = max(1, Int((Double(width) * factor).rounded()))
        let outHeight = max(1, Int((Double(height) * factor).rounded()))
        if outWidth == width && outHeight == height { return packed() }
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        let sx = Double(width) / Double(outWidth), sy = Double(height) / Double(outHeight)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<outHeight {
                    let fy = max(0, (Double(y) + 0.5) * sy - 0.5)
                    let y0 = min(Int(fy), height - 1), y1 = min(y0 + 1, height - 1)
                    let wy = fy - Double(y0)
                    for x in 0..<outWidth {
                        let fx = max(0, (Double(x) + 0.5) * sx - 0.5)
                        let x0 = min(Int(fx), width - 1), x1 = min(x0 + 1, width - 1)
                        let wx = fx - Double(x0)
                        let top = Double(src[y0 * stride + x0]) * (1 - wx) + Double(src[y0 * stride + x1]) * wx
                        let bottom = Double(src[y1 * stride + x0]) * (1 - wx) + Double(src[y1 * stride + x1]) * wx
                        dst[y * outWidth + x] = UInt8(min(255, max(0, (top * (1 - wy) + bottom * wy).rounded())))
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }
}
