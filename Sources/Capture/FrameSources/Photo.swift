import Foundation
import ScannerCore
import Synchronization

/// The newest full-resolution frame, as the source had it: the camera's own JPEG (MJPEG cameras and
/// JPEG replays, untouched), a YUYV camera's frame as it came (decoded in colour where the photo is
/// rendered, off the capture thread), or the full-size luma (GREY cameras, other image files).
public struct Photo: Sendable {
    public var jpeg: Data?
    public var luma: GrayImage?
    public var yuyv: EncodedFrame?
    public var width: Int
    public var height: Int

    public init(jpeg: Data?, luma: GrayImage?, yuyv: EncodedFrame? = nil, width: Int, height: Int) {
        self.jpeg = jpeg
        self.luma = luma
        self.yuyv = yuyv
        self.width = width
        self.height = height
    }
}

/// Photo requests waiting for the next frame. Sources check `isEmpty` per frame (an atomic load), so
/// a frame costs nothing extra unless someone asked.
final class PhotoRequests: Sendable {
    private let waiting = Mutex<[@Sendable (Photo?) -> Void]>([])
    private let count = Atomic<Int>(0)

    var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    func add(_ completion: @escaping @Sendable (Photo?) -> Void) {
        waiting.withLock { $0.append(completion) }
        count.add(1, ordering: .relaxed)
    }

    /// Hands `photo` (nil: could not be taken) to everyone waiting.
    func fulfill(_ photo: Photo?) {
        let all = waiting.withLock { list -> [@Sendable (Photo?) -> Void] in
            defer { list = [] }
            return list
        }
        count.subtract(all.count, ordering: .relaxed)
        all.forEach { $0(photo) }
    }
}
