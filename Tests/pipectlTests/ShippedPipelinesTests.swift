import Foundation
import Pipeline
import SQLite
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
        ("pipelines/recipes.yaml", []), ("pipelines/recipes-photos.yaml", []), ("pipelines/swiftdata/books.yaml", []),
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

    /// TN2350's large default data: a store of the model's Content configuration with photos, the
    /// one over 128 KB kept as Core Data keeps it, checked by inspect against the configuration.
    @Test("the photos example writes its configuration's store, one photo in external storage")
    func photosExample() throws {
        let ws = try Workspace()
        let run = try ws.run("run", "pipelines/recipes-photos.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("files loaded: Recipe.photo 3 (151,739 bytes)"), "\(run.stdout)")
        let store = try ws.store("build/RecipeBook.sqlite")
        let rows = try store.rows("SELECT ZNAME, hex(substr(ZPHOTO, 1, 1)), length(ZPHOTO) FROM ZRECIPE ORDER BY Z_PK")
        #expect(rows == [[.text("Shakshuka"), .text("01"), .integer(3114)], [.text("Red lentil dal"), .text("01"), .integer(3099)],
                         [.text("Pancakes"), .text("02"), .integer(38)], [.text("Toast"), .text(""), .null]])
        // 0x02, the file's UUID and a NUL: the file holds the photo's bytes.
        let name = try #require(try store.scalar("SELECT CAST(substr(ZPHOTO, 2, 36) AS TEXT) FROM ZRECIPE WHERE ZNAME = 'Pancakes'"))
        #expect(try ws.bytes("build/.RecipeBook_SUPPORT/_EXTERNAL_DATA/\(name.displayText)")
                    == ws.bytes("pipelines/data/photos/pancakes.png"))
        #expect(try store.scalar("SELECT count(*) FROM ZNOTE") == .integer(0))
        let inspect = try ws.run("inspect", "build/RecipeBook.sqlite", "--model", "pipelines/model/RecipeBook.xcdatamodeld",
                                 "--configuration", "Content")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        #expect(inspect.stdout.contains("rows: every row is as Core Data writes it for this model"), "\(inspect.stdout)")
    }
}
