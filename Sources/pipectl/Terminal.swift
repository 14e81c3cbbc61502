import Foundation
import Diagnostics
import Pipeline
import PipelineRun

/// Standard output and error, unbuffered writes of whole strings.
enum Terminal {
    struct Stream {
        let handle: FileHandle
        let name: String

        /// Writes `text`; a full disk or a closed pipe is an I/O error (exit 74), not a crash.
        func write(_ text: String) throws(PipelineError) {
            do {
                try handle.write(contentsOf: Data(text.utf8))
            } catch {
                throw PipelineError(.io, code: .pipectlCannotWriteOutput, stage: "pipectl", "cannot write to \(name): \(SystemErrorWords.words(for: error))")
            }
        }

        /// Writes `text` where a failure has nowhere to be told (standard error, progress lines).
        func tell(_ text: String) { try? write(text) }
        var isTerminal: Bool { isatty(handle.fileDescriptor) != 0 }
    }
    static let standardOutput = Stream(handle: .standardOutput, name: "standard output")
    static let standardError = Stream(handle: .standardError, name: "standard error")

    /// `path` relative to the current directory when it lies below it, for shorter messages.
    static func display(_ url: URL) -> String { DisplayPath.of(url) }
}
