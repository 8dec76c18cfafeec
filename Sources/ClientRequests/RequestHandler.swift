import Events
import Foundation
import Logging
import ScannerCore
import ScannerProtocol

/// What a client may do beyond watching, as its transport establishes it (the socket from the
/// peer's credentials, HTTP from its token).
public struct Rights: Sendable, Equatable {
    /// `set`, `pause`, `resume`: change what the pipeline recognizes, or whether it does.
    public var mayControl: Bool
    /// `capture` with a `path`: have the daemon write a file with its own rights.
    public var mayWriteFiles: Bool

    public init(mayControl: Bool, mayWriteFiles: Bool) {
        self.mayControl = mayControl
        self.mayWriteFiles = mayWriteFiles
    }

    /// Watching and `items`, `stats`, `subscribe`, `capture` into the reply.
    public static let watch = Rights(mayControl: false, mayWriteFiles: false)
}

/// Answers the protocol's requests (docs/protocol.md) for every transport alike — the Unix socket,
/// and WebSocket clients over HTTP — against the event hub and the daemon's controls.
public final class RequestHandler: Sendable {
    let hub: EventHub
    let logger: Logger
    let stats: @Sendable () -> StatsReply
    let configure: @Sendable (ConfigChange) async -> Result<Event.Configuration, Refusal>
    let capture: @Sendable (_ content: PhotoContent) async -> Result<CapturedPhoto, Refusal>
    let pause: @Sendable (_ paused: Bool) -> Result<Void, Refusal>

    /// A photo for a `capture` request: JPEG bytes and the frame's size.
    public struct CapturedPhoto: Sendable {
        public var jpeg: Data
        public var width: Int
        public var height: Int
        public init(jpeg: Data, width: Int, height: Int) {
            self.jpeg = jpeg
            self.width = width
            self.height = height
        }
    }

    /// Why the daemon did not do what was asked (a `set` it cannot apply, no frame for `capture`).
    public struct Refusal: Error, Sendable {
        public var message: String
        public init(_ message: String) { self.message = message }
    }

    /// - Parameters:
    ///   - stats: the `stats` reply's figures beyond the event hub's (the source, the stages, MQTT).
    ///   - configure: applies a `set` request to the pipeline and returns the configuration now in
    ///     force; it announces that to every client (the `config` event).
    ///   - capture: the next frame as JPEG, the current items drawn on it or the document held up in
    ///     it straightened, as asked.
    ///   - pause: pauses (true) or resumes recognition; the pipeline announces it (`paused`, `resumed`).
    public init(
        hub: EventHub, logger: Logger,
        stats: @escaping @Sendable () -> StatsReply = { StatsReply() },
        configure: @escaping @Sendable (ConfigChange) async -> Result<Event.Configuration, Refusal> = { _ in
            .failure(Refusal("this daemon cannot be reconfigured"))
        },
        capture: @escaping @Sendable (_ content: PhotoContent) async -> Result<CapturedPhoto, Refusal> = { _ in
            .failure(Refusal("this daemon has no camera to take a photo with"))
        },
        pause: @escaping @Sendable (_ paused: Bool) -> Result<Void, Refusal> = { _ in
            .failure(Refusal("this daemon cannot pause"))
        }
    ) {
        self.hub = hub
        self.logger = logger
        self.stats = stats
        self.configure = configure
        self.capture = capture
        self.pause = pause
    }

    /// The newest frame as JPEG, as asked (`capture`, `/snapshot.jpg`, `/document.jpg`).
    public func photo(_ content: PhotoContent) async -> Result<CapturedPhoto, Refusal> { await capture(content) }

    /// The reply to one request line from the hub's subscriber `subscriber`.
    /// - Parameter client: names the client in the log (a uid, an address).
    public func answer(_ line: String, subscriber: Int, rights: Rights, client: String = "?") async -> String {
        let (echo, parsed) = Request.parse(line)
        switch parsed {
        case .failure(let failure):
            return Reply.error(echo, code: failure.code, message: failure.message)
        case .success(.ping):
            return Reply.ok(echo)
        case .success(.items):
            return Reply.ok(echo, [("items", .array(hub.items.map { Event.Item($0).json }))])
        case .success(.stats):
            var figures = stats()
            figures.events = StatsReply.Events(
                items: hub.items.count, clients: hub.subscriberCount, overflows: hub.overflows, published: hub.published,
                queuedBytes: hub.queuedBytes)
            return Reply.ok(echo, figures.fields)
        case .success(.subscribe(let filter)):
            hub.setFilter(filter, for: subscriber)
            return Reply.ok(echo)
        case .success(.set(let change)):
            guard rights.mayControl else {
                return Reply.error(echo, code: .accessDenied, message: "this user may watch but not change the daemon's settings")
            }
            switch await configure(change) {
            case .success(let applied):
                // What this request changed, not the whole configuration (the `config` event has it); a
                // client may `set` in a loop, so the daemon rate-limits these lines too.
                let changed = change.wireKeys
                var metadata: Logger.Metadata = ["client": .string(client)]
                for (key, value) in applied.fields where changed.contains(key) { metadata[key] = .string(value.serialized()) }
                logger.notice("configuration changed", metadata: metadata)
                return Reply.ok(echo, applied.fields)
            case .failure(let refusal):
                return Reply.error(echo, code: .refused, message: refusal.message)
            }
        case .success(.pause):
            return setPaused(true, echo, rights: rights, client: client)
        case .success(.resume):
            return setPaused(false, echo, rights: rights, client: client)
        case .success(.capture(let path, let content, let overwrite)):
            // Writing a file with the daemon's rights is for privileged clients only; base64 in the
            // reply is for anybody let in.
            if path != nil && !rights.mayWriteFiles {
                return Reply.error(
                    echo, code: .accessDenied, message: "only root, the daemon's user and control users may have the daemon write files")
            }
            switch await capture(content) {
            case .failure(let refusal):
                return Reply.error(echo, code: .unavailable, message: refusal.message)
            case .success(let photo):
                let size: [(String, JSONValue)] = [
                    ("width", .integer(photo.width)), ("height", .integer(photo.height)), ("bytes", .integer(photo.jpeg.count)),
                ]
                guard let path else {
                    return Reply.ok(echo, size + [("jpeg", .string(photo.jpeg.base64EncodedString()))])
                }
                do throws(PhotoFile.Failure) {
                    try PhotoFile.write(photo.jpeg, to: path, overwrite: overwrite)
                } catch {
                    logger.warning("photo not written", metadata: ["reason": "\(error)", "client": "\(client)"])
                    return Reply.error(echo, code: error.code, message: error.description)
                }
                logger.info("photo written", metadata: ["path": "\(path)", "bytes": "\(photo.jpeg.count)"])
                return Reply.ok(echo, [("path", .string(path))] + size)
            }
        }
    }

    private func setPaused(_ paused: Bool, _ echo: Request.Echo, rights: Rights, client: String) -> String {
        guard rights.mayControl else {
            return Reply.error(echo, code: .accessDenied, message: "this user may watch but not pause or resume recognition")
        }
        switch pause(paused) {
        case .success:
            logger.notice(paused ? "recognition paused" : "recognition resumed", metadata: ["client": "\(client)"])
            return Reply.ok(echo, [("recognition", .string(paused ? "paused" : "running"))])
        case .failure(let refusal):
            return Reply.error(echo, code: .refused, message: refusal.message)
        }
    }
}
