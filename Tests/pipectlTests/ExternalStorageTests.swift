import CoreDataFormat
import Foundation
import Pipeline
import Testing
import SQLite

/// Core Data's external storage (issue 37): a Binary attribute that allows it keeps a small value
/// inline after the marker 0x01, and a large one in `.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>`
/// beside the store, the column holding 0x02, the UUID and a NUL. Read back with SQL and from disk.
@Suite struct ExternalStorageTests {
    static let small: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x01, 0x02, 0xFF]
    /// Over the 128 KB threshold: 200,000 bytes of a fixed pattern.
    static let large: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }

    static let model = FileTransformTests.model.replacingOccurrences(
        of: #"attributeType="Binary"/>"#, with: #"attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>"#)

    func workspace(layout: String = "coredata", large: [UInt8] = large) throws -> Workspace {
        let ws = try Workspace()
        try ws.write(Self.model, to: "pipelines/model/Fruit.xcdatamodel/contents")
        try ws.write(FileTransformTests.pipeline(layout: layout), to: "pipelines/fruit.yaml")
        try ws.write("name,photo\nApple,apple.png\nMelon,melon.png\nPear,\n", to: "pipelines/data/fruit.csv")
        try FileManager.default.createDirectory(at: ws.pipelines.appendingPathComponent("images"), withIntermediateDirectories: true)
        try Data(Self.small).write(to: ws.pipelines.appendingPathComponent("images/apple.png"))
        try Data(large).write(to: ws.pipelines.appendingPathComponent("images/melon.png"))
        return ws
    }

    static let external = "build/.Fruit_SUPPORT/_EXTERNAL_DATA"

    func files(_ ws: Workspace) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: ws.root.appendingPathComponent(Self.external).path).sorted()
    }

    /// The UUID a column refers to, checking the reference's bytes: 0x02, 36 ASCII characters, NUL.
    func reference(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        guard case .binary(let bytes) = value else { Issue.record("not a blob: \(value)", sourceLocation: sourceLocation); return "" }
        #expect(bytes.count == 38 && bytes.first == 0x02 && bytes.last == 0x00, "\(bytes)", sourceLocation: sourceLocation)
        let name = String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
        #expect(UUID(uuidString: name)?.uuidString == name, "an upper-case UUID: \(name)", sourceLocation: sourceLocation)
        return name
    }

    @Test("a small value inline after 0x01, a large one in a file the column names; the same files every run")
    func inlineAndExternal() throws {
        let ws = try workspace()
        let run = try ws.run("run", "pipelines/fruit.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("files loaded: Fruit.photo 2 (200,012 bytes)\n"), "\(run.stdout)")
        let rows = try ws.store("build/Fruit.sqlite").rows("SELECT ZNAME, ZPHOTO FROM ZFRUIT ORDER BY ZNAME")
        #expect(rows[0] == [.text("Apple"), .binary([0x01] + Self.small)])
        #expect(rows[2] == [.text("Pear"), .null])
        let name = try reference(rows[1][1])
        #expect(try files(ws) == [name])
        #expect(try ws.bytes(Self.external + "/" + name) == Data(Self.large))
        // The staging folder is gone.
        let left = try FileManager.default.contentsOfDirectory(atPath: ws.build.path).filter { $0.contains("pipectl-external") }
        #expect(left.isEmpty, "\(left)")

        // Again from scratch: byte for byte the same store and file.
        let store = try ws.bytes("build/Fruit.sqlite")
        try FileManager.default.removeItem(at: ws.build)
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        #expect(try ws.bytes("build/Fruit.sqlite") == store)
        #expect(try files(ws) == [name])
    }

    @Test("a new photo replaces the old file; a failed run leaves the store and its files as they were")
    func replacedAndFailed() throws {
        let ws = try workspace()
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        let first = try files(ws)
        // Another large photo: its own file, the old one removed once the new store is in place.
        let other = Self.large.map { $0 ^ 0x5A }
        try Data(other).write(to: ws.pipelines.appendingPathComponent("images/melon.png"))
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        let second = try files(ws)
        #expect(second.count == 1 && second != first)
        let melon = try ws.store("build/Fruit.sqlite").scalar("SELECT ZPHOTO FROM ZFRUIT WHERE ZNAME = 'Melon'")
        #expect(try reference(try #require(melon)) == second[0])
        #expect(try ws.bytes(Self.external + "/" + second[0]) == Data(other))

        // A run that fails (a missing photo under on_reject: fail) after writing a third photo's file.
        let store = try ws.bytes("build/Fruit.sqlite")
        try Data(Self.large).write(to: ws.pipelines.appendingPathComponent("images/melon.png"))
        try ws.write(FileTransformTests.pipeline(onReject: "fail"), to: "pipelines/fruit.yaml")
        try ws.write("name,photo\nApple,apple.png\nMelon,melon.png\nQuince,quince.png\n", to: "pipelines/data/fruit.csv")
        let failed = try ws.run("run", "-q", "pipelines/fruit.yaml")
        #expect(failed.status == 67, "\(failed.stderr)")
        #expect(try ws.bytes("build/Fruit.sqlite") == store)
        #expect(try files(ws) == second)
        #expect(try ws.bytes(Self.external + "/" + second[0]) == Data(other))
    }

    @Test("diff shows the values, not Core Data's markers: an inline value's bytes, an external one's file")
    func diffShowsValues() throws {
        let ws = try workspace()
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        try FileManager.default.copyItem(at: ws.build.appendingPathComponent("Fruit.sqlite"), to: ws.build.appendingPathComponent("old.sqlite"))
        let old = try files(ws)[0]
        try Data(Self.small + [7]).write(to: ws.pipelines.appendingPathComponent("images/apple.png"))
        try Data(Self.large.map { $0 ^ 0x5A }).write(to: ws.pipelines.appendingPathComponent("images/melon.png"))
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        let new = try files(ws)[0]
        let diff = try ws.run("diff", "build/old.sqlite", "build/Fruit.sqlite", "--pipeline", "pipelines/fruit.yaml")
        #expect(diff.status == 1, "\(diff.stderr)")
        #expect(diff.stdout == """
            Fruit (by name): 0 added, 0 removed, 2 changed, 1 unchanged
            ~ Fruit name=Apple: photo <12 bytes> -> <13 bytes>
            ~ Fruit name=Melon: photo <bytes in _EXTERNAL_DATA/\(old)> -> <bytes in _EXTERNAL_DATA/\(new)>

            """, "\(diff.stdout)")
    }

    @Test("the plain layout keeps every value inline, as it is, without a marker")
    func plainLayoutInline() throws {
        let ws = try workspace(layout: "sqlite")
        let run = try ws.run("run", "-q", "pipelines/fruit.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ws.store("build/Fruit.sqlite").rows("SELECT name, photo FROM Fruit ORDER BY name")
                == [[.text("Apple"), .binary(Self.small)], [.text("Melon"), .binary(Self.large)], [.text("Pear"), .null]])
        #expect(!ws.exists("build/.Fruit_SUPPORT"))
    }

    @Test("the marker decodes: inline bytes, or the file's name with or without its NUL")
    func decoding() {
        #expect(CoreDataExternalData.decode([0x01, 7, 8]) == .inline([7, 8]))
        let name = "0B1AB72C-5A5C-8688-9E4E-C94BD60F4870"
        #expect(CoreDataExternalData.decode(CoreDataExternalData.reference(name)) == .external(name))
        #expect(CoreDataExternalData.decode([0x02] + Array(name.utf8)) == .external(name))
        #expect(CoreDataExternalData.decode([0x03, 1]) == nil)
        #expect(CoreDataExternalData.decode([0x02] + Array("../etc/passwd".utf8)) == nil)
    }

    /// What a trial on Apple's Landmarks tutorial data taught (docs/coredata.md, "External storage"):
    /// a JSON export names each picture as an asset catalog does, `<name>.imageset/<name>@2x.jpg`,
    /// which a `template` builds before `file` reads it; a photo of exactly 128 KB stays inline
    /// (its column then holds 131,073 bytes), one byte more goes to a file.
    @Test("photos named as an asset catalog names them, either side of the 128 KB threshold")
    func assetCatalogAtTheThreshold() throws {
        let ws = try Workspace()
        try ws.write(Self.model, to: "pipelines/model/Fruit.xcdatamodel/contents")
        try ws.write("""
            version: 1
            name: fruit
            store: { path: ../build/Fruit.sqlite, layout: coredata, model: model/Fruit.xcdatamodel }
            entities:
              Fruit: { unique: name }
            sources:
              - name: fruit
                read: { json: data/fruit.json }
                transform:
                  - template: { field: photo, value: "{imageName}.imageset/{imageName}@2x.jpg" }
                  - file: { fields: [photo], folder: Assets.xcassets }
                load:
                  Fruit: { name: name, photo: photo }

            """, to: "pipelines/fruit.yaml")
        try ws.write(#"[{"name": "Fig", "imageName": "fig"}, {"name": "Kiwi", "imageName": "kiwi"}]"#, to: "pipelines/data/fruit.json")
        let sizes = ["fig": 128 * 1024, "kiwi": 128 * 1024 + 1]
        for (name, size) in sizes {
            let folder = ws.pipelines.appendingPathComponent("Assets.xcassets/\(name).imageset")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(Self.large.prefix(size)).write(to: folder.appendingPathComponent("\(name)@2x.jpg"))
        }
        let run = try ws.run("run", "pipelines/fruit.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try ws.store("build/Fruit.sqlite").rows("SELECT ZNAME, ZPHOTO FROM ZFRUIT ORDER BY ZNAME")
        #expect(rows.count == 2)
        #expect(rows.first?[1] == .binary([0x01] + Self.large.prefix(128 * 1024)), "Fig's photo inline")
        let name = try reference(rows[1][1])
        #expect(try files(ws) == [name])
        #expect(try ws.bytes(Self.external + "/" + name) == Data(Self.large.prefix(128 * 1024 + 1)))
        let model = try ws.run("model", "pipelines/model/Fruit.xcdatamodel")
        #expect(model.stdout.contains("  photo: Binary, optional, external storage allowed\n"), "\(model.stdout)")
    }
}
