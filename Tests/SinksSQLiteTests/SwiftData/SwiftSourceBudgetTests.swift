import Foundation
import Diagnostics
import Pipeline
@testable import SwiftDataModel
import Testing

/// `SwiftSourceBudget`: a model's source nested past what SwiftParser reads in time (or without
/// overflowing the stack) is refused at the place it goes past, before it is parsed.
@Suite struct SwiftSourceBudgetTests {
    static func model(_ type: String) -> String {
        "import SwiftData\n\n@Model final class Item {\n    var name: String = \"\"\n    var grid: \(type)\n}\n"
    }

    func error(_ source: String) throws -> PipelineError {
        try #require(throws: PipelineError.self) { try SwiftDataModelReader.parse([(source, "Models/Item.swift")]) }
    }

    @Test("arrays of arrays 25 deep (29 s) and 2,000 deep (SIGSEGV) stop at the 17th '['")
    func squareBrackets() throws {
        for depth in [25, 2_000] {
            let type = String(repeating: "[", count: depth) + "Int" + String(repeating: "]", count: depth)
            let error = try error(Self.model(type))
            #expect(error.description == "Models/Item.swift:5:31: error: model: '[' nested more than 16 levels deep, "
                + "more than pipectl reads in a model's source")
            #expect(error.code == .modelTooDeep)
            #expect(error.kind == .invalidPipeline)
        }
    }

    @Test("'Int' then 50,000 '?' (SIGSEGV) stops at the 17th '?'")
    func optionalMarks() throws {
        let error = try error(Self.model("Int" + String(repeating: "?", count: 50_000)))
        #expect(error.description == "Models/Item.swift:5:34: error: model: more than 16 '?' or '!' in a row, "
            + "more than pipectl reads in a model's source")
    }

    @Test("brackets in comments and strings, and ordinary nesting, are no error")
    func ordinarySource() throws {
        let deep = String(repeating: "[", count: 40)
        let source = "import SwiftData\n\n@Model final class Item {\n    var name: String = \"\"\n}\n" + """
            // \(deep)
            /* \(deep) /* nested */ \(deep) */
            let text = "\(deep)"
            let empty = ""
            let block = \"\"\"
                \(deep) "quoted"
                \"\"\"
            let unwrapped = optional!!
            """
        let model = try SwiftDataModelReader.parse([(source, "Models/Item.swift")])
        #expect(model.entities.map(\.name) == ["Item"])
    }
}
