import ScannerCore

/// Who may use the HTTP endpoints (docs/http.md): a pure rule set, decided per request from its
/// headers, so every rule is a unit test.
///
/// A kiosk's browser also visits other sites, and any page can make it send requests to
/// `127.0.0.1:8390`. So:
/// - a request that names another site as its `Origin` (a page elsewhere reading the event stream
///   or opening a WebSocket) is refused unless that origin is configured;
/// - without a token, the `Host` must be the address the server listens on or a loopback name, so a
///   site whose DNS name is re-pointed at 127.0.0.1 (DNS rebinding) is refused too;
/// - with a token (`http.token-file`), every request must carry it (`Authorization: Bearer …`, or
///   `?token=` where a browser cannot set headers: `EventSource`, `WebSocket`, the page's URL).
public struct HTTPAccess: Sendable, Equatable {
    public var token: String?
    /// Origins besides the server's own that may read events and open WebSockets
    /// (`scheme://host[:port]`, as browsers send them).
    public var allowedOrigins: Set<String>
    /// The host and port the server listens on.
    public var listenHost: String
    public var port: Int

    public init(token: String?, allowedOrigins: Set<String>, listenHost: String, port: Int) {
        self.token = token
        self.allowedOrigins = allowedOrigins
        self.listenHost = listenHost
        self.port = port
    }

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case unauthorized
        case foreignOrigin(String)
        case foreignHost(String)

        public var description: String {
            switch self {
            case .unauthorized: "a token is required (Authorization: Bearer TOKEN, or ?token=TOKEN)"
            case .foreignOrigin(let origin): "origin \(origin) is not allowed (http.allowed-origins)"
            case .foreignHost(let host): "host \(host) is not this server's address"
            }
        }
    }

    /// Whether a request with these headers may be served; nil: yes. `public` paths (the preview
    /// page and its script, which hold no data) need no token: a browser asks for the script
    /// without the page's `?token=`; everything they show comes from endpoints that do.
    public func refusal(host: String?, origin: String?, authorization: String?, queryToken: String?, isPublic: Bool = false) -> Refusal? {
        if let token, !isPublic {
            let offered = authorization.flatMap(Self.bearer) ?? queryToken
            guard let offered, Self.sameSecret(offered, token) else { return .unauthorized }
        } else if token == nil {
            guard let host, isOwnHost(host) else { return .foreignHost(host ?? "(none)") }
        }
        if let origin, !isAllowed(origin: origin, host: host) { return .foreignOrigin(origin) }
        return nil
    }

    /// The page's own origin (`http://` + the Host it was asked for), or a configured one. Browsers
    /// send `Origin` on cross-origin requests and on every WebSocket upgrade; tools such as curl send
    /// none, and are not a page another site controls.
    func isAllowed(origin: String, host: String?) -> Bool {
        if allowedOrigins.contains(origin) { return true }
        guard let host else { return false }
        return origin.lowercased() == "http://" + host.lowercased()
    }

    /// The listen address, or a loopback name, with the server's port (a browser omits `:80`).
    func isOwnHost(_ host: String) -> Bool {
        let lowered = host.lowercased()
        let names = [listenHost.lowercased(), "localhost", "127.0.0.1", "[::1]"]
        return names.contains { name in lowered == "\(name):\(port)" || (port == 80 && lowered == name) }
    }

    static func bearer(_ authorization: String) -> String? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }

    /// Compares without stopping at the first difference (no timing hint of how much was right).
    static func sameSecret(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return difference == 0
    }

    /// Whether `host` (a listen address) is loopback only: 127.0.0.0/8, ::1 or localhost. The rule
    /// lives in ScannerCore, where the configuration refuses the same addresses before start.
    public static func isLoopback(_ host: String) -> Bool { LoopbackAddress.isLoopback(host) }
}
