import Foundation
import Pipeline
import PipelineRun

/// The line `pipectl run` keeps updated on a terminal during long runs: the source being read,
/// records so far, records per second and the share of all input bytes read, then that the store
/// is being finished. Drawn at most four times a second from the runner's callback (every 16k
/// records), so it costs no measurable time.
final class ProgressLine {
    private let line: StatusLine
    private let started = DispatchTime.now()
    private var lastDrawn: UInt64 = 0

    /// A progress line for `run` on `stream`, or nil when the stream is not a terminal (CI logs
    /// and pipes get no progress line).
    init?(run: PipelineRun, on stream: Terminal.Stream = Terminal.standardError) {
        guard let line = StatusLine(on: stream) else { return nil }
        self.line = line
        run.progress = { [weak self] progress in self?.update(progress) }
        run.status = { [weak line] text in
            if let text { line?.show(text) } else { line?.clear() }
        }
    }

    private func update(_ progress: PipelineRun.Progress) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDrawn >= 250_000_000 else { return }
        lastDrawn = now
        let seconds = Double(now - started.uptimeNanoseconds) / 1e9
        let percent = Int(Double(progress.bytesRead) * 100 / Double(max(1, progress.bytesTotal)))
        let rate = seconds > 0 ? Int(Double(progress.records) / seconds) : 0
        line.show("\(progress.sourceName): \(progress.records.formatted()) records, \(rate.formatted())/s, \(percent)% of input")
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
