import Capture
import CoreMetrics
import Events
import Foundation
import Pipeline
import Prometheus
import ScannerProtocol
import Synchronization

/// `GET /metrics`: the daemon's figures as Prometheus text (swift-prometheus).
///
/// Two kinds of figure: the stages time themselves through swift-metrics (`PipelineMetrics`,
/// capture's decode), which `bootstrap` points at this registry, as histograms; and the totals the
/// daemon already keeps (frames by outcome, reconnects, events, overflows) and its current state
/// (items, clients), brought up to date when scraped: a counter goes up by what its total grew
/// since the last scrape, so it only ever rises, as Prometheus requires.
public final class MetricsExport: Sendable {
    public let registry: PrometheusCollectorRegistry

    /// Frames by outcome, then the other totals, each with the value last exported.
    private let frames: [(outcome: String, counter: Prometheus.Counter)]
    private let reconnects: Prometheus.Counter
    private let events: Prometheus.Counter
    private let overflows: Prometheus.Counter
    private let items: Prometheus.Gauge
    private let clients: Prometheus.Gauge
    private let mqttDropped: Prometheus.Counter
    private let mqttQueued: Prometheus.Gauge
    private let mqttConnected: Prometheus.Gauge
    private let textModelsFailed: Prometheus.Gauge
    private let exported = Mutex<[String: Int]>([:])

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        frames = ["decoded", "dropped", "idle_skipped", "corrupt"].map { outcome in
            (
                outcome,
                registry.makeCounter(
                    descriptor: Self.name(
                        "frames", unit: "total",
                        help: "Frames the source took: decoded, dropped for a newer one, skipped undecoded while the scene is still, corrupt"),
                    labels: [("outcome", outcome)])
            )
        }
        reconnects = registry.makeCounter(
            descriptor: Self.name("reconnects", unit: "total", help: "Times the camera was opened again after it went away"))
        events = registry.makeCounter(descriptor: Self.name("events", unit: "total", help: "Events published (every seq)"))
        overflows = registry.makeCounter(descriptor: Self.name("client_overflows", unit: "total", help: "Clients cut off for falling too far behind"))
        items = registry.makeGauge(descriptor: Self.name("items", unit: "", help: "Items in view now"))
        clients = registry.makeGauge(descriptor: Self.name("clients", unit: "", help: "Clients subscribed now (socket, event streams, WebSockets)"))
        mqttDropped = registry.makeCounter(
            descriptor: Self.name("mqtt_dropped", unit: "total", help: "Events dropped from the MQTT queue while the broker was away"))
        mqttQueued = registry.makeGauge(descriptor: Self.name("mqtt_queued", unit: "", help: "Events waiting for the MQTT broker"))
        mqttConnected = registry.makeGauge(descriptor: Self.name("mqtt_connected", unit: "", help: "1 while connected to the MQTT broker"))
        textModelsFailed = registry.makeGauge(
            descriptor: Self.name(
                "text_models_failed", unit: "", help: "1 while the text networks beside the binary did not load (text read by Tesseract)"))
    }

    /// Every series is `scannerd_<name>[_<unit>]`.
    private static func name(_ name: String, unit: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "scannerd", metricName: name, unitName: unit, helpText: help)
    }

    /// Points swift-metrics at `registry` for the whole process (once: `scannerd run`), with
    /// histogram buckets for stage durations from 1 ms to 2 s.
    public static func bootstrap(_ registry: PrometheusCollectorRegistry) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000].map { Duration.milliseconds($0) }
        MetricsSystem.bootstrap(factory)
    }

    /// The exposition text, with the totals brought up to date.
    public func render(source: SourceStatistics, hub: EventHub, mqtt: StatsReply.MQTT? = nil, textModelFailure: String? = nil) -> String {
        let totals: [(String, Prometheus.Counter, Int)] =
            zip(frames, [source.delivered, source.dropped, source.idleSkipped, source.corrupt])
            .map { ("frames." + $0.0.outcome, $0.0.counter, $0.1) }
            + [("reconnects", reconnects, source.reconnects), ("events", events, hub.published), ("overflows", overflows, hub.overflows)]
            + (mqtt.map { [("mqtt.dropped", mqttDropped, $0.dropped)] } ?? [])
        if let mqtt {
            mqttQueued.set(Double(mqtt.queued))
            mqttConnected.set(Double(mqtt.connected ? 1 : 0))
        }
        exported.withLock { last in
            for (key, counter, total) in totals {
                // A total that went down (a new source object after a restart of the stage) starts
                // over from there; the counter keeps what it had.
                let grown = total - last[key, default: 0]
                if grown > 0 { counter.increment(by: Int64(grown)) }
                last[key] = total
            }
        }
        textModelsFailed.set(Double(textModelFailure == nil ? 0 : 1))
        items.set(Double(hub.items.count))
        clients.set(Double(hub.subscriberCount))
        return registry.emitToString()
    }
}
