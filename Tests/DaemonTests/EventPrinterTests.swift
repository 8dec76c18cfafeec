import Daemon
import Foundation
import Testing

/// `--events-stdout` is written by a thread of its own: in order, never holding up the caller, and
/// bounded when nobody reads (issue #14: the hub used to write under its lock).
@Suite(.timeLimit(.minutes(1))) struct EventPrinterTests {
    /// A pipe: (read end, write end).
    func pipe() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        try #require(Glibc.pipe(&fds) == 0)
        return (fds[0], fds[1])
    }

    func readAll(_ fd: Int32) -> String {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            data.append(contentsOf: buffer[..<n])
        }
        return String(decoding: data, as: UTF8.self)
    }

    @Test func linesComeOutInOrder() throws {
        let (r, w) = try pipe()
        defer { close(r) }
        let printer = EventPrinter(descriptor: w)
        for i in 0..<500 { printer.print("{\"seq\":\(i)}") }
        printer.finish()
        close(w)
        #expect(readAll(r) == (0..<500).map { "{\"seq\":\($0)}\n" }.joined())
    }

    /// Nobody reads: `print` still returns at once, lines past the capacity are dropped, and the
    /// reader is told how many when it reads again.
    @Test func aReaderThatStopsHoldsUpNothingAndIsToldWhatItMissed() throws {
        let (r, w) = try pipe()
        defer { close(r) }
        // Fill the pipe so that the printer's first write blocks.
        let flags = fcntl(w, F_GETFL)
        _ = fcntl(w, F_SETFL, flags | O_NONBLOCK)
        let block = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        var filled = 0
        while true {
            let n = write(w, block, block.count)
            if n <= 0 { break }
            filled += n
        }
        _ = fcntl(w, F_SETFL, flags)
        let printer = EventPrinter(descriptor: w, capacity: 5)
        let start = ContinuousClock.now
        for i in 0..<1000 { printer.print("line \(i)") }
        #expect(ContinuousClock.now - start < .seconds(5), "print never waits for the reader")
        // Read everything while the printer finishes.
        nonisolated(unsafe) var output = ""
        let readDone = DispatchSemaphore(value: 0)
        let thread = Thread {
            output = self.readAll(r)
            readDone.signal()
        }
        thread.start()
        printer.finish()
        close(w)
        readDone.wait()
        let lines = output.dropFirst(filled).split(separator: "\n").map(String.init)
        // Every line printed comes out, in order, or is counted on an overflow line that follows it.
        let overflows = lines.filter { $0.hasPrefix(#"{"event":"overflow","message":""#) }
        let printed = lines.filter { $0.hasPrefix("line ") }
        #expect(overflows.count + printed.count == lines.count, "nothing else: \(lines.prefix(3))")
        #expect(!overflows.isEmpty && printed.count < 1000, "lines were dropped")
        #expect(printed == printed.sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }, "in order")
        let dropped = overflows.map { Int($0.split(separator: "\"")[7].split(separator: " ")[0]) ?? -1000 }.reduce(0, +)
        #expect(dropped + printed.count == 1000, "every line printed or counted: \(dropped) + \(printed.count)")
    }
}
