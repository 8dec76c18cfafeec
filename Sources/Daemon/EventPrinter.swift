import Foundation
import ScannerCore
import ScannerProtocol
import Synchronization

/// Lines to a file descriptor (`--events-stdout`: standard output), in order, written by a thread of
/// its own. The event hub hands each event line over under its lock, which keeps them in order; the
/// write itself happens here, so a reader that stops reading (a full pipe, a paused terminal) holds
/// up this thread only, never the hub, the socket clients or the pipeline. Until issue #14 the hub
/// wrote under its lock.
///
/// At most `capacity` lines wait; past that a line is dropped and counted, and once the reader
/// catches up it is told, in the words a socket client that stopped reading hears
/// (`{"event":"overflow","message":"…"}`, docs/protocol.md), so it knows it missed events and memory
/// stays bounded.
public final class EventPrinter: Sendable {
    private struct State {
        var lines: [String] = []
        var dropped = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let descriptor: Int32
    public let capacity: Int

    public init(descriptor: Int32 = STDOUT_FILENO, capacity: Int = 10_000) {
        self.descriptor = descriptor
        self.capacity = max(1, capacity)
        let thread = Thread { [self] in drain() }
        thread.name = "scannerd-stdout"
        thread.start()
    }

    /// Queues `line` (a newline is added); never blocks.
    public func print(_ line: String) {
        let queued = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            guard s.lines.count < capacity else {
                s.dropped += 1
                return false
            }
            s.lines.append(line)
            return true
        }
        if queued { ready.signal() }
    }

    /// Writes what is queued, then stops the thread (the end of a run). Blocks until then.
    public func finish() {
        state.withLock { $0.closed = true }
        ready.signal()
        done.wait()
    }

    private func drain() {
        while true {
            ready.wait()
            let (lines, dropped, closed) = state.withLock { s -> ([String], Int, Bool) in
                defer {
                    s.lines = []
                    s.dropped = 0
                }
                return (s.lines, s.dropped, s.closed)
            }
            var text = lines.map { $0 + "\n" }.joined()
            if dropped > 0 {
                let message = "\(dropped) event line(s) dropped: more than \(capacity) were waiting for standard output"
                text += EventLine(.overflow(message: message)).encoded() + "\n"
            }
            write(text)
            if closed && state.withLock({ $0.lines.isEmpty && $0.dropped == 0 }) {
                done.signal()
                return
            }
        }
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return  // the reader is gone (EPIPE): nothing more can be said there
            }
            bytes = bytes.dropFirst(n)
        }
    }
}
