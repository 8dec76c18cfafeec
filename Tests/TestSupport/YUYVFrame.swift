import ScannerCore

/// A colour image as a YUYV camera sends it (`Y0 U Y1 V` for each two pixels, ITU-R BT.601 at
/// video range, the chroma of each pair's first pixel), its rows padded to `bytesPerLine`.
public enum YUYVFrame {
    public static func encode(_ image: ColorImage, bytesPerLine: Int? = nil) -> (bytes: [UInt8], bytesPerLine: Int) {
        let stride = max(bytesPerLine ?? 0, image.width / 2 * 4)
        var bytes = [UInt8](repeating: 0, count: image.height * stride)
        func rgb(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(image.pixels[(y * image.width + x) * 3 + $0]) } }
        func luma(_ c: [Int]) -> UInt8 { UInt8(16 + (66 * c[0] + 129 * c[1] + 25 * c[2] + 128) >> 8) }
        for y in 0..<image.height {
            for pair in 0..<(image.width / 2) {
                let (a, b) = (rgb(2 * pair, y), rgb(2 * pair + 1, y))
                let o = y * stride + pair * 4
                bytes[o] = luma(a)
                bytes[o + 1] = UInt8(128 + (-38 * a[0] - 74 * a[1] + 112 * a[2] + 128) >> 8)
                bytes[o + 2] = luma(b)
                bytes[o + 3] = UInt8(128 + (112 * a[0] - 94 * a[1] - 18 * a[2] + 128) >> 8)
            }
        }
        return (bytes, stride)
    }
}
