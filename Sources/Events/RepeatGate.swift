import Foundation
import ScannerCore
import ScannerProtocol
import Tracking

/// One subscriber's `repeat` rule (`RepeatPolicy`) as a pure state machine: item events and the time
/// in, "deliver it or not" out. An item that comes back is the same kind, symbology or content type
/// and payload added again. When its `added` is held back, so are its `updated` and `removed`: the
/// subscriber's view stays consistent — it never hears of an item it was not told about.
public struct RepeatGate: Sendable {
    public let policy: RepeatPolicy
    /// Items this subscriber was not told about.
    private var withheld: Set<UUID> = []
    /// `oncePerSession`: what it has been told about.
    private var told: Set<String> = []
    /// `after`: when each payload was last removed (told or not).
    private var lastRemoved: [String: Double] = [:]
    /// Payloads remembered per subscriber, at most: a kiosk sees far fewer in a session, and a
    /// connection open for months must not grow without bound. The oldest are forgotten first.
    static let memory = 4096
    private var order: [String] = []

    /// `present`: the items the subscriber already has (its `hello`, or what was live when it set
    /// this rule): they count as told.
    public init(policy: RepeatPolicy, present: [TrackedItem] = []) {
        self.policy = policy
        if policy == .oncePerSession { for item in present { remember(Self.key(item.item), told: true) } }
    }

    /// What makes two sightings the same thing.
    static func key(_ item: RecognizedItem) -> String {
        [item.kind.rawValue, item.symbology?.rawValue ?? "", item.contentType?.rawValue ?? "", item.payload].joined(separator: "\u{1F}")
    }

    /// Whether the subscriber gets `action`, at `time` (seconds, monotonic).
    public mutating func admits(_ action: TrackerAction, at time: Double) -> Bool {
        let id = action.item.id
        let key = Self.key(action.item.item)
        switch action {
        case .added:
            let again: Bool
            switch policy {
            case .always: again = false
            case .oncePerSession: again = told.contains(key)
            case .after(let seconds): again = lastRemoved[key].map { time - $0 < seconds } ?? false
            }
            if again {
                withheld.insert(id)
                return false
            }
            if policy == .oncePerSession { remember(key, told: true) }
            return true
        case .updated:
            return !withheld.contains(id)
        case .removed:
            if case .after = policy { remember(key, removedAt: time) }
            return withheld.remove(id) == nil
        }
    }

    private mutating func remember(_ key: String, told isTold: Bool = false, removedAt: Double? = nil) {
        if !told.contains(key) && lastRemoved[key] == nil {
            order.append(key)
            if order.count > Self.memory {
                let oldest = order.removeFirst()
                told.remove(oldest)
                lastRemoved[oldest] = nil
            }
        }
        if isTold { told.insert(key) }
        if let removedAt { lastRemoved[key] = removedAt }
    }
}
