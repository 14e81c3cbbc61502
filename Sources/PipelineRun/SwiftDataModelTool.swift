import Diagnostics
import Foundation
import Pipeline

/// `pipectl-swiftdata`, the `@Model` reader: an executable of its own, so that pipectl itself
/// builds without swift-syntax. pipectl runs it and reads the model from its answer.
///
/// Found, in this order: `PIPECTL_SWIFTDATA` naming it, beside pipectl (as `swift build` and the
/// release archive place it; beside a symlink or its target), then on `PATH`.
enum SwiftDataModelTool {
    static let name = "pipectl-swiftdata"

    static func read(_ urls: [URL], schema: String? = nil) throws -> StoreModel {
        let sources = urls.map(\.path)
        guard let tool = locate() else {
            throw PipelineError(.invalidPipeline, code: .modelReaderMissing, at: Location(file: sources.first ?? ""), stage: "model", """
                reading a SwiftData app's @Model source needs \(name), which is not beside pipectl nor on PATH: \
                build it with `swift build -c release --product \(name)` (or set PIPECTL_SWIFTDATA to it)
                """)
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = (schema.map { ["--schema", $0] } ?? []) + sources
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw PipelineError(.io, code: .modelReaderCannotStart, at: Location(file: tool.path), stage: "model",
                                "cannot start the @Model reader: \(error.localizedDescription)")
        }
        // Its error output is read on a thread of its own, so that neither pipe fills and blocks it.
        let errorText = ErrorText()
        let reading = Thread { errorText.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        reading.start()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let said = errorText.wait()
        if process.terminationReason == .uncaughtSignal {
            throw PipelineError(.invalidPipeline, code: .modelReaderCrashed, at: Location(file: sources.first ?? ""), stage: "model",
                                "the @Model reader (\(tool.path)) stopped on signal \(process.terminationStatus) reading this source" + said)
        }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let decoded = try? decoder.decode(ModelReaderAnswer.self, from: answer) else {
            throw PipelineError(.io, code: .modelReaderNoAnswer, at: Location(file: tool.path), stage: "model",
                                "the @Model reader exited with \(process.terminationStatus) without a model; is it the \(name) of this pipectl?" + said)
        }
        switch decoded {
        case .model(let model): return model
        case .failure(let error): throw error
        }
    }

    /// The reader's path, or nil when there is none to run.
    static func locate() -> URL? {
        let environment = ProcessInfo.processInfo.environment
        if let named = environment["PIPECTL_SWIFTDATA"], !named.isEmpty { return URL(fileURLWithPath: named) }
        var folders: [URL] = []
        if let ownPath = Bundle.main.executableURL {
            folders.append(ownPath.deletingLastPathComponent())
            folders.append(ownPath.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        folders += (environment["PATH"] ?? "").split(separator: ":").map { URL(fileURLWithPath: String($0)) }
        return folders.lazy.map { $0.appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The reader's error output, handed from the thread that reads it.
    private final class ErrorText: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var data = Data()

        func set(_ data: Data) {
            self.data = data
            done.signal()
        }

        /// What it said, as a clause to append to a message ("" when it said nothing).
        func wait() -> String {
            done.wait()
            let text = String(decoding: data.prefix(2000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? "" : ": " + text
        }
    }
}
