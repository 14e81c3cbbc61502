import Foundation
import Testing

/// The pipelines under pipelines/ are what a new user runs first: each prints only the warnings
/// its file explains, so a false alarm (a field looked for in the wrong place, an empty cell
/// counted as a skip) shows up here.
@Suite struct ShippedPipelinesTests {
    static let duplicates = ["Oranges", "Toilet roll", "Milk chocolate"]

    /// Each shipped pipeline with the items its warnings name, in order.
    static let expected: [(file: String, warned: [String])] = [
        ("pipelines/grocery.yaml", duplicates), ("pipelines/grocery-sqlite.yaml", duplicates),
        ("pipelines/grocery-json.yaml", duplicates), ("pipelines/grocery-plist.yaml", duplicates),
        ("pipelines/grocery-xml.yaml", duplicates), ("pipelines/grocery-xlsx.yaml", duplicates),
        ("pipelines/recipes.yaml", []), ("pipelines/swiftdata/books.yaml", []),
    ]

    @Test("every shipped pipeline is listed here")
    func everyPipelineIsListed() throws {
        let ws = try Workspace()
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(at: ws.pipelines, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "yaml" { found.append("pipelines/" + url.path.dropFirst(ws.pipelines.path.count + 1)) }
        }
        #expect(found.sorted() == Self.expected.map(\.file).sorted())
    }

    @Test("each shipped pipeline prints only the warnings its file explains", arguments: expected.map(\.file))
    func onlyExplainedWarnings(_ file: String) throws {
        let ws = try Workspace()
        let run = try ws.run("run", file)
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.contains(": warning: ") }
        let warned = try #require(Self.expected.first { $0.file == file }).warned
        #expect(warnings.count == warned.count, "\(run.stderr)")
        for (line, name) in zip(warnings, warned) {
            #expect(line.contains("warning: Item name=\(name) was already loaded from "), "\(line)")
        }
        // Each one the file explains.
        let text = try String(decoding: ws.bytes(file), as: UTF8.self).replacingOccurrences(of: "\n# ", with: " ")
        for name in warned { #expect(text.contains(name), "\(file) does not explain the warning about \(name)") }
    }
}
