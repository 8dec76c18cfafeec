import Foundation
import ImageDecoding
import Logging
import ScannerCore
import Synchronization

/// A V4L2 camera as a frame source that survives being unplugged.
///
/// Streaming: each `next()` takes the newest valid frame (stale and corrupt ones go straight back to
/// the driver) and decodes it to the processing image inside the buffer's scope.
/// Loss: ENODEV / EIO, POLLERR, no frame for `frameTimeout`, or the node vanishing → one `.unavailable`
/// with the reason, every descriptor and mapping released, then reopen attempts with backoff
/// (0.25 s doubling to 5 s) on the same path — use a /dev/v4l/by-id/… path so that the same camera is
/// found again whatever /dev/videoN it gets — until it streams again: `.available`.
public final class CameraSource: FrameSource {
    public struct Configuration: Sendable {
        public var path: String
        public var request: CaptureRequest
        /// Decode to at least this width (DCT scaling / decimation); nil = full size.
        public var processingWidth: Int?
        public var controls: [CameraControlSetting]
        public var bufferCount: Int
        /// No frame for this long means the camera is gone.
        public var frameTimeout: Duration
        public var maximumBackoff: Duration

        public init(
            path: String, request: CaptureRequest = CaptureRequest(), processingWidth: Int? = 640,
            controls: [CameraControlSetting] = [], bufferCount: Int = 4, frameTimeout: Duration = .seconds(3),
            maximumBackoff: Duration = .seconds(5)
        ) {
            self.path = path
            self.request = request
            self.processingWidth = processingWidth
            self.controls = controls
            self.bufferCount = bufferCount
            self.frameTimeout = frameTimeout
            self.maximumBackoff = maximumBackoff
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    private let decoder: FrameDecoder
    private let cancellation = CancellationFlag()
    private var device: V4L2Device?
    private var reportedUnavailable = false
    private var everOpened = false
    private var backoff: Duration = .milliseconds(250)
    private var openErrors = RepeatFilter()
    private var lastFrame = ContinuousClock.now
    private var countedBeforeDevice = CaptureCounters()
    /// Written by the capture thread, read by `stats` requests from any thread.
    private let counts = Mutex(SourceStatistics())
    public var statistics: SourceStatistics { counts.withLock { $0 } }
    private let idle = Atomic<Bool>(false)
    private let paused = Atomic<Bool>(false)
    private let photos = PhotoRequests()
    private var thinning = IdleThinning()

    /// Beaten on every reopen attempt while the camera is missing: waiting for a camera to be plugged
    /// in is healthy. (Frames beat it further down the pipeline.)
    public let heartbeat: Heartbeat?

    public init(configuration: Configuration, logger: Logger, heartbeat: Heartbeat? = nil) throws(ScannerError) {
        self.heartbeat = heartbeat
        self.configuration = configuration
        self.logger = logger
        self.decoder = try FrameDecoder()
    }

    public func cancel() { cancellation.cancel() }

    public func setIdle(_ idle: Bool) { self.idle.store(idle, ordering: .relaxed) }

    public func setPaused(_ paused: Bool) { self.paused.store(paused, ordering: .relaxed) }

    public func takePhoto(_ completion: @escaping @Sendable (Photo?) -> Void) {
        photos.add(completion)
    }

    public func next() -> SourceEvent {
        while !cancellation.isCancelled {
            guard let device else {
                switch open() {
                case .success(let opened):
                    device = opened
                    lastFrame = .now
                    backoff = .milliseconds(250)
                    let repeats = openErrors.clear()
                    if reportedUnavailable {
                        reportedUnavailable = false
                        counts.withLock { $0.reconnects += 1 }
                        logger.notice("camera available", metadata: ["device": "\(configuration.path)", "failedAttempts": "\(repeats + 1)"])
                        return .available
                    }
                    if !everOpened {
                        everOpened = true
                        return .available
                    }
                    continue
                case .failure(let error):
                    if case .report(let previous) = openErrors.record(error.description) {
                        logger.warning(
                            "camera not available",
                            metadata: [
                                "device": "\(configuration.path)", "reason": "\(error)",
                                "previousErrorRepeated": "\(previous)",
                            ])
                    }
                    let wait = backoff
                    backoff = min(backoff * 2, configuration.maximumBackoff)
                    heartbeat?.beat()
                    if !reportedUnavailable {
                        reportedUnavailable = true
                        return .unavailable(reason: error.description)
                    }
                    // In slices, so the watchdog hears that the wait goes on.
                    var remaining = wait.inSeconds
                    while remaining > 0, !cancellation.isCancelled {
                        heartbeat?.beat()
                        cancellation.sleep(seconds: min(remaining, 1))
                        remaining -= 1
                    }
                    continue
                }
            }
            do {
                // Short polls so that cancel() is honoured quickly; the frame time-out is counted here.
                // Idle: most frames are taken from the driver and given straight back, undecoded.
                let paused = self.paused.load(ordering: .relaxed) && photos.isEmpty
                if paused || thinning.skips(idle: idle.load(ordering: .relaxed) && photos.isEmpty) {
                    if try device.skipReady(timeout: 200) { lastFrame = .now }
                    // Paused, no frame reaches the pipeline's threads, which beat the watchdog's
                    // heartbeat per frame: frames still coming is the proof of health.
                    if paused { heartbeat?.beat() }
                    syncStatistics(device)
                    continue
                }
                // Decoded inside the grab: the mmapped buffer never outlives it.
                let frame = try device.grabNewest(timeout: 200) { raw throws(ScannerError) -> Frame in
                    if !photos.isEmpty { photos.fulfill(try photo(of: raw)) }
                    let image = try CaptureMetrics.timedDecode { () throws(ScannerError) in
                        try decoder.decode(
                            raw.bytes, format: raw.format.format, width: raw.format.width, height: raw.format.height,
                            bytesPerLine: raw.bytesPerLine, targetWidth: configuration.processingWidth)
                    }
                    // Reduced: keep the bytes for text (MJPEG only; a full-size raw frame is megabytes,
                    // and its reduction is a cheap decimation that text then reads from).
                    let encoded =
                        image.scale < 1 && raw.format.format == .mjpeg
                        ? EncodedFrame(
                            bytes: Data(raw.bytes), format: .mjpeg, width: raw.format.width, height: raw.format.height, bytesPerLine: raw.bytesPerLine
                        )
                        : nil
                    return Frame(index: 0, decoded: image, format: raw.format.format, encoded: encoded)
                }
                syncStatistics(device)
                guard var frame else { continue }
                // Every dequeued frame counts in the numbering, delivered or not.
                let counted = statistics
                frame.index = counted.delivered + counted.dropped + counted.corrupt + counted.idleSkipped - 1
                lastFrame = .now
                return .frame(frame)
            } catch .timeout {
                if ContinuousClock.now - lastFrame >= configuration.frameTimeout {
                    return lose(device, reason: "no frame for \(configuration.frameTimeout.inSeconds) s")
                }
            } catch {
                return lose(device, reason: error.description)
            }
        }
        return .end
    }

    /// The raw frame at full resolution: MJPEG as the camera sent it, YUYV as it came (decoded in
    /// colour where the photo is rendered, off this thread), GREY as full-size luma.
    private func photo(of raw: RawFrame) throws(ScannerError) -> Photo {
        let (width, height) = (raw.format.width, raw.format.height)
        switch raw.format.format {
        case .mjpeg:
            return Photo(jpeg: Data(raw.bytes), luma: nil, width: width, height: height)
        case .yuyv:
            let frame = EncodedFrame(bytes: Data(raw.bytes), format: .yuyv, width: width, height: height, bytesPerLine: raw.bytesPerLine)
            return Photo(jpeg: nil, luma: nil, yuyv: frame, width: width, height: height)
        case .grey:
            let full = try decoder.decode(raw.bytes, format: .grey, width: width, height: height, bytesPerLine: raw.bytesPerLine, targetWidth: nil)
            return Photo(jpeg: nil, luma: full.image, width: full.sourceWidth, height: full.sourceHeight)
        }
    }

    private func syncStatistics(_ device: V4L2Device) {
        let c = device.counters
        let before = countedBeforeDevice
        counts.withLock {
            $0.delivered = before.delivered + c.delivered
            $0.dropped = before.dropped + c.dropped
            $0.idleSkipped = before.idleSkipped + c.idleSkipped
            $0.corrupt = before.corrupt + c.corrupt
        }
    }

    private func lose(_ lost: V4L2Device, reason: String) -> SourceEvent {
        photos.fulfill(nil)
        syncStatistics(lost)
        countedBeforeDevice.delivered += lost.counters.delivered
        countedBeforeDevice.dropped += lost.counters.dropped
        countedBeforeDevice.idleSkipped += lost.counters.idleSkipped
        countedBeforeDevice.corrupt += lost.counters.corrupt
        lost.stop()
        device = nil  // deinit closes the descriptor
        reportedUnavailable = true
        logger.warning("camera lost", metadata: ["device": "\(configuration.path)", "reason": "\(reason)"])
        return .unavailable(reason: reason)
    }

    private func open() -> Result<V4L2Device, CaptureError> {
        do throws(CaptureError) {
            let device = try V4L2Device(path: configuration.path)
            let format = try device.configure(configuration.request)
            CameraControls.apply(configuration.controls, to: device, logger: logger)
            try device.start(bufferCount: configuration.bufferCount)
            logger.info(
                "camera streaming",
                metadata: [
                    "device": "\(configuration.path)", "format": "\(format.format.rawValue)",
                    "size": "\(format.width)x\(format.height)", "fps": "\(format.fps)",
                ])
            return .success(device)
        } catch {
            return .failure(error)
        }
    }
}
