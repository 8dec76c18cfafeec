import ScannerCore

/// One format a device offers, with its discrete frame sizes and rates.
public struct FormatDescription: Sendable, Equatable {
    public var fourcc: UInt32
    public var description: String
    public var sizes: [FrameSize]

    public init(fourcc: UInt32, description: String, sizes: [FrameSize]) {
        self.fourcc = fourcc
        self.description = description
        self.sizes = sizes
    }

    public var pixelFormat: PixelFormat? { PixelFormat(fourcc: fourcc) }
}

public struct FrameSize: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Frames per second the device offers at this size, highest first.
    public var rates: [Double]

    public init(width: Int, height: Int, rates: [Double]) {
        self.width = width
        self.height = height
        self.rates = rates.sorted(by: >)
    }
}

/// What the capture configuration asks for.
public struct CaptureRequest: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Double
    /// Allowed formats, most preferred first.
    public var formats: [PixelFormat]

    public init(width: Int = 1280, height: Int = 720, fps: Double = 30, formats: [PixelFormat] = PixelFormat.allCases) {
        self.width = width
        self.height = height
        self.fps = fps
        self.formats = formats
    }
}

/// The format, size and rate chosen for a device.
public struct NegotiatedFormat: Sendable, Equatable {
    public var format: PixelFormat
    public var width: Int
    public var height: Int
    public var fps: Double

    public init(format: PixelFormat, width: Int, height: Int, fps: Double) {
        self.format = format
        self.width = width
        self.height = height
        self.fps = fps
    }
}

/// Chooses what to ask a camera for, from what it offers. Pure, so every rule is a unit test.
public enum FormatNegotiation {
    /// Rules, in order:
    /// 1. Only formats in `request.formats`, in that order of preference (MJPEG, YUYV, GREY by default).
    /// 2. Within a format, the size closest to the requested one: an exact match, else the smallest
    ///    size at least as large in both directions, else the largest size there is.
    /// 3. A preferred format loses to a later one only when it cannot reach the requested size and the
    ///    later one can, or when it cannot reach the requested rate at its chosen size and the later
    ///    one can (UVC cameras offer 1080p YUYV at 5 fps: MJPEG is the better deal almost always).
    /// 4. The rate: the lowest offered rate at or above the request, else the highest offered.
    public static func choose(from offered: [FormatDescription], for request: CaptureRequest) -> NegotiatedFormat? {
        var candidates: [(NegotiatedFormat, reachesSize: Bool, reachesRate: Bool)] = []
        for format in request.formats {
            guard let description = offered.first(where: { $0.pixelFormat == format }), !description.sizes.isEmpty
            else { continue }
            let size = bestSize(description.sizes, for: request)
            let fps = bestRate(size.rates, for: request.fps)
            let reachesSize = size.width >= request.width && size.height >= request.height
            let reachesRate = fps + 0.01 >= request.fps
            candidates.append((NegotiatedFormat(format: format, width: size.width, height: size.height, fps: fps), reachesSize, reachesRate))
        }
        if let full = candidates.first(where: { $0.reachesSize && $0.reachesRate }) { return full.0 }
        if let sized = candidates.first(where: { $0.reachesSize }) { return sized.0 }
        return candidates.first?.0
    }

    static func bestSize(_ sizes: [FrameSize], for request: CaptureRequest) -> FrameSize {
        if let exact = sizes.first(where: { $0.width == request.width && $0.height == request.height }) { return exact }
        let larger = sizes.filter { $0.width >= request.width && $0.height >= request.height }
        if let smallest = larger.min(by: { $0.width * $0.height < $1.width * $1.height }) { return smallest }
        return sizes.max(by: { $0.width * $0.height < $1.width * $1.height })!
    }

    static func bestRate(_ rates: [Double], for wanted: Double) -> Double {
        guard !rates.isEmpty else { return wanted }
        if let atLeast = rates.filter({ $0 + 0.01 >= wanted }).min() { return atLeast }
        return rates.max()!
    }
}
