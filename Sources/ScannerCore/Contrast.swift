extension GrayImage {
    /// The spread between the darkest and the brightest `fraction` of pixels (0…255), from a sample
    /// of every `step`-th pixel in both directions, over the whole image or the part `within`.
    ///
    /// Print has ink: even a blurred business card spans well over 100 levels, while a blank wall, a
    /// covered lens or sensor noise spans a few dozen. Tesseract "reads" such noise as short words, so
    /// a low spread is the cheapest reason not to run OCR at all.
    public func contrastSpread(fraction: Double = 0.01, step: Int = 4, within part: PixelRect? = nil) -> Int {
        let area = part ?? PixelRect(x: 0, y: 0, width: width, height: height)
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        pixels.withUnsafeBufferPointer { p in
            var y = area.y
            while y < area.y + area.height {
                var x = area.x
                let row = y * stride
                while x < area.x + area.width {
                    histogram[Int(p[row + x])] += 1
                    x += step
                }
                count += (area.width + step - 1) / step
                y += step
            }
        }
        let cut = max(1, Int(Double(count) * fraction))
        var seen = 0
        var low = 0
        var high = 255
        for level in 0..<256 {
            seen += histogram[level]
            if seen >= cut {
                low = level
                break
            }
        }
        seen = 0
        for level in (0..<256).reversed() {
            seen += histogram[level]
            if seen >= cut {
                high = level
                break
            }
        }
        return max(0, high - low)
    }

    /// The largest `contrastSpread` of the image's blocks of `block` × `block` pixels (those at the
    /// right and bottom edges smaller): whether there is print *anywhere*. Over a whole large page the
    /// ink of a card or a receipt lying on it can be well under `fraction` of the pixels, and the
    /// page then spreads no more than a blank one; within a block it does not.
    public func largestBlockContrastSpread(block: Int = 256, fraction: Double = 0.01, step: Int = 4) -> Int {
        let side = max(step, block)
        var largest = 0
        for y in Swift.stride(from: 0, to: height, by: side) {
            for x in Swift.stride(from: 0, to: width, by: side) {
                let part = PixelRect(x: x, y: y, width: min(side, width - x), height: min(side, height - y))
                largest = max(largest, contrastSpread(fraction: fraction, step: step, within: part))
            }
        }
        return largest
    }
}
