import Foundation
import Diagnostics
import Testing
import Pipeline

/// `PipelineError.Code`: how a code travels, and the set of codes the modules declare, read from
/// their `*ErrorCodes.swift` files: dotted lowercase names, each declared once, each meaning one
/// failure, each thrown somewhere, and the same set as the table in docs/architecture.md.
@Suite("PipelineError codes")
struct ErrorCodeTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func anErrorTravelsWithItsCode() throws {
        let error = PipelineError(.invalidInput, code: .inputInvalidText, at: Location(file: "data/items.csv", line: 3, column: 7),
                                  stage: "csv", "invalid UTF-8 bytes FF", sourceLine: "Milk,\u{FFFD}")
        let data = try JSONEncoder().encode(error)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["code"] as? String == "input.invalid-text")
        let decoded = try JSONDecoder().decode(PipelineError.self, from: data)
        #expect(decoded.code == .inputInvalidText)
        #expect(decoded.kind == .invalidInput)
        #expect(decoded.location == error.location)
        #expect(decoded.description == error.description)
    }

    @Test func anErrorWithoutACodeDoesNotDecode() throws {
        let json = Data(#"{"kind": "io", "stage": "model", "message": "no model"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PipelineError.self, from: json) }
    }

    @Test func aCodeIsItsDottedName() throws {
        let code = PipelineError.Code("store.locked")
        #expect(code.description == "store.locked")
        #expect(String(decoding: try JSONEncoder().encode([code]), as: UTF8.self) == #"["store.locked"]"#)
        #expect(try JSONDecoder().decode([PipelineError.Code].self, from: Data(#"["store.locked"]"#.utf8)) == [code])
    }

    /// Users read the message; the code stays out of it.
    @Test func theDescriptionLeavesTheCodeOut() {
        let error = PipelineError(.invalidPipeline, code: .pipelineUnknownKey, at: Location(file: "p.yaml", line: 2, column: 3),
                                  stage: "pipeline", "unknown key 'nmae'")
        #expect(error.description == "p.yaml:2:3: error: pipeline: unknown key 'nmae'")
    }

    /// One declared code: its constant, its dotted name, its doc comment and where it is declared.
    struct Declared {
        var constant: String
        var name: String
        var doc: String
        var file: String
    }

    static func declaredCodes() throws -> [Declared] {
        let sources = repository.appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
            .filter { $0.lastPathComponent.hasSuffix("ErrorCodes.swift") }
        let declaration = #/^\s*public static let (\w+) = Self\("([^"]*)"\)\s*$/#
        var codes: [Declared] = []
        for file in files {
            var doc = ""
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                let text = line.trimmingCharacters(in: .whitespaces)
                if let match = line.wholeMatch(of: declaration) {
                    codes.append(Declared(constant: String(match.1), name: String(match.2), doc: doc,
                                          file: file.lastPathComponent))
                }
                doc = text.hasPrefix("///") ? String(text.dropFirst(3)).trimmingCharacters(in: .whitespaces) : ""
            }
        }
        return codes
    }

    @Test func codesAreDottedLowercaseNamesDeclaredOnce() throws {
        let codes = try Self.declaredCodes()
        #expect(codes.count > 100, "the *ErrorCodes.swift files were not found under \(Self.repository.path)")
        let pattern = #/[a-z]+\.[a-z][a-z0-9]*(-[a-z0-9]+)*/#
        for code in codes {
            #expect(code.name.wholeMatch(of: pattern) != nil, "\(code.file): '\(code.name)' is no dotted lowercase name")
            #expect(!code.doc.isEmpty, "\(code.file): \(code.constant) says nowhere when it is thrown")
            // The constant spells the name: csv.unterminated-quote is csvUnterminatedQuote.
            let words = code.name.split(whereSeparator: { $0 == "." || $0 == "-" })
            #expect(code.constant.lowercased() == words.joined().lowercased(), "\(code.file): \(code.constant) for '\(code.name)'")
        }
        for (name, count) in Dictionary(grouping: codes, by: \.name).mapValues(\.count) where count > 1 {
            Issue.record("'\(name)' is declared \(count) times")
        }
        for (doc, same) in Dictionary(grouping: codes, by: \.doc) where same.count > 1 {
            Issue.record("\(same.map(\.name)) say the same: \(doc)")
        }
    }

    /// A code nothing throws would be a promise to callers that never holds.
    @Test func everyCodeIsThrownSomewhere() throws {
        let codes = try Self.declaredCodes()
        let sources = Self.repository.appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
            .filter { $0.pathExtension == "swift" && !$0.lastPathComponent.hasSuffix("ErrorCodes.swift") }
        let text = try files.map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
        for code in codes {
            #expect(text.contains(".\(code.constant)"), "\(code.name) (\(code.constant)) is thrown nowhere")
        }
    }

    @Test func theArchitectureTableListsEveryCode() throws {
        let docs = try String(contentsOf: Self.repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let row = #/^\| `([a-z0-9.-]+)` \| [^|]+ \| [^|]+ \|$/#
        let listed = docs.split(separator: "\n").compactMap { $0.wholeMatch(of: row).map { String($0.1) } }
        let declared = try Self.declaredCodes().map(\.name)
        #expect(Set(listed).subtracting(declared).sorted() == [], "listed in docs/architecture.md but declared nowhere")
        #expect(Set(declared).subtracting(listed).sorted() == [], "declared but missing from the table in docs/architecture.md")
        #expect(listed.count == Set(listed).count, "a code is listed twice")
    }
}
