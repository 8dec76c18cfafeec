import Foundation
import ScannerCore

/// A request as a client sends it (docs/protocol.md): encoded with `JSONEncoder`, one line each.
public enum ClientRequest: Encodable, Sendable, Equatable {
    case ping
    case items
    case stats
    /// Only the item kinds, symbologies and content types named (nil: all of that dimension).
    case subscribe(kinds: [String]? = nil, symbologies: [String]? = nil, contentTypes: [String]? = nil)
    case set(Change)
    /// `path` nil: the photo comes back in the reply (base64); otherwise the daemon writes it there.
    case capture(annotate: Bool, path: String? = nil, overwrite: Bool = false)

    /// What a `set` changes; nil fields stay as they are.
    public struct Change: Sendable, Equatable {
        public enum Region: Sendable, Equatable {
            /// The whole frame (`"roi": null`).
            case full
            case rect(x: Double, y: Double, width: Double, height: Double)
        }
        public var roi: Region?
        public var quality: String?
        public var types: [String]?
        public var single: Bool?

        public init(roi: Region? = nil, quality: String? = nil, types: [String]? = nil, single: Bool? = nil) {
            self.roi = roi
            self.quality = quality
            self.types = types
            self.single = single
        }

        public var isEmpty: Bool { roi == nil && quality == nil && types == nil && single == nil }
    }

    public var name: String {
        switch self {
        case .ping: "ping"
        case .items: "items"
        case .stats: "stats"
        case .subscribe: "subscribe"
        case .set: "set"
        case .capture: "capture"
        }
    }

    enum Key: String, CodingKey {
        case request, kinds, symbologies, contentTypes, roi, quality, types, single, annotate, path, overwrite
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(name, forKey: .request)
        switch self {
        case .ping, .items, .stats: break
        case .subscribe(let kinds, let symbologies, let contentTypes):
            try c.encodeIfPresent(kinds, forKey: .kinds)
            try c.encodeIfPresent(symbologies, forKey: .symbologies)
            try c.encodeIfPresent(contentTypes, forKey: .contentTypes)
        case .set(let change):
            switch change.roi {
            case nil: break
            case .full?: try c.encodeNil(forKey: .roi)
            case .rect(let x, let y, let width, let height)?: try c.encode([x, y, width, height], forKey: .roi)
            }
            try c.encodeIfPresent(change.quality, forKey: .quality)
            try c.encodeIfPresent(change.types, forKey: .types)
            try c.encodeIfPresent(change.single, forKey: .single)
        case .capture(let annotate, let path, let overwrite):
            try c.encode(annotate, forKey: .annotate)
            try c.encodeIfPresent(path, forKey: .path)
            if overwrite { try c.encode(true, forKey: .overwrite) }
        }
    }

    /// The request as one line of JSON (keys sorted, so the same request is the same line).
    public func line() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, numbers, booleans and lists of them cannot fail.
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
