import Foundation
import SinksSQLite
import Testing
import Pipeline

/// A SwiftData app's store from its @Model source (issue 23): pipelines/swiftdata/books.yaml.
@Suite struct SwiftDataTests {
    @Test("the @Model reader is an executable of its own: pipectl without it beside it or on PATH says how to build it; a reader that crashes is an error, not a crash")
    func readerFoundBesidePipectl() throws {
        let ws = try Workspace()
        // pipectl alone in a folder, as a release binary copied without its reader.
        let alone = ws.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Pipectl.productsDirectory.appendingPathComponent("pipectl"), to: alone.appendingPathComponent("pipectl"))
        let missing = try Pipectl.runTool(alone.appendingPathComponent("pipectl").path, ["validate", "pipelines/swiftdata/books.yaml"], in: ws.root,
                                          environment: ["PATH": "/usr/bin:/bin", "PIPECTL_SWIFTDATA": ""])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("needs pipectl-swiftdata, which is not beside pipectl nor on PATH: build it with `swift build -c release --product pipectl-swiftdata`"),
                "\(missing.stderr)")
        // Found on PATH.
        let onPath = try Pipectl.runTool(alone.appendingPathComponent("pipectl").path, ["validate", "pipelines/swiftdata/books.yaml"], in: ws.root,
                                         environment: ["PATH": Pipectl.productsDirectory.path + ":/usr/bin:/bin", "PIPECTL_SWIFTDATA": ""])
        #expect(onPath.status == 0, "\(onPath.stderr)")
        // A reader that dies on a signal (here: one that kills itself) is told with the source it read.
        let crashing = ws.root.appendingPathComponent("crashing-reader")
        try Data("#!/bin/sh\nkill -SEGV $$\n".utf8).write(to: crashing)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: crashing.path)
        let crashed = try Pipectl.runTool(alone.appendingPathComponent("pipectl").path, ["validate", "pipelines/swiftdata/books.yaml"], in: ws.root,
                                          environment: ["PIPECTL_SWIFTDATA": crashing.path])
        #expect(crashed.status == 65)
        #expect(crashed.stderr.contains("error: model: the @Model reader (\(crashing.path)) stopped on signal 11 reading this source"), "\(crashed.stderr)")
    }

    @Test("a @Model source nested 2,000 deep, or 'Int' and 50,000 '?' (SIGSEGV, 139): exit 65 at the place from model, validate, run and init")
    func nestingBudgetInEveryCommand() throws {
        let ws = try Workspace()
        try ws.write("name\nMilk\n", to: "items.csv")
        try ws.write("""
            version: 1
            name: items
            store: { path: items.store, layout: coredata, model: Models }
            sources:
              - name: items
                read: { csv: items.csv }
                load: { Item: { name: name } }

            """, to: "items.yaml")
        let deep = String(repeating: "[", count: 2_000) + "Int" + String(repeating: "]", count: 2_000)
        let cases = [(deep, "Item.swift:5:31: error: model: '[' nested more than 16 levels deep, more than pipectl reads in a model's source"),
                     ("Int" + String(repeating: "?", count: 50_000),
                      "Item.swift:5:34: error: model: more than 16 '?' or '!' in a row, more than pipectl reads in a model's source")]
        for (type, message) in cases {
            try ws.write("import SwiftData\n\n@Model final class Item {\n    @Attribute(.unique) var name: String = \"\"\n    var grid: \(type)\n}\n",
                         to: "Models/Item.swift")
            for arguments in [["model", "Models"], ["validate", "items.yaml"], ["run", "-q", "items.yaml"],
                              ["init", "--model", "Models", "items.csv", "-o", "draft.yaml"]] {
                let started = Date()
                let result = try Pipectl.runGuarded(arguments, in: ws.root)
                #expect(result.status == 65, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
                #expect(Date().timeIntervalSince(started) < 10, "\(arguments)")
            }
            #expect(!ws.exists("items.store") && !ws.exists("draft.yaml"))
        }
    }

    @Test("pipelines/swiftdata: the model read from the app's @Model classes, the store inspects as a match with them")
    func exampleRunsAndMatches() throws {
        let ws = try Workspace()
        let run = try ws.run("run", "-q", "pipelines/swiftdata/books.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/default.store")
        #expect(try store.rows("""
            SELECT b.ZTITLE, b.ZPAGES, b.ZRATING, a.ZNAME FROM ZBOOK b LEFT JOIN ZAUTHOR a ON a.Z_PK = b.ZAUTHOR ORDER BY b.ZISBN
            """) == [[.text("Pride and Prejudice"), .integer(432), .double(4.3), .text("Jane Austen")],
                     [.text("Emma"), .integer(474), .double(4.0), .text("Jane Austen")],
                     [.text("Frankenstein"), .integer(166), .double(3.9), .text("Mary Shelley")],
                     [.text("Moby-Dick"), .integer(720), .null, .text("Herman Melville")]])
        // An enum with raw values: its raw value, by case name or raw value, the initial case
        // where empty; without raw values: the case's own column holds its name; a struct: a
        // column per property.
        #expect(try store.rows("SELECT ZFORMAT, ZTOREAD, ZREADING, ZFINISHED, ZNAME, ZCITY FROM ZBOOK ORDER BY ZISBN") == [
            [.text("paperback"), .null, .null, .text("finished"), .text("Penguin Classics"), .text("London")],
            [.text("hardcover"), .null, .text("reading"), .null, .text("Penguin Classics"), .text("London")],
            [.text("e-book"), .text("toRead"), .null, .null, .text("Dover"), .null],
            [.text("paperback"), .null, .null, .null, .null, .null],
        ])
        // uuid: the book's id from its key, RFC 4122 version 5 in pipectl's namespace, as
        // python3 -c "import uuid; print(uuid.uuid5(uuid.UUID('0b1ab72c-5a5c-5688-9e4e-c94bd60f4870'), '978-0141439518'))"
        // gives it; the same in the next regeneration, another for another book.
        let ids = try store.rows("SELECT hex(ZID) FROM ZBOOK ORDER BY ZISBN")
        #expect(ids.first == [.text("1FD63D0FE9B0572F89B045D789325A74")] && Set(ids.map { $0.first }).count == 4)
        #expect(try ws.run("run", "-q", "pipelines/swiftdata/books.yaml").status == 0)
        #expect(try ws.store("build/default.store").rows("SELECT hex(ZID) FROM ZBOOK ORDER BY ZISBN") == ids)
        // [String]: the split cell's list as JSON inside a keyed archive; an empty one is `[]`.
        let tags = try store.rows("SELECT ZTAGS FROM ZBOOK ORDER BY ZISBN").map { row -> String in
            guard case .binary(let bytes) = row[0],
                  let archive = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any],
                  let json = (archive["$objects"] as? [Any])?.last as? Data else { return "not an archive: \(row[0])" }
            return String(decoding: json, as: UTF8.self)
        }
        #expect(tags == [#"["classic","romance"]"#, #"["classic"]"#, #"["gothic","horror"]"#, "[]"])
        let inspect = try ws.run("inspect", "build/default.store", "--model", "pipelines/swiftdata/Models")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        #expect(inspect.stdout.contains("match: Core Data opens this store with this model without migrating"), "\(inspect.stdout)")
        // SwiftData's schema version, as its own stores carry it.
        #expect(inspect.stdout.contains("NSStoreModelVersionIdentifiers: [\"1.0.0\"]"), "\(inspect.stdout)")
    }

    @Test("pipectl model prints what it read from the source, or Xcode's contents XML that reads back the same")
    func modelCommand() throws {
        let ws = try Workspace()
        let text = try ws.run("model", "pipelines/swiftdata/Models")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Author  hash "), "\(text.stdout)")
        #expect(text.stdout.contains("  books: to-many Book, inverse author, required, cascade\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  pages: Integer 64, required, default 0\n"), "\(text.stdout)")
        let xml = try ws.run("model", "pipelines/swiftdata/Models", "--xml")
        #expect(xml.status == 0, "\(xml.stderr)")
        try ws.write(xml.stdout, to: "Library.xcdatamodel/contents")
        // The store written from the source matches the model file written from it.
        #expect(try ws.run("run", "-q", "pipelines/swiftdata/books.yaml").status == 0)
        let inspect = try ws.run("inspect", "build/default.store", "--model", "Library.xcdatamodel")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        let missing = try ws.run("model", "no/such/Models")
        #expect(missing.status != 0 && missing.stderr.contains("no such Swift source"), "\(missing.stderr)")
    }

    @Test("a to-many without inverse: each listed row holds the key of the row that lists it, as SwiftData keeps it")
    func toManyWithoutInverse() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData

            @Model final class Playlist {
                @Attribute(.unique) var name: String
                @Relationship(deleteRule: .cascade) var tracks: [Track] = []
            }

            @Model final class Track {
                var title: String
                var seconds: Int = 0
            }
            """, to: "Models/Music.swift")
        try ws.write("""
            [{"name": "Morning", "tracks": [{"title": "Intro", "seconds": 120}, {"title": "Coffee", "seconds": 95}]},
             {"name": "Night", "tracks": [{"title": "Moon", "seconds": 300}]}]
            """, to: "playlists.json")
        try ws.write("""
            version: 1
            name: music
            store: { path: music.store, layout: coredata, model: Models }
            entities:
              Playlist: { unique: name }
            sources:
              - name: playlists
                read: { json: playlists.json }
                load:
                  Playlist:
                    name: name
                    tracks: { Track: { each: tracks, title: title, seconds: seconds } }
            """, to: "music.yaml")
        let run = try ws.run("run", "-q", "music.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("music.store")
        #expect(try store.rows("SELECT t.ZTITLE, t.ZSECONDS, p.ZNAME FROM ZTRACK t JOIN ZPLAYLIST p ON p.Z_PK = t.Z1TRACKS ORDER BY t.Z_PK") == [
            [.text("Intro"), .integer(120), .text("Morning")], [.text("Coffee"), .integer(95), .text("Morning")],
            [.text("Moon"), .integer(300), .text("Night")],
        ])
        let inspect = try ws.run("inspect", "music.store", "--model", "Models")
        #expect(inspect.status == 0 && inspect.stdout.contains("match: "), "\(inspect.stdout)\(inspect.stderr)")
    }

    @Test("store: { schema: SchemaV1 } reads that VersionedSchema instead of the current one; model and inspect take --schema")
    func chosenSchema() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData

            enum SchemaV1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Note.self] }
                @Model final class Note {
                    @Attribute(.unique) var title: String
                    init(title: String) { self.title = title }
                }
            }

            enum SchemaV2: VersionedSchema {
                static var versionIdentifier: Schema.Version { .init(2, 0, 0) }
                static var models: [any PersistentModel.Type] { [Note.self] }
                @Model final class Note {
                    @Attribute(.unique) var title: String
                    var pinned: Bool = false
                    init(title: String) { self.title = title }
                }
            }
            """, to: "Models/Schemas.swift")
        try ws.write("title\nGroceries\n", to: "notes.csv")
        let pipeline = """
            version: 1
            name: notes
            store: { path: notes.store, layout: coredata, model: Models, schema: SchemaV1 }
            sources:
              - name: notes
                read: { csv: notes.csv }
                load: { Note: { title: title } }
            """
        try ws.write(pipeline, to: "notes.yaml")
        let run = try ws.run("run", "-q", "notes.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        // V1's Note: no ZPINNED column, V1's version identifier.
        #expect(try ws.store("notes.store").rows("SELECT name FROM pragma_table_info('ZNOTE') ORDER BY cid").map { $0[0] }
                    == [.text("Z_PK"), .text("Z_ENT"), .text("Z_OPT"), .text("ZTITLE")])
        let v1 = try ws.run("inspect", "notes.store", "--model", "Models", "--schema", "SchemaV1")
        #expect(v1.status == 0 && v1.stdout.contains("NSStoreModelVersionIdentifiers: [\"1.0.0\"]"), "\(v1.stdout)\(v1.stderr)")
        // Against the current schema (V2) the store is stale.
        #expect(try ws.run("inspect", "notes.store", "--model", "Models").status == 68)
        let model = try ws.run("model", "Models", "--schema", "SchemaV1")
        #expect(model.stdout.contains("read: SchemaV1, version 1.0.0: the pipeline names it (schema: SchemaV1)"), "\(model.stdout)")

        try ws.write(pipeline.replacingOccurrences(of: "schema: SchemaV1", with: "schema: SchemaV9"), to: "notes.yaml")
        let unknown = try ws.run("validate", "notes.yaml")
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("error: model: no VersionedSchema named 'SchemaV9' in the source; it declares SchemaV1, SchemaV2"), "\(unknown.stderr)")
        try ws.write(pipeline.replacingOccurrences(of: "model: Models, ", with: ""), to: "notes.yaml")
        let noSource = try ws.run("validate", "notes.yaml")
        #expect(noSource.status == 65 && noSource.stderr.contains("'schema' names a VersionedSchema of a SwiftData app's @Model source"), "\(noSource.stderr)")
    }

    @Test("initial values in the @Model source fill the rows a source leaves empty with the attribute's type, never the text they are written as")
    func initialValuesAreTyped() throws {
        let ws = try Workspace()
        try ws.write(#"""
            import Foundation
            import SwiftData

            @Model final class Exercise {
                @Attribute(.unique) var name: String
                var custom: Bool = false
                var favourite: Bool = true
                var sets: Int = 3
                var mask: Int16 = 0x1F
                var offset: Int = -2
                var weight: Double = 2.5
                var bar: Double = 20
                var price: Decimal = 0.1
                var note: String = "Tab\there \"quoted\" \u{1F3CB}"
                var since: Date = Date(timeIntervalSinceReferenceDate: 86_400)
                var epoch: Date = Date(timeIntervalSince1970: 0)
                var key: UUID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
                var link: URL = URL(string: "https://example.com/a b")!
                var blob: Data = Data()
                var maybe: Bool? = nil
            }
            """#, to: "Models/Exercise.swift")
        try ws.write("name\nSquat\n", to: "exercises.csv")
        try ws.write("""
            version: 1
            name: gym
            store: { path: gym.store, layout: coredata, model: Models }
            sources:
              - name: exercises
                read: { csv: exercises.csv }
                load: { Exercise: { name: name } }
            """, to: "gym.yaml")
        let run = try ws.run("run", "-q", "gym.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("gym.store")
        #expect(try store.rows("""
            SELECT typeof(ZCUSTOM), ZCUSTOM, typeof(ZFAVOURITE), ZFAVOURITE, ZSETS, ZMASK, ZOFFSET, typeof(ZWEIGHT), ZWEIGHT,
                   typeof(ZBAR), ZBAR, ZNOTE, ZSINCE, ZEPOCH, hex(ZKEY), ZLINK, typeof(ZBLOB), length(ZBLOB), ZMAYBE FROM ZEXERCISE
            """) == [[.text("integer"), .integer(0), .text("integer"), .integer(1), .integer(3), .integer(31), .integer(-2),
                      .text("real"), .double(2.5), .text("real"), .double(20), .text("Tab\there \"quoted\" \u{1F3CB}"),
                      .integer(86_400), .integer(-978_307_200), .text("E621E1F8C36C495A93FC0C247A3E6E5F"),
                      .text("https://example.com/a b"), .text("blob"), .integer(0), .null]])
        // A Decimal from the literal's digits (0.1, not the double nearest it).
        #expect(try store.scalar("SELECT ZPRICE FROM ZEXERCISE") == store.scalar("SELECT 0.1"))
        // The model pipectl reads states them as Xcode would.
        let xml = try ws.run("model", "Models", "--xml")
        #expect(xml.stdout.contains(#"<attribute name="custom" attributeType="Boolean" defaultValueString="NO""#), "\(xml.stdout)")
        #expect(xml.stdout.contains(#"<attribute name="since" attributeType="Date" defaultDateTimeInterval="86400""#), "\(xml.stdout)")
        let inspect = try ws.run("inspect", "gym.store", "--model", "Models")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")

        // An initial value the type cannot hold is an error at the property.
        let source = try String(contentsOf: ws.root.appendingPathComponent("Models/Exercise.swift"), encoding: .utf8)
        try ws.write(source.replacingOccurrences(of: "var sets: Int = 3", with: "var sets: Int16 = 70000"), to: "Models/Exercise.swift")
        let wrong = try ws.run("validate", "gym.yaml")
        #expect(wrong.status == 65)
        #expect(wrong.stderr.contains("error: model: Exercise.sets: its initial value 70000 does not fit Int16: 70000 is out of range"), "\(wrong.stderr)")
    }

    /// The JSON an archived array holds, as the app's decoder reads it.
    static func archivedJSON(_ value: Value) -> String {
        guard case .binary(let bytes) = value,
              let archive = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any],
              let json = (archive["$objects"] as? [Any])?.last as? Data else { return "not an archive: \(value)" }
        return String(decoding: json, as: UTF8.self)
    }

    @Test("arrays of enums and of structs: each element checked against its type and written as the app's Codable writes it")
    func enumsInArrays() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData

            enum Gear: String, Codable { case barbell, kettlebell = "Kettlebell" }
            enum Mood: Codable { case calm, tired }
            enum Level: Int, Codable { case one = 1, two }
            struct WorkSet: Codable {
                var reps: Int
                var kind: Gear
                var note: String?
            }

            @Model final class Exercise {
                @Attribute(.unique) var name: String
                var gear: [Gear] = []
                var moods: [Mood] = []
                var levels: [Level] = []
                var sets: [WorkSet] = []
            }
            """, to: "Models/Exercise.swift")
        try ws.write("""
            [
              {"name": "Squat", "gear": ["barbell", "kettlebell"], "moods": ["calm", "tired"], "levels": ["two", "1"],
               "sets": [{"reps": 5, "kind": "kettlebell"}, {"reps": 3, "kind": "Kettlebell", "note": "slow"}]},
              {"name": "Row", "gear": ["barbell", "rope"]},
              {"name": "Press", "moods": ["Calm"]},
              {"name": "Lunge", "levels": ["3"]},
              {"name": "Curl", "sets": [{"kind": "barbell"}]},
              {"name": "Dip", "sets": [{"reps": 8, "kind": "bands"}]}
            ]
            """, to: "exercises.json")
        try ws.write("""
            version: 1
            name: gym
            store: { path: gym.store, layout: coredata, model: Models }
            sources:
              - name: exercises
                read: { json: exercises.json }
                load: { Exercise: { name: name, gear: gear, moods: moods, levels: levels, sets: sets } }
            """, to: "gym.yaml")
        let run = try ws.run("run", "gym.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try ws.store("gym.store").rows("SELECT ZNAME, ZGEAR, ZMOODS, ZLEVELS, ZSETS FROM ZEXERCISE ORDER BY Z_PK")
        #expect(rows.map { $0[0] } == [.text("Squat")])
        // A case's name or its raw value loads as the raw value; an enum without raw values is {"case":{}}.
        #expect(rows.first.map { $0.dropFirst().map(Self.archivedJSON) } == [
            #"["barbell","Kettlebell"]"#, #"[{"calm":{}},{"tired":{}}]"#, "[2,1]",
            #"[{"reps":5,"kind":"Kettlebell"},{"reps":3,"kind":"Kettlebell","note":"slow"}]"#,
        ])
        for (line, field, reason) in [
            (4, "field 'gear' \"", "an element of the list is 'rope', none of Gear's cases (barbell, Kettlebell)"),
            (5, "field 'moods' \"", "an element of the list is 'Calm', none of Mood's cases (calm, tired)"),
            (6, "field 'levels' \"", "an element of the list is '3', none of Level's cases (1, 2)"),
            (7, "field 'sets' \"", "an element of the list gives no value for 'reps', which WorkSet requires (Int)"),
            (8, "field 'sets' \"", "an element of the list gives 'bands' for 'kind' (Gear in WorkSet): none of Gear's cases (barbell, Kettlebell)"),
        ] {
            let warning = run.stderr.split(separator: "\n").first { $0.hasPrefix("exercises.json:\(line):") } ?? ""
            #expect(warning.contains("warning: record rejected: sqlite: " + field) && warning.hasSuffix(reason), "\(reason)\n\(run.stderr)")
        }
        let inspect = try ws.run("inspect", "gym.store", "--model", "Models")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
    }

    @Test("enums and structs inside a Codable struct: composites inside its composite, each enum's value checked against its cases")
    func enumsAndStructsInAStruct() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData

            enum Kind: String, Codable { case home, work = "Work" }
            enum Access: Codable { case stairs, lift }
            struct Geo: Codable { var lat: Double; var lon: Double }
            struct Address: Codable {
                var street: String
                var kind: Kind
                var access: Access?
                var geo: Geo?
            }

            @Model final class Place {
                @Attribute(.unique) var name: String
                var address: Address
            }
            """, to: "Models/Place.swift")
        try ws.write("""
            name,street,kind,access,lat,lon
            Office,1 Main St,work,lift,51.5,-0.12
            Home,2 Side Rd,Work,,,
            Shed,3 Back Ln,garage,,,
            Barn,4 Farm Way,home,ramp,,
            Yard,5 Lane,,,,
            """, to: "places.csv")
        try ws.write("""
            version: 1
            name: places
            store: { path: places.store, layout: coredata, model: Models }
            sources:
              - name: places
                read: { csv: places.csv }
                load:
                  Place:
                    name: name
                    address.street: street
                    address.kind: kind
                    address.access: access
                    address.geo.lat: lat
                    address.geo.lon: lon
            """, to: "places.yaml")
        let model = try ws.run("model", "Models")
        #expect(model.stdout.contains("  address.kind: enum Kind, raw values home, work = Work, required\n"), "\(model.stdout)")
        #expect(model.stdout.contains("  address.access: enum Access, a column per case: stairs, lift, optional\n"), "\(model.stdout)")
        #expect(model.stdout.contains("  address.geo: struct Geo, optional\n    .lat: Double\n    .lon: Double\n"), "\(model.stdout)")
        let run = try ws.run("run", "places.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("places.csv:4:16: warning: record rejected: load: field 'kind' \"garage\": Place.address.kind is a Kind, whose cases are home, work"),
                "\(run.stderr)")
        #expect(run.stderr.contains("places.csv:5:22: warning: record rejected: load: field 'access' \"ramp\": Place.address.access is an Access, whose cases are stairs, lift"),
                "\(run.stderr)")
        #expect(run.stderr.contains("places.csv:6:13: warning: record rejected: load: field 'kind' \"\": Place.address.kind is required and has no default"),
                "\(run.stderr)")
        // Each element a column named by itself, whatever composite holds it; the raw value stored.
        let store = try ws.store("places.store")
        #expect(try store.rows("SELECT ZNAME, ZSTREET, ZKIND, ZSTAIRS, ZLIFT, ZLAT, ZLON FROM ZPLACE ORDER BY Z_PK") == [
            [.text("Office"), .text("1 Main St"), .text("Work"), .null, .text("lift"), .double(51.5), .double(-0.12)],
            [.text("Home"), .text("2 Side Rd"), .text("Work"), .null, .null, .null, .null],
        ])
        let inspect = try ws.run("inspect", "places.store", "--model", "Models")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        // The model's XML holds the composites inside the struct's, and reads back the same model.
        let xml = try ws.run("model", "Models", "--xml")
        #expect(xml.stdout.contains(#"<compositeAttribute name="geo" optional="YES" attributeType="Composite">"#), "\(xml.stdout)")
        try ws.write(xml.stdout, to: "Places.xcdatamodel/contents")
        let fromXML = try ws.run("inspect", "places.store", "--model", "Places.xcdatamodel")
        #expect(fromXML.status == 0, "\(fromXML.stdout)\(fromXML.stderr)")
        #expect(try ws.run("model", "Places.xcdatamodel").stdout.split(separator: "\n").filter { $0.contains("hash") }
                    == model.stdout.split(separator: "\n").filter { $0.contains("hash") })
        // A value none of the cases, written by another tool, is found by the row checks.
        #expect(try Pipectl.runTool("sqlite3", ["places.store", "UPDATE ZPLACE SET ZKIND = 'garage' WHERE ZNAME = 'Home'"], in: ws.root).status == 0)
        let bad = try ws.run("inspect", "places.store", "--model", "Models")
        #expect(bad.status == 68, "\(bad.stdout)\(bad.stderr)")
        #expect((bad.stdout + bad.stderr).contains("address.kind"), "\(bad.stdout)\(bad.stderr)")
        // `init` maps an export's flattened columns to the struct's elements by their last part,
        // and an enum by its own name.
        let draft = try ws.run("init", "places.csv", "--model", "Models", "-o", "draft.yaml")
        #expect(draft.status == 0, "\(draft.stderr)")
        let drafted = String(decoding: try ws.bytes("draft.yaml"), as: UTF8.self)
        for line in ["address.street: street", "address.kind: kind", "address.access: access", "address.geo.lat: lat", "address.geo.lon: lon"] {
            #expect(drafted.contains(line), "\(line)\n\(drafted)")
        }
    }

    @Test("position: an each: link writes each element's place in its list (from 0) into an integer attribute, as SwiftData apps keep order")
    func positionOfListElements() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData

            @Model final class Workout {
                @Attribute(.unique) var name: String
                @Relationship(deleteRule: .cascade, inverse: \\Exercise.workout) var exercises: [Exercise] = []
            }

            @Model final class Exercise {
                var title: String
                var order: Int = 0
                var workout: Workout?
            }
            """, to: "Models/Gym.swift")
        try ws.write("""
            [{"name": "Legs", "exercises": [{"title": "Squat"}, {"title": "Lunge"}, {"title": "Calf raise"}]},
             {"name": "Arms", "exercises": [{"title": "Curl"}]}]
            """, to: "workouts.json")
        let yaml = """
            version: 1
            name: gym
            store: { path: gym.store, layout: coredata, model: Models }
            sources:
              - name: workouts
                read: { json: workouts.json }
                load:
                  Workout:
                    name: name
                    exercises: { Exercise: { each: exercises, position: order, title: title } }
            """
        try ws.write(yaml, to: "gym.yaml")
        let run = try ws.run("run", "gym.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("warning"), "\(run.stderr)")
        #expect(try ws.store("gym.store").rows("""
            SELECT w.ZNAME, e.ZTITLE, e.ZORDER FROM ZEXERCISE e JOIN ZWORKOUT w ON w.Z_PK = e.ZWORKOUT ORDER BY e.Z_PK
            """) == [[.text("Legs"), .text("Squat"), .integer(0)], [.text("Legs"), .text("Lunge"), .integer(1)],
                     [.text("Legs"), .text("Calf raise"), .integer(2)], [.text("Arms"), .text("Curl"), .integer(0)]])

        // What position cannot do, each at its line.
        for (written, expected) in [
            ("position: title", "gym.yaml:10:61: error: pipeline: 'position' writes a whole number, and 'Exercise.title' is string; name an integer attribute"),
            ("position: rank", "gym.yaml:10:61: error: pipeline: 'Exercise' has no attribute 'rank' to hold the position"),
            ("position: order, order: title", "gym.yaml:10:61: error: pipeline: 'Exercise.order' is loaded from a field too: it takes either the position or the field"),
        ] {
            try ws.write(yaml.replacingOccurrences(of: "position: order", with: written), to: "gym.yaml")
            let wrong = try ws.run("validate", "gym.yaml")
            #expect(wrong.status == 65)
            #expect(wrong.stderr.hasPrefix(expected), "\(wrong.stderr)")
        }
    }

    @Test("store.model as a list of .swift files: read as one source; a model file in a list is refused")
    func modelAsFileList() throws {
        let ws = try Workspace()
        let source = try String(decoding: ws.bytes("pipelines/swiftdata/Models/Library.swift"), as: UTF8.self)
        let cut = try #require(source.range(of: "@Model\nfinal class Book"))
        try ws.write(String(source[..<cut.lowerBound]), to: "pipelines/swiftdata/Models/Author.swift")
        try ws.write("import Foundation\nimport SwiftData\n\n" + source[cut.lowerBound...], to: "pipelines/swiftdata/Models/Book.swift")
        try FileManager.default.removeItem(at: ws.root.appendingPathComponent("pipelines/swiftdata/Models/Library.swift"))
        let yaml = try String(decoding: ws.bytes("pipelines/swiftdata/books.yaml"), as: UTF8.self)
        try ws.write(yaml.replacingOccurrences(of: "  model: Models\n", with: "  model: [Models/Book.swift, Models/Author.swift]\n"),
                     to: "pipelines/swiftdata/books.yaml")
        let run = try ws.run("run", "-q", "pipelines/swiftdata/books.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ws.store("build/default.store").rows("SELECT count(*) FROM ZBOOK") == [[.integer(4)]])
        let inspect = try ws.run("inspect", "build/default.store", "--model", "pipelines/swiftdata/Models")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        try ws.write(yaml.replacingOccurrences(of: "  model: Models\n", with: "  model: [Models/Book.swift, ../model/Grocery.xcdatamodeld]\n"),
                     to: "pipelines/swiftdata/books.yaml")
        let mixed = try ws.run("run", "pipelines/swiftdata/books.yaml")
        #expect(mixed.status == 65 && mixed.stderr.contains("a list of models is a SwiftData app's .swift files; 'pipelines/model/Grocery.xcdatamodeld' is not one"), "\(mixed.stderr)")
    }

    @Test("a constant in load ({ value: ... }) and a template: every record takes them; a constant the attribute cannot take is an error")
    func constantsAndTemplates() throws {
        let ws = try Workspace()
        var yaml = try String(decoding: ws.bytes("pipelines/swiftdata/books.yaml"), as: UTF8.self)
        yaml = yaml.replacingOccurrences(of: "      - uuid: { field: id }", with: "      - uuid: { field: id }\n      - template: { field: label, value: \"{title} ({pages} pages)\" }")
        yaml = yaml.replacingOccurrences(of: "        title: title\n", with: "        title: label\n        rating: { value: 5 }\n")
        yaml = yaml.replacingOccurrences(of: "        rating: rating\n", with: "")
        try ws.write(yaml, to: "pipelines/swiftdata/books.yaml")
        let run = try ws.run("run", "-q", "pipelines/swiftdata/books.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ws.store("build/default.store").rows("SELECT ZTITLE, ZRATING FROM ZBOOK ORDER BY ZISBN LIMIT 2") == [
            [.text("Pride and Prejudice (432 pages)"), .double(5)], [.text("Emma (474 pages)"), .double(5)],
        ])
        try ws.write(yaml.replacingOccurrences(of: "rating: { value: 5 }", with: "rating: { value: five }"), to: "pipelines/swiftdata/books.yaml")
        let bad = try ws.run("run", "pipelines/swiftdata/books.yaml")
        #expect(bad.status == 65 && bad.stderr.contains("the value \"five\" of Book.rating (double): "), "\(bad.stderr)")
    }

    @Test("the model's one uniqueness constraint is an entity's key; of two, the pipeline must say which, and the error lists them")
    func keysFromTheModel() throws {
        let ws = try Workspace()
        // books.yaml names no keys: authors are found by name (3 authors for 4 books), books by isbn.
        #expect(try !String(decoding: ws.bytes("pipelines/swiftdata/books.yaml"), as: UTF8.self).contains("unique:"))
        let run = try ws.run("run", "-q", "pipelines/swiftdata/books.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ws.store("build/default.store").rows("SELECT count(*), count(DISTINCT ZNAME) FROM ZAUTHOR") == [[.integer(3), .integer(3)]])
        let again = try ws.run("run", "-q", "pipelines/swiftdata/books.yaml")
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
        let original = try String(decoding: ws.bytes("pipelines/swiftdata/books.yaml"), as: UTF8.self)
        try ws.write(original.replacingOccurrences(of: "        isbn: isbn\n", with: ""), to: "pipelines/swiftdata/nokey.yaml")
        let unset = try ws.run("validate", "pipelines/swiftdata/nokey.yaml")
        #expect(unset.status == 65 && unset.stderr.contains("loading 'Book' must set its unique key: 'isbn' is missing (the key is the model's uniqueness constraint)"),
                "\(unset.stderr)")

        let source = try String(decoding: ws.bytes("pipelines/swiftdata/Models/Library.swift"), as: UTF8.self)
        try ws.write(source.replacingOccurrences(of: "    var born: Date?\n", with: "    var born: Date?\n    @Attribute(.unique) var code: String?\n"),
                     to: "pipelines/swiftdata/Models/Library.swift")
        let ambiguous = try ws.run("run", "pipelines/swiftdata/books.yaml")
        #expect(ambiguous.status == 65, "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("error: pipeline: 'Author' has no unique key, so the record to link cannot be found: give 'Author' one "
                                            + "with 'unique:' under 'entities' (the model's uniqueness constraints are name, code: say which)"),
                "\(ambiguous.stderr)")
        let yaml = try String(decoding: ws.bytes("pipelines/swiftdata/books.yaml"), as: UTF8.self)
        try ws.write(yaml.replacingOccurrences(of: "sources:\n", with: "entities: { Author: { unique: name } }\nsources:\n"), to: "pipelines/swiftdata/books.yaml")
        let chosen = try ws.run("run", "-q", "pipelines/swiftdata/books.yaml")
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(try ws.store("build/default.store").rows("SELECT count(*) FROM ZAUTHOR") == [[.integer(3)]])
    }

    @Test("an enum's value that is none of its cases is rejected, naming the cases")
    func unknownEnumCase() throws {
        let ws = try Workspace()
        let csv = try String(decoding: ws.bytes("pipelines/swiftdata/data/books.csv"), as: UTF8.self)
        try ws.write(csv.replacingOccurrences(of: "hardcover,reading", with: "hardcover,redaing"), to: "pipelines/swiftdata/data/books.csv")
        let run = try ws.run("run", "pipelines/swiftdata/books.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("pipelines/swiftdata/data/books.csv:3:51: warning: record rejected: load: field 'shelf' \"redaing\": Book.shelf is a Shelf, whose cases are toRead, reading, finished; did you mean 'reading'?"), "\(run.stderr)")
        #expect(try ws.store("build/default.store").rows("SELECT count(*) FROM ZBOOK") == [[.integer(3)]])
    }

    @Test("a property of a type the source does not declare stops the run at its line, naming it")
    func untranslatableProperty() throws {
        let ws = try Workspace()
        let source = try String(decoding: ws.bytes("pipelines/swiftdata/Models/Library.swift"), as: UTF8.self)
        try ws.write(source.replacingOccurrences(of: "    var rating: Double?\n", with: "    var rating: Double?\n    var genre: Genre = .novel\n"),
                     to: "pipelines/swiftdata/Models/Library.swift")
        let run = try ws.run("run", "pipelines/swiftdata/books.yaml")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("pipelines/swiftdata/Models/Library.swift:25:9: error: model: Book.genre: the type 'Genre' is declared in no file of the model's source"), "\(run.stderr)")
    }
}
