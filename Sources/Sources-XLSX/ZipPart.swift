import Foundation
import Diagnostics
import Pipeline
import ZIPFoundation

/// Where a part's packed bytes lie in the archive, for reading them with bounds of our own.
///
/// ZIPFoundation 0.9.20 reads a deflated entry past its end, and when the file ends before the
/// deflate stream does (a damaged or cut workbook) its loop asks for more forever: found by the
/// fuzzer (`fuzz-regressions/xlsx/timeout-*`). Its inflater is used with a provider that hands
/// out the entry's bytes only, and says so when they run out.
struct ZipPart: Sendable {
    let path: String
    let dataOffset: UInt64
    let packedSize: UInt64
    /// As the archive's directory says: progress only, never trusted as a limit.
    let inflatedSize: UInt64
    let isDeflated: Bool
    let checksum: UInt32

    /// Limits on every part, against zip bombs: its size inflated, and how much larger than
    /// packed it may be. A real sheet packs 5-30 times; a bomb thousands.
    static let largestPart: Int64 = 4 << 30
    static let largestRatio: Int64 = 200

    /// The local header offset of every entry, by name, from the archive's central directory
    /// (ZIPFoundation keeps it to itself).
    static func localHeaders(of url: URL) throws -> [String: UInt64] {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        // The end record is 22 bytes and a comment of at most 65,535.
        let tailLength = min(size, 22 + 65_535)
        try handle.seek(toOffset: size - tailLength)
        let tail = [UInt8](try handle.read(upToCount: Int(tailLength)) ?? Data())
        guard let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: { tail.uint32(at: $0) == 0x0605_4B50 }) else {
            return [:]
        }
        var directoryOffset = UInt64(tail.uint32(at: end + 16))
        var directorySize = UInt64(tail.uint32(at: end + 12))
        if directoryOffset == 0xFFFF_FFFF || directorySize == 0xFFFF_FFFF, end >= 20, tail.uint32(at: end - 20) == 0x0706_4B50 {
            // ZIP64: the locator before the end record points at the ZIP64 end record.
            try handle.seek(toOffset: tail.uint64(at: end - 12))
            let record = [UInt8](try handle.read(upToCount: 56) ?? Data())
            guard record.count == 56, record.uint32(at: 0) == 0x0606_4B50 else { return [:] }
            directorySize = record.uint64(at: 40)
            directoryOffset = record.uint64(at: 48)
        }
        guard directoryOffset < size, directorySize <= size - directoryOffset else { return [:] }
        try handle.seek(toOffset: directoryOffset)
        let directory = [UInt8](try handle.read(upToCount: Int(directorySize)) ?? Data())
        var offsets: [String: UInt64] = [:]
        var at = 0
        while at + 46 <= directory.count, directory.uint32(at: at) == 0x0201_4B50 {
            let nameLength = Int(directory.uint16(at: at + 28)), extraLength = Int(directory.uint16(at: at + 30))
            let commentLength = Int(directory.uint16(at: at + 32))
            guard at + 46 + nameLength + extraLength <= directory.count else { break }
            let name = String(decoding: directory[at + 46 ..< at + 46 + nameLength], as: UTF8.self)
            var offset = UInt64(directory.uint32(at: at + 42))
            if offset == 0xFFFF_FFFF {
                // In the ZIP64 extra field, after the sizes that are 0xFFFFFFFF in the record.
                var extra = at + 46 + nameLength
                let extraEnd = extra + extraLength
                while extra + 4 <= extraEnd {
                    let id = directory.uint16(at: extra), length = Int(directory.uint16(at: extra + 2))
                    if id == 1 {
                        var field = extra + 4
                        if directory.uint32(at: at + 24) == 0xFFFF_FFFF { field += 8 }
                        if directory.uint32(at: at + 20) == 0xFFFF_FFFF { field += 8 }
                        if field + 8 <= min(extraEnd, extra + 4 + length) { offset = directory.uint64(at: field) }
                    }
                    extra += 4 + length
                }
            }
            offsets[name] = offset
            at += 46 + nameLength + extraLength + commentLength
        }
        return offsets
    }

    /// The part of `entry`, whose local header is at `headerOffset`.
    init(entry: Entry, headerOffset: UInt64, in url: URL, displayPath: String) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: headerOffset)
        let header = [UInt8](try handle.read(upToCount: 30) ?? Data())
        guard header.count == 30, header.uint32(at: 0) == 0x0403_4B50 else {
            throw XLSXWorkbook.failure(displayPath, .xlsxDamaged,
                                       "the part '\(entry.path)' cannot be found where the archive says: is the workbook damaged?")
        }
        path = entry.path
        dataOffset = headerOffset + 30 + UInt64(header.uint16(at: 26)) + UInt64(header.uint16(at: 28))
        packedSize = entry.compressedSize
        inflatedSize = entry.uncompressedSize
        isDeflated = entry.isCompressed
        checksum = entry.checksum
    }

    /// Hands the part's inflated bytes to `consume` in chunks of 256 KB at most (a sheet of 200 MB
    /// is 800 of them), counting them: a part that inflates past `largestPart`, or `largestRatio`
    /// times its packed size, stops; so does one whose checksum does not match, at its end.
    func unpack(from url: URL, displayPath: String, _ consume: (Data) throws -> Void) throws {
        func fail(_ code: PipelineError.Code, _ message: String) -> PipelineError { XLSXWorkbook.failure(displayPath, code, message) }
        let limit = min(Self.largestPart, max(Int64(clamping: packedSize).multipliedReportingOverflow(by: Self.largestRatio).partialValue, 1 << 20))
        var total: Int64 = 0
        var check = CRC32()
        do {
            try inflate(from: url, displayPath: displayPath, chunkSize: 1 << 18) { chunk in
                total += Int64(chunk.count)
                if total > limit {
                    throw fail(.xlsxPartTooLarge,
                               "the part '\(path)' inflates to more than \(limit >> 20) MB (\(Self.largestRatio) times its packed size): "
                                   + "refused as a zip bomb")
                }
                chunk.withUnsafeBytes { check.update($0) }
                try consume(chunk)
            }
        } catch let error as PipelineError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw fail(.xlsxDamaged, "the part '\(path)' cannot be unpacked (\(error)): is the workbook damaged?")
        }
        #if !FUZZING  // where mutated bytes must reach the parsers
        guard check.value == checksum else {
            throw fail(.xlsxDamaged, "the part '\(path)' is damaged: its checksum does not match its contents")
        }
        #endif
    }

    /// Hands the part's inflated bytes to `consume`, `chunkSize` at a time at most.
    private func inflate(from url: URL, displayPath: String, chunkSize: Int, _ consume: (Data) throws -> Void) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: dataOffset)
        var given: UInt64 = 0
        func next(_ wanted: Int) throws -> Data {
            let count = Int(min(UInt64(wanted), packedSize - given))
            let data = count == 0 ? Data() : try handle.read(upToCount: count) ?? Data()
            guard !data.isEmpty else {
                throw XLSXWorkbook.failure(displayPath, .xlsxDamaged,
                                           "the part '\(path)' ends before its packed data does: is the workbook complete?")
            }
            given += UInt64(data.count)
            return data
        }
        if isDeflated {
            _ = try Data.decompress(size: Int64(packedSize), bufferSize: chunkSize, skipCRC32: true, provider: { _, wanted in
                var data = try next(wanted)
                #if !canImport(Darwin)
                // zlib is told a whole buffer came (0.9.20 sets avail_in before it asks): padded with
                // zeros, a short last chunk cannot let it read past the data.
                if data.count < wanted { data.append(Data(count: wanted - data.count)) }
                #endif
                return data
            }, consumer: consume)
        } else {
            while given < packedSize { try consume(next(chunkSize)) }
        }
    }
}

private extension [UInt8] {
    func uint16(at offset: Int) -> UInt16 {
        offset + 2 <= count ? UInt16(self[offset]) | UInt16(self[offset + 1]) << 8 : 0
    }

    func uint32(at offset: Int) -> UInt32 {
        offset + 4 <= count ? UInt32(uint16(at: offset)) | UInt32(uint16(at: offset + 2)) << 16 : 0
    }

    func uint64(at offset: Int) -> UInt64 {
        offset + 8 <= count ? UInt64(uint32(at: offset)) | UInt64(uint32(at: offset + 4)) << 32 : 0
    }
}
