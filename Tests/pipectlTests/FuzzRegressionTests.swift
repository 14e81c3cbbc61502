import Foundation
import Testing

/// Every input `scripts/fuzz` kept (`Fixtures/fuzz-regressions/<format>/`) goes through the built
/// `pipectl` again: it must end with a documented exit code, never a crash.
@Suite struct FuzzRegressionTests {
    /// A folder without cases would make the replay below pass by running nothing.
    @Test func everyFuzzTargetHasCases() throws {
        let formats = Set(try FuzzRegressions.files().map(\.format))
        #expect(formats == Set(FuzzRegressions.formats), "fuzz-regressions/ holds no case for \(Set(FuzzRegressions.formats).subtracting(formats).sorted())")
    }

    @Test(arguments: try FuzzRegressions.files())
    func replay(_ file: FuzzRegressions.File) throws {
        if file.format == "xlsx", try !Data(contentsOf: file.url).starts(with: [0x50, 0x4B]) {
            // A sheet's XML, which the target packs into a workbook: replayed by the target itself.
            let root = try BadInput.scratchFolder("fuzz-xlsx")
            defer { try? FileManager.default.removeItem(at: root) }
            let result = try Pipectl.runProduct("FuzzXLSX", [file.url.path], in: root)
            #expect(result.status == 0 && result.stdout.hasSuffix(": ok\n"), "xlsx/\(file.name): exit \(result.status)\n\(result.stderr)")
            return
        }
        if file.format == "model" {
            // A @Model source: read by `pipectl model` as a SwiftData app's model.
            let root = try BadInput.scratchFolder("fuzz-model")
            defer { try? FileManager.default.removeItem(at: root) }
            try FileManager.default.copyItem(at: file.url, to: root.appendingPathComponent("Item.swift"))
            let result = try Pipectl.runGuarded(["model", "Item.swift"], in: root)
            #expect(FuzzRegressions.documentedExitCodes.contains(result.status), "model/\(file.name): exit \(result.status)\n\(result.stderr)")
            return
        }
        for template in file.templates {
            let root = try BadInput.scratchFolder("fuzz-\(file.format)")
            defer { try? FileManager.default.removeItem(at: root) }
            let arguments: [String]
            if file.format == "pipeline" {
                try FileManager.default.copyItem(at: file.url, to: root.appendingPathComponent("pipeline.yaml"))
                arguments = ["run", "pipeline.yaml"]
            } else {
                let input = "input.\(template)"
                try FileManager.default.copyItem(at: file.url, to: root.appendingPathComponent(input))
                try BadInput.template(template, input: input).write(to: root.appendingPathComponent("pipeline.yaml"))
                arguments = ["run", "-q", "pipeline.yaml"]
            }
            // Guarded: a kept file may be a memory bomb (libFuzzer's -rss_limit_mb and -malloc_limit_mb keep those too).
            let result = try Pipectl.runGuarded(arguments, in: root)
            #expect(FuzzRegressions.documentedExitCodes.contains(result.status),
                    "\(file.format)/\(file.name) as \(template): exit \(result.status)\n\(result.stderr)")
        }
    }
}

enum FuzzRegressions {
    static let folder = Pipectl.repository.appendingPathComponent("Tests/pipectlTests/Fixtures/fuzz-regressions")
    /// README.md's table, less 64 (usage) and 68 (inspect only).
    static let documentedExitCodes: Set<Int32> = [0, 65, 66, 67, 74]
    /// A folder per fuzz target (`scripts/fuzz`).
    static let formats = ["csv", "xml", "json", "plist", "xlsx", "pipeline", "model"]

    struct File: Sendable, CustomTestStringConvertible {
        var format: String
        var url: URL
        var name: String { url.lastPathComponent }
        var testDescription: String { "\(format)/\(name)" }
        /// The bad-input templates the file runs through; the JSON target feeds both JSON readers.
        var templates: [String] { format == "json" ? ["json", "jsonl"] : [format] }
    }

    static func files() throws -> [File] {
        let manager = FileManager.default
        var files: [File] = []
        for format in formats {
            let sub = folder.appendingPathComponent(format)
            guard let names = try? manager.contentsOfDirectory(atPath: sub.path) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                files.append(File(format: format, url: sub.appendingPathComponent(name)))
            }
        }
        return files
    }
}
