/// Whether a listen address reaches this host only: the rule that decides whether HTTP needs a token
/// (`http.listen` other than loopback needs `http.token-file`). The configuration refuses the
/// combination before start (`check-config` and `run` alike); the HTTP server keeps its own check.
public enum LoopbackAddress {
    /// 127.0.0.0/8, ::1 (bracketed or not) or localhost.
    public static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "[::1]" { return true }
        let octets = h.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
