import Foundation
import Pipeline
import Testing
import SQLite

/// The `file` transform (issue 37): files named by a field, relative to a folder, loaded into a
/// Binary attribute; every path that leaves the folder or names no loadable file rejects its
/// record at the field, and the previous store stays when the pipeline says on_reject: fail.
@Suite struct FileTransformTests {
    /// A PNG's signature and a few bytes: small, and ours.
    static let apple: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x01, 0x02, 0xFF]
    static let plum: [UInt8] = Array("plum\u{0}bytes".utf8)

    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Fruit" representedClassName="Fruit" syncable="YES" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="photo" optional="YES" attributeType="Binary"/>
            </entity>
        </model>
        """

    static func pipeline(layout: String = "coredata", onReject: String = "continue", folder: String = "images") -> String {
        """
        version: 1
        name: fruit
        on_reject: \(onReject)
        store:
          path: ../build/Fruit.sqlite
          layout: \(layout)
          model: model/Fruit.xcdatamodel
        entities:
          Fruit: { unique: name }
        sources:
          - name: fruit
            read: { csv: data/fruit.csv }
            transform:
              - file: { fields: [photo], folder: \(folder) }
            load:
              Fruit: { name: name, photo: photo }
        report: { json: ../build/fruit-report.json, xlsx: ../build/fruit-report.xlsx }

        """
    }

    /// A workspace with the fruit pipeline, its model, two image files and `rows` after the header.
    func workspace(rows: String = "Apple,apple.png\nPear,\nPlum,stone/plum.bin\n", layout: String = "coredata",
                   onReject: String = "continue") throws -> Workspace {
        let ws = try Workspace()
        try ws.write(Self.model, to: "pipelines/model/Fruit.xcdatamodel/contents")
        try ws.write(Self.pipeline(layout: layout, onReject: onReject), to: "pipelines/fruit.yaml")
        try ws.write("name,photo\n" + rows, to: "pipelines/data/fruit.csv")
        try FileManager.default.createDirectory(at: ws.pipelines.appendingPathComponent("images/stone"), withIntermediateDirectories: true)
        try Data(Self.apple).write(to: ws.pipelines.appendingPathComponent("images/apple.png"))
        try Data(Self.plum).write(to: ws.pipelines.appendingPathComponent("images/stone/plum.bin"))
        return ws
    }

    @Test("each path's file is loaded into the Binary column whole; an empty path is no value; the report counts the bytes")
    func loadsFiles() throws {
        for layout in ["coredata", "sqlite"] {
            let ws = try workspace(layout: layout)
            let run = try ws.run("run", "pipelines/fruit.yaml")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("files loaded: Fruit.photo 2 (22 bytes)\n"), "\(run.stdout)")
            let store = try ws.store("build/Fruit.sqlite")
            let table = layout == "coredata" ? "ZFRUIT" : "Fruit"
            let (name, photo) = layout == "coredata" ? ("ZNAME", "ZPHOTO") : ("name", "photo")
            #expect(try store.rows("SELECT \(name), \(photo), typeof(\(photo)) FROM \(table) ORDER BY \(name)") == [
                [.text("Apple"), .binary(Self.apple), .text("blob")],
                [.text("Pear"), .null, .text("null")],
                [.text("Plum"), .binary(Self.plum), .text("blob")],
            ])
            let report = try #require(try JSONSerialization.jsonObject(with: ws.bytes("build/fruit-report.json")) as? [String: Any])
            let loaded = try #require(report["bytesLoaded"] as? [[String: Any]])
            #expect(loaded.count == 1)
            #expect(loaded.first?["attribute"] as? String == "Fruit.photo")
            #expect(loaded.first?["values"] as? Int == 2)
            #expect(loaded.first?["bytes"] as? Int == 22)
            // The workbook's Summary sheet has the same table (its strings are inline: constant-memory mode).
            let summary = try Pipectl.runTool("unzip", ["-p", "build/fruit-report.xlsx", "xl/worksheets/sheet1.xml"], in: ws.root)
            #expect(summary.stdout.contains("Files loaded into") && summary.stdout.contains("Fruit.photo"), "\(summary.stdout.prefix(2000))")
        }
    }

    @Test("the same inputs give a byte-identical store")
    func deterministic() throws {
        let ws = try workspace()
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        let first = try ws.bytes("build/Fruit.sqlite")
        try FileManager.default.removeItem(at: ws.build.appendingPathComponent("Fruit.sqlite"))
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        #expect(try ws.bytes("build/Fruit.sqlite") == first)
    }

    @Test("a new file's bytes give the Core Data store another UUID; the same bytes, the same UUID")
    func storeUUIDFollowsTheFiles() throws {
        let ws = try workspace()
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        let first = try ws.store("build/Fruit.sqlite").scalar("SELECT Z_UUID FROM Z_METADATA")
        try Data(Self.apple + [0]).write(to: ws.pipelines.appendingPathComponent("images/apple.png"))
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        let second = try ws.store("build/Fruit.sqlite").scalar("SELECT Z_UUID FROM Z_METADATA")
        #expect(first != second)
        try Data(Self.apple).write(to: ws.pipelines.appendingPathComponent("images/apple.png"))
        #expect(try ws.run("run", "-q", "pipelines/fruit.yaml").status == 0)
        #expect(try ws.store("build/Fruit.sqlite").scalar("SELECT Z_UUID FROM Z_METADATA") == first)
    }

    /// Runs the pipeline once with good rows, then with `row` added under on_reject: fail (after
    /// `prepare`): the run fails with `message`, and the store is the first run's, byte for byte.
    func rejects(_ row: String, _ message: String, prepare: (Workspace) throws -> Void = { _ in },
                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ws = try workspace()
        let good = try ws.run("run", "-q", "pipelines/fruit.yaml")
        #expect(good.status == 0, "\(good.stderr)", sourceLocation: sourceLocation)
        let before = try ws.bytes("build/Fruit.sqlite")
        try prepare(ws)
        try ws.write(Self.pipeline(onReject: "fail"), to: "pipelines/fruit.yaml")
        try ws.write("name,photo\nApple,apple.png\n\(row)\n", to: "pipelines/data/fruit.csv")
        let run = try ws.run("run", "-q", "pipelines/fruit.yaml")
        #expect(run.status == 67, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr == message, sourceLocation: sourceLocation)
        #expect(try ws.bytes("build/Fruit.sqlite") == before, "the previous store stays", sourceLocation: sourceLocation)
    }

    /// The message of a run that on_reject: fail stops at its one rejection.
    static func failed(at location: String, _ value: String, _ reason: String) -> String {
        "pipelines/data/fruit.csv:\(location): error: file: 1 record(s) rejected and the pipeline says on_reject: fail; "
            + "first: field 'photo' value \"\(value)\": \(reason)\n"
    }

    @Test("a path that climbs out of the folder with .. rejects the record")
    func dotDot() throws {
        try rejects("Secret,../data/fruit.csv", Self.failed(at: "3:8", "../data/fruit.csv", "the path leaves pipelines/images"))
    }

    @Test("an absolute path rejects the record")
    func absolute() throws {
        try rejects("Secret,/etc/hostname", Self.failed(at: "3:8", "/etc/hostname", "an absolute path; write it relative to pipelines/images"))
    }

    @Test("a symbolic link in the folder pointing out of it rejects the record")
    func symlinkOut() throws {
        try rejects("Secret,escape.png", Self.failed(at: "3:8", "escape.png", "the path leads out of pipelines/images (through a symbolic link)"),
            prepare: { ws in
                try FileManager.default.createSymbolicLink(atPath: ws.pipelines.appendingPathComponent("images/escape.png").path,
                                                           withDestinationPath: "../data/fruit.csv")
            })
    }

    @Test("a missing file rejects the record")
    func missing() throws {
        try rejects("Quince,quince.png", Self.failed(at: "3:8", "quince.png", "no such file in pipelines/images"))
    }

    @Test("a folder or a FIFO is not a regular file: the record is rejected, nothing blocks")
    func notRegular() throws {
        try rejects("Stone,stone", Self.failed(at: "3:7", "stone", "a folder, not a regular file"))
        try rejects("Pipe,pipe.png", Self.failed(at: "3:6", "pipe.png", "a FIFO, not a regular file"),
            prepare: { ws in #expect(mkfifo(ws.pipelines.appendingPathComponent("images/pipe.png").path, 0o644) == 0) })
    }

    @Test("a file over 16 MB rejects the record without being read")
    func tooBig() throws {
        try rejects("Melon,melon.png", Self.failed(at: "3:7", "melon.png", "the file is 16777217 bytes, over the limit of 16 MB (16777216 bytes)"),
            prepare: { ws in
                // Sparse: no 16 MB written.
                let url = ws.pipelines.appendingPathComponent("images/melon.png")
                #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
                #expect(truncate(url.path, off_t(16 << 20) + 1) == 0)
            })
    }

    @Test("under on_reject: continue a rejected path is a warning at its field, and the other records load")
    func continueWarns() throws {
        let ws = try workspace(rows: "Apple,apple.png\nSecret,../data/fruit.csv\n")
        let run = try ws.run("run", "pipelines/fruit.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains(#"pipelines/data/fruit.csv:3:8: warning: record rejected: file: field 'photo' "../data/fruit.csv": the path leaves pipelines/images"#),
                "\(run.stderr)")
        #expect(try ws.store("build/Fruit.sqlite").rows("SELECT ZNAME FROM ZFRUIT ORDER BY ZNAME") == [[.text("Apple")]])
    }

    @Test("a folder that names a file is an error of the pipeline file")
    func folderIsAFile() throws {
        let ws = try workspace()
        try ws.write(Self.pipeline().replacingOccurrences(of: "folder: images", with: "folder: data/fruit.csv"), to: "pipelines/fruit.yaml")
        let run = try ws.run("run", "-q", "pipelines/fruit.yaml")
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("pipelines/fruit.yaml:14:42: error: pipeline: pipelines/data/fruit.csv is not a folder: "
                                     + "'folder' names the folder the files are in\n"), "\(run.stderr)")
        #expect(!ws.exists("build/Fruit.sqlite"))
    }

    @Test("a folder that does not exist is an error of the pipeline file")
    func missingFolder() throws {
        let ws = try workspace()
        try ws.write(Self.pipeline().replacingOccurrences(of: "folder: images", with: "folder: pictures"), to: "pipelines/fruit.yaml")
        let run = try ws.run("run", "-q", "pipelines/fruit.yaml")
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("pipelines/fruit.yaml:14:42: error: pipeline: no such folder: pipelines/pictures\n"), "\(run.stderr)")
        #expect(!ws.exists("build/Fruit.sqlite"))
    }
}
