import CDemoClip
import Foundation
import ImageDecoding
import Logging
import ScannerCore
import Synchronization

/// How a replay hands out frames.
public enum ReplayPace: String, Sendable, CaseIterable {
    /// On a clock at the clip's rate; frames the consumer was not ready for are skipped, as a camera does.
    case realtime
    /// Every frame, as soon as the consumer asks: deterministic runs, tests and benchmarks.
    case none
}

/// Frames from files instead of a camera: a directory of images (sorted by name), a file of
/// concatenated JPEGs (`.mjpeg`), or the bundled demo clip.
public final class ReplaySource: FrameSource {
    public struct Configuration: Sendable {
        public var fps: Double
        public var pace: ReplayPace
        public var loop: Bool
        public var processingWidth: Int?

        public init(fps: Double = 30, pace: ReplayPace = .realtime, loop: Bool = false, processingWidth: Int? = 640) {
            self.fps = fps
            self.pace = pace
            self.loop = loop
            self.processingWidth = processingWidth
        }
    }

    /// Where the frames come from: each element yields one encoded frame.
    enum Clip {
        case files([URL])
        case concatenated(Data, [Range<Int>])

        var count: Int {
            switch self {
            case .files(let urls): urls.count
            case .concatenated(_, let ranges): ranges.count
            }
        }
    }

    public let name: String
    public let configuration: Configuration
    private let clip: Clip
    private let decoder: ImageDecoder
    private let logger: Logger
    private let cancellation = CancellationFlag()
    private var nextIndex = 0
    private var started: ContinuousClock.Instant?
    private var announced = false
    private let idle = Atomic<Bool>(false)
    private let paused = Atomic<Bool>(false)
    private let photos = PhotoRequests()
    private var thinning = IdleThinning()
    /// Written by the capture thread, read by `stats` requests from any thread.
    private let counts = Mutex(SourceStatistics())
    public var statistics: SourceStatistics { counts.withLock { $0 } }

    /// The number of frames in one pass of the clip.
    public var frameCount: Int { clip.count }

    /// `path` is a directory of images or an `.mjpeg` file; `demo` is the bundled clip.
    public init(path: String, configuration: Configuration, logger: Logger) throws(CaptureError) {
        self.configuration = configuration
        self.logger = logger
        self.name = path
        guard configuration.fps > 0, configuration.fps.isFinite else {
            throw .badSource(path: path, reason: "fps must be positive")
        }
        if path == "demo" {
            clip = try Self.concatenated(Self.demoClip, path: path)
        } else {
            var info = stat()
            guard stat(path, &info) == 0 else { throw .badSource(path: path, reason: "no such file or directory") }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: clip = try Self.directory(at: path)
            case S_IFREG: clip = try Self.concatenated(at: path)
            // A FIFO would block the start for ever, a device has no end.
            default: throw .badSource(path: path, reason: "not a directory or a regular file")
            }
        }
        do {
            decoder = try ImageDecoder()
        } catch {
            throw .badSource(path: path, reason: error.description)
        }
    }

    static func directory(at path: String) throws(CaptureError) -> Clip {
        let extensions: Set<String> = ["jpg", "jpeg", "png", "pgm", "ppm", "pnm"]
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .badSource(path: path, reason: "cannot list the directory")
        }
        let urls = names.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
            .map { URL(fileURLWithPath: path).appendingPathComponent($0) }
        guard !urls.isEmpty else { throw .badSource(path: path, reason: "holds no .jpg, .png or .pgm images") }
        return .files(urls)
    }

    static func concatenated(at path: String) throws(CaptureError) -> Clip {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw .badSource(path: path, reason: "cannot read the file")
        }
        return try concatenated(data, path: path)
    }

    /// The bundled demo clip (CDemoClip), referenced where it lies in the binary, not copied.
    static var demoClip: Data {
        var size = 0
        let bytes = scannerd_demo_clip(&size)!
        return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes), count: size, deallocator: .none)
    }

    static func concatenated(_ data: Data, path: String) throws(CaptureError) -> Clip {
        let ranges = MJPEGStream.frames(in: data)
        guard !ranges.isEmpty else { throw .badSource(path: path, reason: "holds no JPEG frames (FF D8 … FF D9)") }
        return .concatenated(data, ranges)
    }

    public func cancel() { cancellation.cancel() }

    /// A real-time replay behaves like a camera: when idle, most frames are skipped undecoded (`IdleThinning`).
    /// Without pacing (`--pace none`) every frame is delivered, so replays stay deterministic.
    public func setIdle(_ idle: Bool) { self.idle.store(idle, ordering: .relaxed) }

    /// Paused, frames are skipped undecoded at any pace, as a camera's are.
    public func setPaused(_ paused: Bool) { self.paused.store(paused, ordering: .relaxed) }

    public func takePhoto(_ completion: @escaping @Sendable (Photo?) -> Void) { photos.add(completion) }

    public func next() -> SourceEvent {
        if !announced {
            announced = true
            return .available
        }
        while !cancellation.isCancelled {
            guard let index = nextDueIndex() else {
                photos.fulfill(nil)
                return .end
            }
            nextIndex = index + 1
            if paused.load(ordering: .relaxed) && photos.isEmpty {
                counts.withLock { $0.idleSkipped += 1 }
                // An unpaced replay would otherwise run through (or, looping, round) its clip at
                // full speed doing nothing: paused, it goes at the clip's rate.
                if configuration.pace == .none, !cancellation.sleep(seconds: 1 / configuration.fps) { break }
                continue
            }
            if thinning.skips(idle: configuration.pace == .realtime && idle.load(ordering: .relaxed)) {
                counts.withLock { $0.idleSkipped += 1 }
                continue
            }
            let position = index % clip.count
            do {
                if !photos.isEmpty { photos.fulfill(try photo(position)) }
                let (image, encoded) = try decode(position)
                counts.withLock { $0.delivered += 1 }
                return .frame(Frame(index: index, decoded: image, format: nil, encoded: encoded))
            } catch {
                counts.withLock { $0.corrupt += 1 }
                logger.warning("replay frame skipped", metadata: ["source": "\(name)", "frame": "\(index)", "reason": "\(error)"])
            }
        }
        photos.fulfill(nil)
        return .end
    }

    /// The index to deliver now, waiting for it under realtime pacing; nil at the end of the clip.
    private func nextDueIndex() -> Int? {
        let last = configuration.loop ? Int.max : clip.count - 1
        guard nextIndex <= last else { return nil }
        guard configuration.pace == .realtime else { return nextIndex }
        let now = ContinuousClock.now
        let start = started ?? now
        started = start
        let due = Int(((now - start).inSeconds * configuration.fps).rounded(.down))
        if due >= nextIndex {
            // The consumer was slow: skip to the newest due frame, as a camera would.
            let index = min(due, last)
            let skipped = index - nextIndex
            counts.withLock { $0.dropped += skipped }
            return index
        }
        let wait = Double(nextIndex) / configuration.fps - (now - start).inSeconds
        guard cancellation.sleep(seconds: max(0, wait)) else { return nil }
        return nextIndex
    }

    /// The frame's file as it is when it is a JPEG; otherwise its full-size luma.
    private func photo(_ position: Int) throws(ScannerError) -> Photo {
        let data: Data
        switch clip {
        case .files(let urls):
            do { data = try Data(contentsOf: urls[position]) } catch { throw .unreadableImage(path: urls[position].path, reason: "\(error)") }
        case .concatenated(let all, let ranges):
            data = all.subdata(in: ranges[position])
        }
        let full = try decoder.decode(data)
        let isJPEG = ImageFormat(sniffing: data) == .jpeg
        return Photo(jpeg: isJPEG ? data : nil, luma: isJPEG ? nil : full.image, width: full.sourceWidth, height: full.sourceHeight)
    }

    /// The frame's processing image, and its bytes when that image was reduced (for text).
    private func decode(_ position: Int) throws(ScannerError) -> (DecodedImage, EncodedFrame?) {
        let (image, bytes): (DecodedImage, Data)
        switch clip {
        case .files(let urls):
            (image, bytes) = try CaptureMetrics.timedDecode { () throws(ScannerError) in
                try decoder.decodeFileKeepingBytes(atRawPath: Array(urls[position].path.utf8), targetWidth: configuration.processingWidth)
            }
        case .concatenated(let data, let ranges):
            let slice = data.subdata(in: ranges[position])
            bytes = slice
            image = try CaptureMetrics.timedDecode { () throws(ScannerError) in try decoder.decode(slice, targetWidth: configuration.processingWidth)
            }
        }
        guard image.scale < 1 else { return (image, nil) }
        return (image, EncodedFrame(bytes: bytes, format: nil, width: image.sourceWidth, height: image.sourceHeight, bytesPerLine: 0))
    }
}

/// Splitting a stream of concatenated JPEGs (an `.mjpeg` file, or a camera's MJPEG recording).
public enum MJPEGStream {
    /// The byte range of every JPEG: from an SOI marker (FF D8 FF) to the first EOI (FF D9) that is
    /// followed by the next SOI or by the end of the data. Requiring the next SOI keeps an EOI inside
    /// an embedded thumbnail from ending the frame early. Bytes before the first SOI are ignored; a
    /// truncated last frame is dropped.
    public static func frames(in data: Data) -> [Range<Int>] {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var ranges: [Range<Int>] = []
            var i = 0
            let n = bytes.count
            func isSOI(_ at: Int) -> Bool { at + 2 < n && bytes[at] == 0xFF && bytes[at + 1] == 0xD8 && bytes[at + 2] == 0xFF }
            while i < n {
                guard isSOI(i) else {
                    i += 1
                    continue
                }
                var j = i + 2
                var end: Int? = nil
                while j + 1 < n {
                    if bytes[j] == 0xFF && bytes[j + 1] == 0xD9 && (j + 2 == n || isSOI(j + 2)) {
                        end = j + 2
                        break
                    }
                    j += 1
                }
                guard let frameEnd = end else { break }
                ranges.append(i..<frameEnd)
                i = frameEnd
            }
            return ranges
        }
    }
}
