extension GrayImage {
    /// The spread between the darkest and the brightest `fraction` of pixels (0…255), from a sample
    /// of every `step`-th pixel in both directions.
    ///
    /// Print has ink: even a blurred business card spans well over 100 levels, while a blank wall, a
    /// covered lens or sensor noise spans a few dozen. Tesseract "reads" such noise as short words, so
    /// a low spread is the cheapest reason not to run OCR at all.
    public func contrastSpread(fraction: Double = 0.01, step: Int = 4) -> Int {
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        pixels.withUnsafeBufferPointer { p in
            var y = 0
            while y < height {
                var x = 0
                let row = y * stride
                while x < width {
                    histogram[Int(p[row + x])] += 1
                    x += step
                }
                count += (width + step - 1) / step
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
}
