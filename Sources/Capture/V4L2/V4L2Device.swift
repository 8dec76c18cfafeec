import CV4L2
import Glibc
import ScannerCore
import SystemPackage

/// What VIDIOC_QUERYCAP says about a device.
public struct DeviceCapabilities: Sendable, Equatable {
    public var driver: String
    public var card: String
    public var busInfo: String
    public var canCapture: Bool
    public var canStream: Bool
}

/// A frame in a driver buffer: valid only inside the closure it is given to.
public struct RawFrame {
    public var bytes: UnsafeRawBufferPointer
    public var format: NegotiatedFormat
    public var bytesPerLine: Int
}

/// Counters of one device's capture loop.
public struct CaptureCounters: Sendable, Equatable {
    public var delivered = 0
    /// Valid frames skipped because a newer one was already waiting (`SourceStatistics.dropped`).
    public var dropped = 0
    /// Frames that failed validation (short, or MJPEG without SOI/EOI markers).
    public var corrupt = 0
    /// Frames given back undecoded while the scene is still (`skipReady`).
    public var idleSkipped = 0
    public init() {}
}

/// A V4L2 capture device, streaming through a small ring of mmapped buffers.
///
/// Owns the descriptor and the mappings and releases them in `stop()` / `deinit`, whatever failed.
/// Not thread-safe: one capture thread owns it.
public final class V4L2Device {
    public let path: String
    private let fd: CInt
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private var streaming = false
    public private(set) var format: NegotiatedFormat?
    public private(set) var bytesPerLine = 0
    public private(set) var counters = CaptureCounters()

    /// Opens `path` (a /dev/videoN node or a /dev/v4l/by-id/… link) non-blocking and checks that it is
    /// a streaming capture device.
    public init(path: String) throws(CaptureError) {
        self.path = path
        let fd = cv4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let error = Errno(rawValue: errno)
            if error == .noSuchFileOrDirectory || error == .operationNotSupportedByDevice { throw .deviceNotFound(path: path) }
            throw .system(path: path, call: "open", errno: error)
        }
        // Checked before `self` owns the descriptor: a class whose init throws after every property is
        // set runs deinit, which would close it a second time.
        let caps: DeviceCapabilities
        do {
            caps = try Self.queryCapabilities(fd: fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        guard caps.canCapture, caps.canStream else {
            close(fd)
            throw .notACaptureDevice(
                path: path, reason: caps.canCapture ? "no streaming I/O" : "no video capture (a metadata node?)")
        }
        self.fd = fd
    }

    deinit {
        stop()
        close(fd)
    }

    // MARK: ioctl

    /// The one entry point for ioctls: retries EINTR, throws a typed error naming the request.
    @discardableResult
    func xioctl(_ request: UInt, _ name: String, _ argument: UnsafeMutableRawPointer) throws(CaptureError) -> CInt {
        try Self.xioctl(fd: fd, path: path, request, name, argument)
    }

    @discardableResult
    static func xioctl(fd: CInt, path: String, _ request: UInt, _ name: String, _ argument: UnsafeMutableRawPointer) throws(CaptureError) -> CInt {
        while true {
            let rc = cv4l2_ioctl(fd, request, argument)
            if rc >= 0 { return rc }
            let error = Errno(rawValue: errno)
            if error == .interrupted { continue }
            if error == .operationNotSupportedByDevice || error == .ioError {
                throw .disconnected(path: path, reason: "\(name): \(error.description)")
            }
            throw .ioctl(path: path, request: name, errno: error)
        }
    }

    func ioctl<T>(_ request: UInt, _ name: String, _ value: inout T) throws(CaptureError) {
        _ = try withUnsafeMutableBytes(of: &value) { raw throws(CaptureError) in try xioctl(request, name, raw.baseAddress!) }
    }

    // MARK: Queries

    public func capabilities() throws(CaptureError) -> DeviceCapabilities {
        try Self.queryCapabilities(fd: fd, path: path)
    }

    static func queryCapabilities(fd: CInt, path: String) throws(CaptureError) -> DeviceCapabilities {
        var caps = v4l2_capability()
        _ = try withUnsafeMutableBytes(of: &caps) { raw throws(CaptureError) in
            try xioctl(fd: fd, path: path, cv4l2_VIDIOC_QUERYCAP(), "VIDIOC_QUERYCAP", raw.baseAddress!)
        }
        // device_caps describes this node; capabilities the whole physical device.
        let flags = caps.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? caps.device_caps : caps.capabilities
        return DeviceCapabilities(
            driver: cString(caps.driver), card: cString(caps.card), busInfo: cString(caps.bus_info),
            canCapture: flags & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0, canStream: flags & UInt32(V4L2_CAP_STREAMING) != 0)
    }

    /// Every format with its discrete sizes and rates (stepwise sizes are reported by their maximum).
    public func formats() throws(CaptureError) -> [FormatDescription] {
        var result: [FormatDescription] = []
        var index: UInt32 = 0
        while true {
            var desc = v4l2_fmtdesc()
            desc.index = index
            desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            do { try ioctl(cv4l2_VIDIOC_ENUM_FMT(), "VIDIOC_ENUM_FMT", &desc) } catch .ioctl(_, _, .invalidArgument) { break }
            result.append(FormatDescription(fourcc: desc.pixelformat, description: cString(desc.description), sizes: try sizes(of: desc.pixelformat)))
            index += 1
        }
        return result
    }

    private func sizes(of fourcc: UInt32) throws(CaptureError) -> [FrameSize] {
        var sizes: [FrameSize] = []
        var index: UInt32 = 0
        while true {
            var size = v4l2_frmsizeenum()
            size.index = index
            size.pixel_format = fourcc
            do { try ioctl(cv4l2_VIDIOC_ENUM_FRAMESIZES(), "VIDIOC_ENUM_FRAMESIZES", &size) } catch .ioctl(_, _, .invalidArgument) { break }
            let (w, h) =
                size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
                ? (Int(size.discrete.width), Int(size.discrete.height))
                : (Int(size.stepwise.max_width), Int(size.stepwise.max_height))
            sizes.append(FrameSize(width: w, height: h, rates: try rates(of: fourcc, width: w, height: h)))
            if size.type != V4L2_FRMSIZE_TYPE_DISCRETE.rawValue { break }
            index += 1
        }
        return sizes
    }

    private func rates(of fourcc: UInt32, width: Int, height: Int) throws(CaptureError) -> [Double] {
        var rates: [Double] = []
        var index: UInt32 = 0
        while true {
            var interval = v4l2_frmivalenum()
            interval.index = index
            interval.pixel_format = fourcc
            interval.width = UInt32(width)
            interval.height = UInt32(height)
            do { try ioctl(cv4l2_VIDIOC_ENUM_FRAMEINTERVALS(), "VIDIOC_ENUM_FRAMEINTERVALS", &interval) } catch .ioctl(_, _, .invalidArgument) {
                break
            }
            let fraction = interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue ? interval.discrete : interval.stepwise.min
            if fraction.numerator > 0 { rates.append(Double(fraction.denominator) / Double(fraction.numerator)) }
            if interval.type != V4L2_FRMIVAL_TYPE_DISCRETE.rawValue { break }
            index += 1
        }
        return rates
    }

    // MARK: Configuration

    /// Negotiates and sets format, size and rate. The driver may adjust them: the returned value (and
    /// `format`) is what it actually delivers.
    @discardableResult
    public func configure(_ request: CaptureRequest) throws(CaptureError) -> NegotiatedFormat {
        let offered = try formats()
        guard let choice = FormatNegotiation.choose(from: offered, for: request) else {
            throw .noUsableFormat(path: path, offered: offered.map { PixelFormat.name(ofFourCC: $0.fourcc) })
        }
        var fmt = v4l2_format()
        fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        fmt.fmt.pix.width = UInt32(choice.width)
        fmt.fmt.pix.height = UInt32(choice.height)
        fmt.fmt.pix.pixelformat = choice.format.fourcc
        fmt.fmt.pix.field = V4L2_FIELD_ANY.rawValue
        try ioctl(cv4l2_VIDIOC_S_FMT(), "VIDIOC_S_FMT", &fmt)
        guard let actual = PixelFormat(fourcc: fmt.fmt.pix.pixelformat) else {
            throw .noUsableFormat(path: path, offered: [PixelFormat.name(ofFourCC: fmt.fmt.pix.pixelformat)])
        }
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parm.parm.capture.timeperframe = v4l2_fract(numerator: 1000, denominator: UInt32(choice.fps * 1000))
        var fps = choice.fps
        // Not every driver lets the rate be set; the frames still come at the device's own rate.
        if (try? ioctl(cv4l2_VIDIOC_S_PARM(), "VIDIOC_S_PARM", &parm)) != nil, parm.parm.capture.timeperframe.numerator > 0 {
            fps = Double(parm.parm.capture.timeperframe.denominator) / Double(parm.parm.capture.timeperframe.numerator)
        }
        let negotiated = NegotiatedFormat(format: actual, width: Int(fmt.fmt.pix.width), height: Int(fmt.fmt.pix.height), fps: fps)
        format = negotiated
        bytesPerLine = Int(fmt.fmt.pix.bytesperline)
        return negotiated
    }

    // MARK: Streaming

    /// Maps `count` driver buffers, queues them all and starts streaming.
    public func start(bufferCount: Int = 4) throws(CaptureError) {
        guard !streaming else { return }
        var request = v4l2_requestbuffers()
        request.count = UInt32(bufferCount)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try ioctl(cv4l2_VIDIOC_REQBUFS(), "VIDIOC_REQBUFS", &request)
        guard request.count >= 2 else {
            throw .notACaptureDevice(path: path, reason: "driver granted \(request.count) buffer(s)")
        }
        do throws(CaptureError) {
            for index in 0..<request.count {
                var buffer = makeBuffer(index: index)
                try ioctl(cv4l2_VIDIOC_QUERYBUF(), "VIDIOC_QUERYBUF", &buffer)
                guard let address = mmap(nil, Int(buffer.length), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(buffer.m.offset)),
                    address != MAP_FAILED
                else { throw .system(path: path, call: "mmap", errno: Errno(rawValue: errno)) }
                buffers.append(UnsafeMutableRawBufferPointer(start: address, count: Int(buffer.length)))
            }
            for index in buffers.indices { try queue(UInt32(index)) }
            var type = CInt(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            try ioctl(cv4l2_VIDIOC_STREAMON(), "VIDIOC_STREAMON", &type)
            streaming = true
        } catch {
            releaseBuffers()
            throw error
        }
    }

    /// Stops streaming and releases every mapping. Safe to call twice and after a disconnection.
    public func stop() {
        if streaming {
            var type = CInt(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = try? ioctl(cv4l2_VIDIOC_STREAMOFF(), "VIDIOC_STREAMOFF", &type)
            streaming = false
        }
        releaseBuffers()
    }

    private func releaseBuffers() {
        for buffer in buffers { munmap(buffer.baseAddress, buffer.count) }
        if !buffers.isEmpty {
            var request = v4l2_requestbuffers()
            request.count = 0
            request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            request.memory = V4L2_MEMORY_MMAP.rawValue
            _ = try? ioctl(cv4l2_VIDIOC_REQBUFS(), "VIDIOC_REQBUFS", &request)
        }
        buffers = []
    }

    private func makeBuffer(index: UInt32) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }

    private func queue(_ index: UInt32) throws(CaptureError) {
        var buffer = makeBuffer(index: index)
        try ioctl(cv4l2_VIDIOC_QBUF(), "VIDIOC_QBUF", &buffer)
    }

    /// Waits up to `timeout` ms for frames, takes every ready buffer, gives stale and corrupt ones back
    /// at once, and hands the newest valid frame to `body` before requeueing it too. Returns nil when
    /// only corrupt frames were ready.
    public func grabNewest<T>(timeout: Int, _ body: (RawFrame) throws -> T) throws(CaptureError) -> T? {
        guard streaming, let format else { throw .notACaptureDevice(path: path, reason: "not streaming") }
        try waitReadable(timeout: timeout)
        var ready: [v4l2_buffer] = []
        while true {
            var buffer = makeBuffer(index: 0)
            do {
                try ioctl(cv4l2_VIDIOC_DQBUF(), "VIDIOC_DQBUF", &buffer)
            } catch .ioctl(_, _, .resourceTemporarilyUnavailable) {
                break  // nothing more is ready
            } catch {
                for b in ready { try? queue(b.index) }
                throw error
            }
            ready.append(buffer)
        }
        let valid = ready.map { buffer in
            buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) == 0 && isValid(buffer, format: format.format)
        }
        let decision = GrabDecision.decide(valid: valid)
        counters.dropped += decision.dropped
        counters.corrupt += decision.corrupt
        for i in decision.requeue { try queue(ready[i].index) }
        guard let keep = decision.keep else { return nil }
        let buffer = ready[keep]
        defer { try? queue(buffer.index) }
        counters.delivered += 1
        let frame = RawFrame(
            bytes: UnsafeRawBufferPointer(rebasing: buffers[Int(buffer.index)][0..<Int(buffer.bytesused)]),
            format: format, bytesPerLine: bytesPerLine)
        do {
            return try body(frame)
        } catch {
            counters.corrupt += 1
            return nil
        }
    }

    /// Waits for frames like `grabNewest` but gives every ready buffer straight back (counted as
    /// stale). Returns whether any frame was there.
    public func skipReady(timeout: Int) throws(CaptureError) -> Bool {
        guard streaming else { throw .notACaptureDevice(path: path, reason: "not streaming") }
        try waitReadable(timeout: timeout)
        var skipped = 0
        while true {
            var buffer = makeBuffer(index: 0)
            do {
                try ioctl(cv4l2_VIDIOC_DQBUF(), "VIDIOC_DQBUF", &buffer)
            } catch .ioctl(_, _, .resourceTemporarilyUnavailable) {
                break
            }
            try queue(buffer.index)
            skipped += 1
        }
        counters.idleSkipped += skipped
        return skipped > 0
    }

    private func isValid(_ buffer: v4l2_buffer, format: PixelFormat) -> Bool {
        guard Int(buffer.index) < buffers.count, Int(buffer.bytesused) <= buffers[Int(buffer.index)].count else { return false }
        let bytes = UnsafeRawBufferPointer(rebasing: buffers[Int(buffer.index)][0..<Int(buffer.bytesused)])
        switch format {
        case .mjpeg: return FrameValidation.isCompleteJPEG(bytes)
        case .yuyv, .grey: return bytes.count >= bytesPerLine * ((self.format?.height ?? 1) - 1) + (self.format?.width ?? 0)
        }
    }

    private func waitReadable(timeout: Int) throws(CaptureError) {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let rc = poll(&pfd, 1, Int32(timeout))
            if rc < 0 {
                let error = Errno(rawValue: errno)
                if error == .interrupted { continue }
                throw .system(path: path, call: "poll", errno: error)
            }
            if rc == 0 { throw .timeout(path: path, milliseconds: timeout) }
            if pfd.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                throw .disconnected(path: path, reason: "poll reported \(pfd.revents & Int16(POLLHUP) != 0 ? "hang-up" : "an error")")
            }
            return
        }
    }

    // MARK: Controls

    public struct ControlInfo: Sendable, Equatable {
        public var id: UInt32
        public var name: String
        public var minimum: Int
        public var maximum: Int
        public var defaultValue: Int
        public var isDisabled: Bool
    }

    /// VIDIOC_QUERYCTRL for `id`; nil when the device has no such control.
    public func control(_ id: UInt32) throws(CaptureError) -> ControlInfo? {
        var query = v4l2_queryctrl()
        query.id = id
        do { try ioctl(cv4l2_VIDIOC_QUERYCTRL(), "VIDIOC_QUERYCTRL", &query) } catch .ioctl(_, _, .invalidArgument) { return nil }
        return ControlInfo(
            id: id, name: cString(query.name), minimum: Int(query.minimum), maximum: Int(query.maximum),
            defaultValue: Int(query.default_value), isDisabled: query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) != 0)
    }

    public func setControl(_ id: UInt32, to value: Int) throws(CaptureError) {
        var control = v4l2_control(id: id, value: Int32(value))
        try ioctl(cv4l2_VIDIOC_S_CTRL(), "VIDIOC_S_CTRL", &control)
    }
}

/// A fixed-size C char array (imported as a tuple) as a String.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
}
