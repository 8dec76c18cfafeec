import Foundation
import ImageDecoding
import ScannerCore
import Synchronization

/// One decoded frame from a source.
public struct Frame: Sendable {
    /// 0-based index of the frame in the source's own numbering: a camera counts every frame it
    /// dequeued (stale ones too), a replay counts the frames of the clip (across loops).
    public var index: Int
    /// The frame as decoded: the processing image and the size the source sent.
    public let decoded: DecodedImage
    /// The processing image.
    public var image: GrayImage { decoded.image }
    /// The camera format the frame arrived in; nil for still images.
    public var format: PixelFormat?
    /// The frame as the source had it, kept when `image` was reduced: text recognition reads small
    /// print from every pixel the camera sent, a few times a second, while barcodes are scanned on
    /// the reduced image on every frame. An MJPEG frame is ~100 KB; decoding it again costs only the
    /// passes that read.
    public let encoded: EncodedFrame?
    /// The full-size decode, shared by every copy of this frame: the barcode and text threads are
    /// handed copies of the same frame, and each would decode it for itself.
    private let full = FullDecode()

    public init(index: Int, decoded: DecodedImage, format: PixelFormat?, encoded: EncodedFrame? = nil) {
        self.index = index
        self.decoded = decoded
        self.format = format
        self.encoded = encoded
    }

    /// The frame at its full size: `image` itself when it was not reduced, else `encoded` decoded
    /// again — once, whichever stage or thread asks first; the others wait for it and share it. Nil
    /// if that fails (the caller reads the reduced image instead).
    public func fullResolution() -> GrayImage? {
        guard decoded.scale < 1, let encoded else { return decoded.image }
        return full.value { try? encoded.decode().image }
    }

    /// The frame in colour at the processing image's size, where the camera sent colour and its bytes
    /// were kept (an MJPEG or YUYV frame reduced for processing); nil otherwise, or when it cannot be decoded.
    /// For the documents' edges (issue #53): a red card on a gray desk of its luma shows none in `image`.
    public func color() -> ColorImage? {
        guard decoded.scale < 1, let color = try? encoded?.decodeColor(targetWidth: image.width) else { return nil }
        return color.width == image.width && color.height == image.height ? color : nil
    }
}

/// A value made once, by the first caller, and then shared (`Frame.fullResolution`).
final class FullDecode: Sendable {
    private let state = Mutex<GrayImage??>(nil)

    func value(_ make: () -> GrayImage?) -> GrayImage? {
        state.withLock { state in
            if let made = state { return made }
            let made = make()
            state = .some(made)
            return made
        }
    }
}

/// A frame's bytes as the source delivered them.
public struct EncodedFrame: Sendable {
    public var bytes: Data
    /// The camera format; nil for an image file (JPEG, PNG, …, told apart by its bytes).
    public var format: PixelFormat?
    public var width: Int
    public var height: Int
    public var bytesPerLine: Int

    public init(bytes: Data, format: PixelFormat?, width: Int, height: Int, bytesPerLine: Int) {
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
    }

    /// Decodes at full size (a decoder per call: a turbojpeg handle costs microseconds, a pass tens
    /// of milliseconds).
    public func decode() throws(ScannerError) -> DecodedImage {
        guard let format else { return try ImageDecoder().decode(bytes) }
        let decoder = try FrameDecoder()
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(ScannerError) in
                try decoder.decode(raw, format: format, width: width, height: height, bytesPerLine: bytesPerLine, targetWidth: nil)
            }
        }
        return try result.get()
    }

    /// Decodes in colour, reduced as the processing image is (`targetWidth`): an MJPEG or YUYV
    /// camera's frame, or a JPEG of a replay; nil for GREY and other image files (their frames stay gray).
    public func decodeColor(targetWidth: Int) throws(ScannerError) -> ColorImage? {
        let isJPEG = format == .mjpeg || format == nil && bytes.starts(with: [0xFF, 0xD8, 0xFF])
        guard isJPEG || format == .yuyv else { return nil }
        let decoder = try FrameDecoder()
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(ScannerError) in
                try decoder.decodeColor(
                    raw, format: format ?? .mjpeg, width: width, height: height, bytesPerLine: bytesPerLine, targetWidth: targetWidth)
            }
        }
        return try result.get()
    }
}

/// What a source reports: frames, and changes of its availability.
public enum SourceEvent: Sendable {
    case frame(Frame)
    /// The source (re)opened and streams again.
    case available
    /// The source stopped delivering: unplugged, failed, or not there yet. It keeps retrying.
    case unavailable(reason: String)
    /// A file source ran out of frames (and does not loop).
    case end
}

/// Something that yields frames: a camera or a replay. `next()` blocks, so a source belongs to its
/// own thread (never the cooperative pool). It always returns the newest frame it has: frames the
/// consumer was too slow for are dropped, never queued.
public protocol FrameSource: AnyObject {
    /// Blocks until the next event. After `cancel()` it returns `.end` promptly.
    func next() -> SourceEvent
    /// Asks a blocked or future `next()` to return; callable from any thread.
    func cancel()
    /// Counters for stats and logs.
    var statistics: SourceStatistics { get }
    /// A hint from the consumer that nothing has changed for a while. A camera then decodes only one
    /// frame in `IdleThinning.decodeEvery` (the others go straight back to the driver): the decode
    /// is most of the cost of an empty kiosk. Callable from any thread; real-time replays do the
    /// same, unpaced ones ignore it.
    func setIdle(_ idle: Bool)
    /// Recognition is paused (a `pause` request): every frame goes straight back to the driver
    /// undecoded — the camera stays open and streaming, so `resume` needs no reopen — except the one
    /// a photo asks for. Callable from any thread.
    func setPaused(_ paused: Bool)
    /// Asks for the next frame at full resolution (capturePhoto). `completion` runs on the source's
    /// thread with nil if no frame comes (the source is unavailable or ended). Callable from any thread.
    func takePhoto(_ completion: @escaping @Sendable (Photo?) -> Void)
}

extension FrameSource {
    public func setIdle(_ idle: Bool) {}
    public func setPaused(_ paused: Bool) {}
    public func takePhoto(_ completion: @escaping @Sendable (Photo?) -> Void) { completion(nil) }
}

/// Which frames a source leaves undecoded while the consumer says the scene is still: all but one in
/// `decodeEvery`. A change is then seen at most `decodeEvery - 1` frames late; something coming
/// into view changes the scene 9–15 frames before any item on it is legible (the footage,
/// docs/pipeline.md), and the first changed frame ends the idling. Decoding a 1280×720 MJPEG frame
/// to the 640-px processing image costs ~2 ms: every frame is 6% of a core, one in three 2%.
struct IdleThinning {
    static let decodeEvery = 3
    private var undecoded = 0

    /// Whether to skip the frame now due (idle: two of every three; otherwise none).
    mutating func skips(idle: Bool) -> Bool {
        guard idle, undecoded < Self.decodeEvery - 1 else {
            undecoded = 0
            return false
        }
        undecoded += 1
        return true
    }
}

public struct SourceStatistics: Sendable, Equatable {
    public var delivered = 0
    /// Frames skipped because a newer one was ready (camera) or due (realtime replay).
    public var dropped = 0
    /// Frames rejected as corrupt (short MJPEG, missing markers, undecodable).
    public var corrupt = 0
    /// Frames left undecoded because the scene is still (the idle hint, `setIdle`) or recognition is
    /// paused (`setPaused`).
    public var idleSkipped = 0
    public var reconnects = 0
    public init() {}
}
