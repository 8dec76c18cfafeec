import COpenVINO
import Foundation

/// Why a network could not be loaded or run: one line each, naming the file.
public enum InferenceError: Error, Equatable, CustomStringConvertible {
    /// The file does not exist.
    case missing(path: String)
    /// The file is there but is not what it must be (too large, not a regular file, not a model the runtime reads).
    case unusable(path: String, reason: String)
    /// The input handed over does not fit the model, or the runtime failed while running it.
    case failed(reason: String)

    public var description: String {
        switch self {
        case .missing(let path): "\(path): no such file or directory (make models fetches the models)"
        case .unusable(let path, let reason): "\(path): \(reason)"
        case .failed(let reason): "inference: \(reason)"
        }
    }
}

/// One network on OpenVINO's CPU runtime (Sources/COpenVINO, the PyPI wheel's C API): an ONNX file read,
/// its input shape fixed where the caller knows it, compiled for a given number of threads — or that
/// compiled network taken from the cache of networks compiled before (`NetworkCache`).
///
/// Not thread-safe: one call at a time (use one per thread).
public final class NetworkModel {
    public let path: String
    private let model: OpaquePointer

    /// The runtime's version, e.g. `2026.4.1-22982-…`.
    public static var runtimeVersion: String { String(cString: cov_version()) }

    /// Where the compiled network came from.
    public enum Origin: Sendable, Equatable {
        /// Compiled from the model file; `refused` says why the cache's entry was not taken, if there
        /// was one.
        case compiled(refused: String?)
        /// Imported from the compiled-network cache (`NetworkCache`).
        case cache
    }

    public let origin: Origin

    /// Reads and compiles the model at `path`, or takes it compiled from `cache`. `inputShape` fixes
    /// the first input's shape: one entry per dimension, nil where it stays dynamic (a line's width).
    /// The file is checked to be a regular file of at most `maximumBytes` before the runtime parses it.
    public init(
        path: String, inputShape: [Int?], threads: Int = 1, maximumBytes: Int, cache: NetworkCache? = NetworkCache.process
    ) throws(InferenceError) {
        try ModelFile.check(path, limit: maximumBytes)
        guard (1...8).contains(inputShape.count), inputShape.allSatisfy({ $0 == nil || $0! > 0 }) else {
            throw .failed(reason: "bad input shape \(inputShape)")
        }
        let dims = inputShape.map { Int64($0 ?? -1) }
        let threads = max(1, threads)
        var error = [CChar](repeating: 0, count: 512)
        let identity = cache == nil ? nil : try? NetworkCache.identity(path: path, shape: dims, threads: threads, runtime: Self.runtimeVersion)
        var refused: String?
        var usable = true
        if let cache, let identity {
            switch cache.lookup(identity) {
            case .missing: break
            case .unusable(let problem):
                usable = false
                NetworkCache.logOnce(.warning, "\(cache.directory): not used, the directory is \(problem); the networks are compiled on each start")
            case .refused(let reason): refused = reason
            case .found(let payload):
                let imported = payload.withUnsafeBytes { cov_import($0.baseAddress, $0.count, Int32(threads), &error, Int32(error.count)) }
                if let imported {
                    self.path = path
                    self.model = imported
                    self.origin = .cache
                    return
                }
                refused = Self.message(error, otherwise: "the runtime did not import it")
            }
            if let refused {
                NetworkCache.log.warning("\(cache.path(of: identity)): refused (\(refused)); compiling \(path) again")
            }
        }
        guard let model = cov_load(path, dims, Int32(dims.count), Int32(threads), &error, Int32(error.count)) else {
            throw .unusable(path: path, reason: Self.message(error, otherwise: "OpenVINO could not load it"))
        }
        self.path = path
        self.model = model
        self.origin = .compiled(refused: refused)
        if let cache, let identity, usable {
            let problem = cache.store(identity) { file in
                var error = [CChar](repeating: 0, count: 512)
                return cov_export(model, file, &error, Int32(error.count)) == 0 ? nil : Self.message(error, otherwise: "export failed")
            }
            if let problem { NetworkCache.logOnce(.notice, "\(cache.directory): compiled networks are not kept (\(problem))") }
        }
    }

    deinit { cov_free(model) }

    /// Checks that the runtime reads the model at `path` (a regular file of at most `maximumBytes`),
    /// without compiling it: for a caller that compiles it later, once per input size.
    public static func check(path: String, maximumBytes: Int) throws(InferenceError) {
        try ModelFile.check(path, limit: maximumBytes)
        var error = [CChar](repeating: 0, count: 512)
        guard cov_check(path, &error, Int32(error.count)) == 0 else {
            throw .unusable(path: path, reason: message(error, otherwise: "OpenVINO could not read it"))
        }
    }

    /// Runs the network on `input` (row-major, of `shape`) and hands its first output to `decode`,
    /// which must not keep the buffer: it is the runtime's, valid during the call only.
    public func run<Result>(
        _ input: [Float], shape: [Int], decode: (UnsafeBufferPointer<Float>, [Int]) -> Result
    ) throws(InferenceError) -> Result {
        guard shape.reduce(1, *) == input.count, shape.allSatisfy({ $0 > 0 }) else {
            throw .failed(reason: "\(input.count) values do not fill a tensor of shape \(shape)")
        }
        var error = [CChar](repeating: 0, count: 512)
        let dims = shape.map(Int64.init)
        var result: Result?
        let status = withoutActuallyEscaping(decode) { decode in
            var sink = Sink { values, shape in result = decode(values, shape) }
            return input.withUnsafeBufferPointer { values in
                withUnsafeMutablePointer(to: &sink) { context in
                    cov_infer(
                        model, values.baseAddress, dims, Int32(dims.count),
                        { context, values, count, shape, rank in
                            guard let context, let values, let shape else { return }
                            let dims = (0..<Int(rank)).map { Int(shape[$0]) }
                            context.assumingMemoryBound(to: Sink.self).pointee.take(UnsafeBufferPointer(start: values, count: count), dims)
                        }, context, &error, Int32(error.count))
                }
            }
        }
        guard status == 0, let result else {
            throw .failed(reason: Self.message(error, otherwise: "the model gave no output"))
        }
        return result
    }

    /// What the C callback hands the output to (a C function pointer captures nothing).
    private struct Sink {
        let take: (UnsafeBufferPointer<Float>, [Int]) -> Void
    }

    static func message(_ buffer: [CChar], otherwise: String) -> String {
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? otherwise : text
    }
}

/// Checks on a file before a parser reads it.
public enum ModelFile {
    /// A regular file (a symbolic link to one is fine) of at most `limit` bytes.
    public static func check(_ path: String, limit: Int) throws(InferenceError) {
        let target = (path as NSString).resolvingSymlinksInPath
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: target) else { throw .missing(path: path) }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw .unusable(path: path, reason: "not a regular file") }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= limit else { throw .unusable(path: path, reason: "\(size) bytes, more than the \(limit) allowed") }
    }

    /// The file's bytes, checked first.
    public static func contents(of path: String, limit: Int) throws(InferenceError) -> Data {
        try check(path, limit: limit)
        guard let data = FileManager.default.contents(atPath: path) else { throw .unusable(path: path, reason: "cannot be read") }
        return data
    }
}
