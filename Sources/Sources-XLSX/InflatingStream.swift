import Foundation

/// A part of a workbook inflated on a thread of its own and handed over in chunks: the sheet's
/// parser reads while the next chunks are inflated (a 1M-row sheet is 200 MB of XML, about a
/// second of inflating), and the sheet never touches the disk.
///
/// The thread reads the archive with a file handle of its own (`ZipPart`): a ZIPFoundation
/// `Archive` is not for two threads.
final class InflatingStream: @unchecked Sendable {
    // @unchecked: `chunks`, `finished`, `failure` and `cancelled` are read and written under
    // `condition` only; the thread's archive is its own.
    private let condition = NSCondition()
    private var chunks: [Data] = []
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    /// Chunks of 256 KB inflated ahead of the parser, at most: memory stays at 2 MB.
    static let capacity = 8

    init(url: URL, part: ZipPart, displayPath: String) {
        let thread = Thread { [self] in
            do {
                try part.unpack(from: url, displayPath: displayPath) { try put($0) }
                finish(nil)
            } catch {
                finish(error)
            }
        }
        thread.name = "pipectl inflate"
        thread.start()
    }

    /// The next chunk, or nil at the end; throws what stopped the inflating, after the chunks
    /// inflated before it.
    func next() throws -> Data? {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty && !finished { condition.wait() }
        if !chunks.isEmpty {
            condition.broadcast()
            return chunks.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// Whether the thread is done: at the end of the part, stopped by an error, or cancelled.
    var hasFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return finished
    }

    /// Stops the thread at its next chunk (the parser is done with the sheet, or gave up on it).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    private func put(_ chunk: Data) throws {
        guard !chunk.isEmpty else { return }  // an empty chunk is how `next` says the part has ended
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= Self.capacity && !cancelled { condition.wait() }
        if cancelled { throw CancellationError() }
        chunks.append(chunk)
        condition.broadcast()
    }

    private func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }
}
