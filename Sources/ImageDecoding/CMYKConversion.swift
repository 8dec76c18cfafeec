/// CMYK and YCCK JPEGs (issue #54), as print and scan workflows write them: libjpeg gives their four
/// channels as stored, and turns them into neither RGB nor gray itself ("Unsupported color conversion
/// request"). Pure conversions of its CMYK output.
///
/// Adobe's applications store the channels inverted (0 is full ink) and say so by writing their APP14
/// "Adobe" marker; libjpeg writes that marker for every CMYK or YCCK file and stores the ink as is,
/// but the files met in the world are Adobe's. The convention of Firefox, Chromium and Pillow is
/// followed: with the Adobe marker the channels are inverted, without it they are ink.
enum CMYKConversion {
    /// `cmyk` (4 bytes a pixel, as libjpeg gives it) as interleaved RGB: each colour the paper's
    /// white less its ink and the black ink over it.
    static func rgb(_ cmyk: [UInt8], inverted: Bool) -> [UInt8] {
        let pixels = cmyk.count / 4
        var rgb = [UInt8](repeating: 0, count: pixels * 3)
        cmyk.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { out in
                for i in 0..<pixels {
                    // What each channel leaves of the paper's white, 0…255.
                    func left(_ value: UInt8) -> Int { inverted ? Int(value) : 255 - Int(value) }
                    let black = left(source[4 * i + 3])
                    for c in 0..<3 { out[3 * i + c] = UInt8((left(source[4 * i + c]) * black + 127) / 255) }
                }
            }
        }
        return rgb
    }

    /// Whether the JPEG in `data` carries Adobe's APP14 marker: its segments walked from the start
    /// to the first scan (SOS), each by its declared length, never past the data's end.
    static func hasAdobeMarker(_ data: UnsafeRawBufferPointer) -> Bool {
        let bytes = data.bindMemory(to: UInt8.self)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return false }
        var i = 2
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { return false }
            let marker = bytes[i + 1]
            if marker == 0xFF {
                i += 1  // fill byte
                continue
            }
            if marker == 0xDA || marker == 0xD9 { return false }  // start of scan, end of image
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2 else { return false }
            if marker == 0xEE, length >= 7, i + 9 <= bytes.count,
                Array(bytes[(i + 4)..<(i + 9)]) == Array("Adobe".utf8)
            {
                return true
            }
            i += 2 + length
        }
        return false
    }
}
