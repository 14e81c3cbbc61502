#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A temporary file, appended to through a buffer and read back at offsets. It is unlinked as
/// soon as it is created: it goes when it is closed, however the run ends.
public final class SpillFile {
    private let descriptor: Int32
    /// What the file holds, for errors: "the unique keys".
    private let contents: String
    private let stage: String
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 20
    /// Bytes appended so far, written out or not.
    public private(set) var size: Int64 = 0

    /// `contents` and `stage` name the file in errors ("cannot write the temporary file of the unique keys").
    public init(directory: URL, holding contents: String, stage: String) throws {
        self.contents = contents
        self.stage = stage
        var template = Array((directory.path + "/.pipectl-temporary-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw PipelineError(.io, stage: stage, "cannot create a temporary file for \(contents) in '\(directory.path)': "
                                    + String(cString: strerror(errno)))
        }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        buffer.reserveCapacity(bufferLimit)
    }

    deinit {
        close(descriptor)
    }

    public func append<T: FixedWidthInteger>(_ value: T) throws {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
        size += Int64(MemoryLayout<T>.size)
        if buffer.count >= bufferLimit { try flush() }
    }

    public func append(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        size += Int64(bytes.count)
        if buffer.count >= bufferLimit { try flush() }
    }

    public func flush() throws {
        try buffer.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(descriptor, raw.baseAddress! + done, raw.count - done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw error("write") }
                done += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Reads `count` bytes at `offset` into the start of `target` (grown as needed), fewer at the
    /// end of the file; returns how many were read.
    @discardableResult
    public func read(_ count: Int, at offset: Int64, into target: inout [UInt8]) throws -> Int {
        if !buffer.isEmpty { try flush() }
        if target.count < count { target = [UInt8](repeating: 0, count: max(count, 2 * target.count)) }
        return try target.withUnsafeMutableBytes { raw in
            var done = 0
            while done < count {
                let n = pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n < 0, errno == EINTR { continue }
                guard n >= 0 else { throw error("read") }
                if n == 0 { break }
                done += n
            }
            return done
        }
    }

    private func error(_ what: String) -> PipelineError {
        PipelineError(.io, stage: stage, "cannot \(what) the temporary file of \(contents): \(String(cString: strerror(errno)))")
    }
}
