import EventServer
import Events
import Foundation
import Logging
import Pipeline
import ScannerClient
import ScannerCore
import ScannerProtocol
import Synchronization
import Tracking

/// Event delivery latency from the event bus to socket clients, through the real server and sockets.
enum DeliveryBenchmark {
    static func measure(subscribers: Int, events: Int = 300, interval: Int = 3) async throws -> (p50: Double, p99: Double) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scannerd-bench-delivery-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("s.sock").path
        let hub = EventHub(daemonVersion: "bench", sourceName: "bench")
        let server = EventServer(
            hub: hub, configuration: EventServerConfiguration(path: path, maximumClients: subscribers + 8), logger: Logger(label: "bench"))
        let ready = AsyncStream<Void>.makeStream()
        let task = Task { try await server.run(ready: { ready.continuation.yield() }) }
        var iterator = ready.stream.makeAsyncIterator()
        _ = await iterator.next()

        let published = Mutex([Int: UInt64]())  // seq → publish time (ns)
        let latencies = Mutex([Double]())
        let done = DispatchGroup()
        let connected = DispatchGroup()
        for _ in 0..<subscribers {
            done.enter()
            connected.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                guard let connection = try? ScannerConnection(path: path), (try? connection.readHello()) != nil else {
                    connected.leave()
                    return
                }
                connected.leave()
                var received = 0
                while received < events, let line = try? connection.readLine(timeout: 10) {
                    let now = DispatchTime.now().uptimeNanoseconds
                    guard case .integer(let seq)? = ServerLine(line)?.object["seq"] else { continue }
                    received += 1
                    if let sent = published.withLock({ $0[seq] }) {
                        latencies.withLock { $0.append(Double(now - sent) / 1e6) }
                    }
                }
            }
        }
        connected.wait()
        let item = TrackedItem(
            id: UUID(),
            item: RecognizedItem(
                kind: .barcode, symbology: .qr, payload: "https://example.com/bench", bounds: Quad(x: 0.1, y: 0.1, width: 0.2, height: 0.2),
                confidence: 1),
            firstFrame: 0, lastFrame: 0)
        for i in 0..<events {
            // The seq the hub will give this event is i + 1.
            published.withLock { $0[i + 1] = DispatchTime.now().uptimeNanoseconds }
            hub.publish(.item(.updated(item), frame: i))
            try await Task.sleep(for: .milliseconds(interval))
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                done.wait()
                continuation.resume()
            }
        }
        task.cancel()
        _ = try? await task.value
        let sorted = latencies.withLock { $0 }.sorted()
        guard !sorted.isEmpty else { return (.nan, .nan) }
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
    }

    static func render(today: String, machine: String) async throws -> String {
        var out = "<!-- delivery:begin (written by `make bench`) -->\n## Event delivery to socket clients\n\n"
        out +=
            "Measured \(today) on \(machine); release build. From `EventHub.publish` to the line read by each client over the Unix socket (clients are threads of the benchmark process, 300 events per run), ms. A camera produces at most 30 item events a second.\n\n"
        out += "| subscribers | events/s | p50 | p99 |\n|---:|---:|---:|---:|\n"
        for (n, interval) in [(1, 3), (10, 3), (100, 3), (100, 33)] {
            let (p50, p99) = try await measure(subscribers: n, interval: interval)
            out += "| \(n) | \(1000 / interval) | \(String(format: "%.2f", p50)) | \(String(format: "%.2f", p99)) |\n"
        }
        out += "<!-- delivery:end -->\n"
        return out
    }
}
