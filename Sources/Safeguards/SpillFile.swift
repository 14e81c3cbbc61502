#if canImport(Glibc)
import Diagnostics
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
    /// Appends collect here and are written out a megabyte at a time. Raw memory and fields
    /// exempt from run-time exclusivity checks: a spill writes tens of millions of small pieces,
    /// and a checked `[UInt8]` append cost more than the writing (a fifth of the key spill's time).
    @usableFromInline let buffer: UnsafeMutableRawPointer
    @usableFromInline static let bufferLimit = 1 << 20
    @usableFromInline @exclusivity(unchecked) var used = 0
    @usableFromInline @exclusivity(unchecked) var written: Int64 = 0

    /// Bytes appended so far, written out or not.
    public var size: Int64 { written + Int64(used) }

    /// `contents` and `stage` name the file in errors ("cannot write the temporary file of the unique keys").
    public init(directory: URL, holding contents: String, stage: String) throws {
        self.contents = contents
        self.stage = stage
        var template = Array((directory.path + "/.pipectl-temporary-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw PipelineError(.io, code: .tempCannotCreate, stage: stage, "cannot create a temporary file for \(contents) in '\(directory.path)': "
                                    + String(cString: strerror(errno)))
        }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        buffer = .allocate(byteCount: Self.bufferLimit, alignment: 16)
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

    public func append<T: FixedWidthInteger>(_ value: T) throws {
        try append(count: MemoryLayout<T>.size) { $0.storeBytes(of: value.littleEndian, as: T.self) }
    }

    public func append(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        try append(count: bytes.count) { target in
            if let base = bytes.baseAddress { target.copyMemory(from: base, byteCount: bytes.count) }
        }
    }

    /// Appends `count` bytes, which `write` stores at the pointer it is given (unaligned).
    @inlinable
    public func append(count: Int, _ write: (UnsafeMutableRawPointer) throws -> Void) throws {
        if used + count > Self.bufferLimit {
            try flush()
            if count > Self.bufferLimit { return try appendLarge(count: count, write) }
        }
        try write(buffer + used)
        used += count
    }

    @usableFromInline
    func appendLarge(count: Int, _ write: (UnsafeMutableRawPointer) throws -> Void) throws {
        let large = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        defer { large.deallocate() }
        try write(large)
        try writeOut(large, count: count)
    }

    public func flush() throws {
        try writeOut(buffer, count: used)
        used = 0
    }

    private func writeOut(_ bytes: UnsafeMutableRawPointer, count: Int) throws {
        var done = 0
        while done < count {
            let n = write(descriptor, bytes + done, count - done)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw error("write") }
            done += n
        }
        written += Int64(count)
    }

    /// Reads `count` bytes at `offset` into the start of `target` (grown as needed), fewer at the
    /// end of the file; returns how many were read.
    @discardableResult
    public func read(_ count: Int, at offset: Int64, into target: inout [UInt8]) throws -> Int {
        if used > 0 { try flush() }
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
        PipelineError(.io, code: .tempIOFailed, stage: stage, "cannot \(what) the temporary file of \(contents): \(String(cString: strerror(errno)))")
    }
}
