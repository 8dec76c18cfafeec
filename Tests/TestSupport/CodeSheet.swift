import ScannerCore

/// A sheet of one code printed `n` × `n` times, each in a cell 8 px larger than the code: more codes
/// than one read of zxing-cpp returns (255) from a fixture of one (issue #54).
public enum CodeSheet {
    public static func sheet(of code: GrayImage, n: Int) -> GrayImage {
        let cell = code.width + 8
        var pixels = [UInt8](repeating: 255, count: n * cell * n * cell)
        for row in 0..<n {
            for column in 0..<n {
                for y in 0..<code.height {
                    for x in 0..<code.width {
                        pixels[(row * cell + 4 + y) * n * cell + column * cell + 4 + x] = code.pixels[y * code.stride + x]
                    }
                }
            }
        }
        return GrayImage(width: n * cell, height: n * cell, pixels: pixels)
    }

    /// `image` as a binary PGM file's bytes.
    public static func pgm(_ image: GrayImage) -> [UInt8] {
        var bytes = Array("P5\n\(image.width) \(image.height)\n255\n".utf8)
        for y in 0..<image.height { bytes += image.pixels[(y * image.stride)..<(y * image.stride + image.width)] }
        return bytes
    }
}
