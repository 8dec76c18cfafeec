import CMosquitto
import Foundation

/// Why libmosquitto said no.
public struct MQTTError: Error, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
    init(code: Int32, _ what: String) { self.init("\(what): \(String(cString: mosquitto_strerror(code)))") }
}

/// One libmosquitto client: its network loop (and reconnects, with backoff) on libmosquitto's own
/// thread, its callbacks forwarded to closures. The only type that touches `CMosquitto`.
final class MosquittoClient: @unchecked Sendable {
    /// What libmosquitto's thread reports (set before `start`, read on that thread).
    final class Callbacks {
        var connected: (_ result: Int32, _ reason: String) -> Void = { _, _ in }
        var disconnected: (_ result: Int32) -> Void = { _ in }
        var published: (_ mid: Int32) -> Void = { _ in }
    }

    let callbacks = Callbacks()
    private let handle: OpaquePointer

    private static let initialized: Void = { mosquitto_lib_init() }()

    /// `cleanSession: false`: the broker keeps the session, and libmosquitto sends again after a
    /// reconnect what the broker had not acknowledged.
    init(clientID: String, cleanSession: Bool) throws(MQTTError) {
        _ = Self.initialized
        guard let handle = mosquitto_new(clientID, cleanSession, Unmanaged.passUnretained(callbacks).toOpaque()) else {
            throw MQTTError("cannot create an MQTT client (client id '\(clientID)')")
        }
        self.handle = handle
        _ = cmosquitto_use_mqtt311(handle)
        mosquitto_connect_with_flags_callback_set(handle) { _, object, result, _ in
            let callbacks = Unmanaged<Callbacks>.fromOpaque(object!).takeUnretainedValue()
            callbacks.connected(result, String(cString: mosquitto_connack_string(result)))
        }
        mosquitto_disconnect_callback_set(handle) { _, object, result in
            Unmanaged<Callbacks>.fromOpaque(object!).takeUnretainedValue().disconnected(result)
        }
        mosquitto_publish_callback_set(handle) { _, object, mid in
            Unmanaged<Callbacks>.fromOpaque(object!).takeUnretainedValue().published(mid)
        }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    func setWill(topic: String, payload: String, qos: Int, retain: Bool) throws(MQTTError) {
        let bytes = Array(payload.utf8)
        let result = mosquitto_will_set(handle, topic, Int32(bytes.count), bytes, Int32(qos), retain)
        guard result == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(code: result, "last will") }
    }

    func setCredentials(username: String, password: String?) throws(MQTTError) {
        let result = mosquitto_username_pw_set(handle, username, password)
        guard result == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(code: result, "username") }
    }

    func setTLS(caFile: String?) throws(MQTTError) {
        // Without a CA file: the system's certificates.
        let result = mosquitto_tls_set(handle, caFile, caFile == nil ? "/etc/ssl/certs" : nil, nil, nil, nil)
        guard result == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(code: result, "TLS") }
    }

    /// Connects in the background; once connected, libmosquitto's thread reconnects after a loss
    /// (1 s, doubling up to 30 s). Returns whether the first attempt got under way: a broker that is
    /// away at start makes it fail at once, and libmosquitto does not try again by itself then
    /// (seen with 2.0.11): the caller does (`retry`).
    @discardableResult
    func start(host: String, port: Int, keepalive: Int) throws(MQTTError) -> Bool {
        mosquitto_reconnect_delay_set(handle, 1, 30, true)
        let connecting = mosquitto_connect_async(handle, host, Int32(port), Int32(keepalive)) == MOSQ_ERR_SUCCESS.rawValue
        let result = mosquitto_loop_start(handle)
        guard result == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(code: result, "network thread") }
        return connecting
    }

    /// Tries the connection again: before the first one succeeded, and in place of one the broker
    /// took but never answered (`ConnackWatch`).
    @discardableResult
    func retry() -> Bool {
        mosquitto_reconnect_async(handle) == MOSQ_ERR_SUCCESS.rawValue
    }

    /// What the disconnect callback says when libmosquitto closed the connection itself because
    /// nothing came from the broker for a keepalive (before a CONNACK: the broker never answered).
    static let keepaliveExpired: Int32 = MOSQ_ERR_KEEPALIVE.rawValue

    /// The TCP connection to the broker as it is now, as a number that differs between connections
    /// (the socket and its local port); nil when there is none or it is still being made.
    /// libmosquitto's thread may close the socket at any moment: the answer is then nil, or at worst
    /// stale for one look (`ConnackWatch` is told again a second later).
    var establishedConnection: Int? {
        let fd = mosquitto_socket(handle)
        guard fd >= 0 else { return nil }
        var peer = sockaddr_storage()
        var local = sockaddr_storage()
        var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var localLength = peerLength
        let known = withUnsafeMutablePointer(to: &peer) { peerPointer in
            withUnsafeMutablePointer(to: &local) { localPointer in
                peerPointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
                    localPointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { l in
                        // getpeername fails (ENOTCONN) while the TCP handshake is still under way.
                        getpeername(fd, p, &peerLength) == 0 && getsockname(fd, l, &localLength) == 0
                    }
                }
            }
        }
        guard known else { return nil }
        let port: UInt16
        switch Int32(local.ss_family) {
        case AF_INET:
            port = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            port = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default:
            // Not a TCP socket: the descriptor was just closed and reused by something else.
            return nil
        }
        return Int(fd) << 16 | Int(port)
    }

    /// Hands a message to libmosquitto (which keeps it until the broker acknowledges it, across
    /// reconnects); returns its message id.
    func publish(topic: String, payload: String, qos: Int, retain: Bool) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let bytes = Array(payload.utf8)
        let result = mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes, Int32(qos), retain)
        guard result == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(code: result, "publish") }
        return mid
    }

    /// Disconnects cleanly (no will) and stops the network thread.
    func stop() {
        mosquitto_disconnect(handle)
        mosquitto_loop_stop(handle, false)
    }
}
