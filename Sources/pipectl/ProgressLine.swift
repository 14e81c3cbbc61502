import Foundation
import Pipeline

/// The line `pipectl run` keeps updated on a terminal during long runs: the source being read,
/// records so far, records per second and the share of all input bytes read, then that the store
/// is being finished. Drawn at most four times a second from the runner's callback (every 16k
/// records), so it costs no measurable time.
final class ProgressLine {
    private let line: StatusLine
    private let log: ImportLog
    /// Bytes of each source's input, and of the sources before it.
    private let sizes: [Int64]
    private let total: Int64
    private let started = DispatchTime.now()
    private var lastDrawn: UInt64 = 0

    /// A progress line for `runner` on `stream`, or nil when the stream is not a terminal (CI logs
    /// and pipes get no progress line).
    init?(runner: Runner, on stream: Terminal.Stream = Terminal.standardError) {
        guard let line = StatusLine(on: stream) else { return nil }
        self.line = line
        log = runner.log
        sizes = runner.pipeline.sources.map { source in
            ((try? FileManager.default.attributesOfItem(atPath: source.reader.input.url.path)[.size]) as? NSNumber)?.int64Value ?? 0
        }
        total = max(1, sizes.reduce(0, +))
        runner.progress = { [weak self] source, bytesRead in self?.update(source: source, bytesRead: bytesRead) }
        let store = Terminal.display(runner.pipeline.store.path)
        runner.finishing = { [weak line] in line?.show("finishing \(store): indexes and checks") }
    }

    private func update(source: Int, bytesRead: Int64) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDrawn >= 250_000_000 else { return }
        lastDrawn = now
        let records = log.sources.reduce(0) { $0 + $1.read }
        let seconds = Double(now - started.uptimeNanoseconds) / 1e9
        let done = sizes.prefix(source).reduce(0, +) + min(bytesRead, sizes[source])
        let percent = Int(Double(done) * 100 / Double(total))
        let rate = seconds > 0 ? Int(Double(records) / seconds) : 0
        line.show("\(log.sourceNames[source]): \(records.formatted()) records, \(rate.formatted())/s, \(percent)% of input")
    }

    /// Erases the line, so that what is printed next starts on a clean line.
    func clear() {
        line.clear()
    }
}

/// One line of status on a terminal, redrawn in place and erased once done; nil elsewhere.
final class StatusLine {
    private let stream: Terminal.Stream
    private var drawn = false

    init?(on stream: Terminal.Stream = Terminal.standardError) {
        guard stream.isTerminal else { return nil }
        self.stream = stream
    }

    func show(_ text: String) {
        // Carriage return and erase-line: the line is redrawn in place.
        stream.tell("\r\u{1B}[K" + text)
        drawn = true
    }

    /// Erases the line, so that what is printed next starts on a clean line.
    func clear() {
        guard drawn else { return }
        stream.tell("\r\u{1B}[K")
        drawn = false
    }
}
