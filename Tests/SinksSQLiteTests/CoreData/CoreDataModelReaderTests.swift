import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SinksSQLite
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("Core Data model reader")
struct CoreDataModelReaderTests {
    /// A fresh folder under the temporary directory, removed at the end of the test.
    final class TemporaryFolder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pipectl-coredata-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }

        func write(_ text: String, to path: String) throws {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
    }

    static let currentVersionPlist = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Model 6.xcdatamodel</string></dict></plist>
    """

    /// An older version: without Item.photoData, so its hashes differ from the store's.
    static let olderVersion = CoreDataCases.groceryDudeXML.replacingOccurrences(
        of: #"<attribute name="photoData" optional="YES" attributeType="Binary"/>"#, with: "")

    @Test func versionedModelReadsTheCurrentVersion() throws {
        let folder = try TemporaryFolder()
        try folder.write(Self.olderVersion, to: "Model.xcdatamodeld/Model 5.xcdatamodel/contents")
        try folder.write(CoreDataCases.groceryDudeXML, to: "Model.xcdatamodeld/Model 6.xcdatamodel/contents")
        try folder.write(Self.currentVersionPlist, to: "Model.xcdatamodeld/.xccurrentversion")
        let model = try CoreDataModelReader.read(folder.url.appendingPathComponent("Model.xcdatamodeld"))
        #expect(model["Item"]?.attributes.map(\.name) == ["collected", "listed", "name", "photoData", "quantity"])
        #expect(CoreDataVersionHashes.hashes(for: model).mapValues { $0.base64EncodedString() } == CoreDataCases.groceryDude.hashes)
    }

    @Test func versionedModelWithOneVersionAndNoMarker() throws {
        let folder = try TemporaryFolder()
        try folder.write(CoreDataCases.surfJournalXML, to: "SurfJournal.xcdatamodeld/SurfJournal.xcdatamodel/contents")
        let model = try CoreDataModelReader.read(folder.url.appendingPathComponent("SurfJournal.xcdatamodeld"))
        #expect(model.entities.map(\.name) == ["JournalEntry"])
    }

    @Test func singleVersionFolder() throws {
        let folder = try TemporaryFolder()
        try folder.write(CoreDataCases.wiboscoXML, to: "Example.xcdatamodel/contents")
        let model = try CoreDataModelReader.read(folder.url.appendingPathComponent("Example.xcdatamodel"))
        #expect(model.entities.map(\.name) == ["Color", "Post"])
    }

    @Test func severalVersionsAndNoMarkerIsAnError() throws {
        let folder = try TemporaryFolder()
        try folder.write(Self.olderVersion, to: "Model.xcdatamodeld/Model 5.xcdatamodel/contents")
        try folder.write(CoreDataCases.groceryDudeXML, to: "Model.xcdatamodeld/Model 6.xcdatamodel/contents")
        let bundle = folder.url.appendingPathComponent("Model.xcdatamodeld")
        let error = try #require(throws: PipelineError.self) { try CoreDataModelReader.read(bundle) }
        #expect(error.code == .modelNoCurrentVersion)
        #expect(error.location?.description == bundle.path)
        #expect(error.message == "2 versions (Model 5.xcdatamodel, Model 6.xcdatamodel) and no .xccurrentversion naming the current one")
    }

    static func parse(_ body: String) throws -> StoreModel {
        try CoreDataModelReader.parse(Data("<?xml version=\"1.0\"?>\n<model>\n\(body)\n</model>\n".utf8), file: "M.xcdatamodel/contents")
    }

    static func failure(_ body: String) throws -> PipelineError {
        try #require(throws: PipelineError.self) { try parse(body) }
    }

    @Test func unknownAttributeTypeIsLocated() throws {
        let error = try Self.failure("""
        <entity name="Item">
            <attribute name="size" attributeType="Integer 8"/>
        </entity>
        """)
        #expect(error.code == .modelUnknownType)
        #expect(error.location?.file == "M.xcdatamodel/contents" && error.location?.line == 4)
        #expect(error.message == "attribute 'Item.size' has an unknown attributeType \"Integer 8\" (expected one of: Binary, Boolean, Date, "
                    + "Decimal, Double, Float, Integer 16, Integer 32, Integer 64, String, Transformable, URI, UUID)")
    }

    @Test func relationshipToAnUnknownEntity() throws {
        let error = try Self.failure("""
        <entity name="Item">
            <relationship name="unit" optional="YES" maxCount="1" destinationEntity="Unit"/>
        </entity>
        """)
        #expect(error.code == .modelUnknownEntity)
        #expect(error.location?.file == "M.xcdatamodel/contents" && error.location?.line == 4)
    }

    @Test func configurationsAreReadAndWrittenBack() throws {
        let model = try Self.parse("""
        <entity name="Note"/>
        <entity name="Recipe"/>
        <configuration name="Content" usedWithCloudKit="YES">
            <memberEntity name="Recipe"/>
        </configuration>
        <configuration name="User">
            <memberEntity name="Note"/>
        </configuration>
        """)
        #expect(model.configurations == [ModelConfiguration(name: "Content", entities: ["Recipe"]),
                                         ModelConfiguration(name: "User", entities: ["Note"])])
        #expect(model.configurations.first?.location?.line == 5)
        let written = CoreDataModelWriter.contents(of: model)
        let reread = try CoreDataModelReader.parse(Data(written.utf8), file: "written")
        #expect(reread.configurations == model.configurations)
    }

    @Test func configurationOfAnUnknownEntity() throws {
        let error = try Self.failure("""
        <entity name="Recipe"/>
        <configuration name="Content">
            <memberEntity name="Recipes"/>
        </configuration>
        """)
        #expect(error.code == .modelUnknownEntity)
        #expect(error.message == "configuration 'Content' lists an unknown entity 'Recipes'; did you mean 'Recipe'?")
        #expect(error.location?.line == 4)
    }

    @Test func configurationDeclaredTwice() throws {
        let error = try Self.failure("""
        <entity name="Recipe"/>
        <configuration name="Content"><memberEntity name="Recipe"/></configuration>
        <configuration name="Content"/>
        """)
        #expect(error.code == .modelDuplicateConfiguration)
        #expect(error.message == "configuration 'Content' is declared twice")
    }

    @Test func unknownParent() throws {
        let error = try Self.failure(#"<entity name="Shop" parentEntity="Place"/>"#)
        #expect(error.code == .modelUnknownEntity)
        #expect(error.location?.file == "M.xcdatamodel/contents" && error.location?.line == 3)
    }

    @Test func missingNames() throws {
        let entity = try Self.failure(#"<entity parentEntity="Place"/>"#)
        #expect(entity.code == .modelMissingValue)
        #expect(entity.message == "an entity has no name")
        #expect(try Self.failure(#"<entity name="A"><attribute attributeType="String"/></entity>"#).code == .modelMissingValue)
        #expect(try Self.failure(#"<entity name="A"><relationship destinationEntity="A"/></entity>"#).code == .modelMissingValue)
    }

    @Test func badDefaultValue() throws {
        #expect(try Self.failure(#"<entity name="A"><attribute name="n" attributeType="Integer 16" defaultValueString="lots"/></entity>"#)
            .code == .modelInvalidDefault)
    }

    @Test func malformedXMLIsLocated() throws {
        let error = try #require(throws: PipelineError.self) {
            try CoreDataModelReader.parse(Data("<model>\n<entity name=\"A\">\n</model>".utf8), file: "M.xcdatamodel/contents")
        }
        #expect(error.code == .modelMalformed)
        #expect(error.location?.line == 3)
    }

    @Test func defaultValuesAndFlags() throws {
        let grocery = try CoreDataModelReader.parse(Data(CoreDataCases.groceryDudeXML.utf8), file: "contents")
        let item = try #require(grocery["Item"])
        #expect(item.attributes.map(\.defaultValue) == [.bool(false), .bool(true), .text("New Item"), nil, .double(1)])
        #expect(item.attributes.map(\.type) == [.bool, .bool, .string, .binary, .float])
        #expect(item.attributes[2].isIndexed)
        #expect(item.relationships.map(\.maxCount) == [1, 1, 1])
        #expect(grocery["Location"]?.isAbstract == true)
        #expect(grocery["LocationAtHome"]?.parent == "Location")
        #expect(grocery["Unit"]?.relationships.first.map { ($0.isToMany, $0.maxCount, $0.minCount) } ?? (false, -1, -1) == (true, 0, 0))

        let sample = try CoreDataModelReader.parse(Data(CoreDataCases.samplePlusV1XML.utf8), file: "contents")
        let person = try #require(sample["Person"])
        #expect(person.uniquenessConstraints == [["firstName", "lastName"]])
        #expect(person.uniqueKey.isEmpty)
        #expect(person.attributes.map(\.isTransient) == [false, false, true, false, false])
        #expect(person.attributes[1].preservesValueInHistoryOnDeletion)
        #expect(person.attributes[1].isOptional == false)

        let v2 = try CoreDataModelReader.parse(Data(CoreDataCases.samplePlusV2XML.utf8), file: "contents")
        #expect(v2["Car"]?.fetchIndexes == [FetchIndex(name: "byMakerAndNumberPlate",
                                                       elements: [.init(property: "maker"), .init(property: "numberPlate")],
                                                       location: v2["Car"]?.fetchIndexes.first?.location)])
    }

    @Test func everythingElseTheFormatExpresses() throws {
        let model = try Self.parse("""
        <entity name="Book" versionHashModifier="v2">
            <attribute name="cover" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" minValueString="1" maxValueString="1000000"/>
            <attribute name="isbn" attributeType="String" minValueString="10" maxValueString="13" regularExpressionString="[0-9X-]+" versionHashModifier="isbn13"/>
            <attribute name="pageCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@count"/>
            <attribute name="price" optional="YES" attributeType="Decimal" minValueString="0" maxValueString="999.99"/>
            <attribute name="published" optional="YES" attributeType="Date" defaultDateTimeInterval="0" minDateTimeInterval="-978307200"/>
            <relationship name="pages" optional="YES" toMany="YES" ordered="YES" maxCount="500" deletionRule="Cascade" destinationEntity="Page" inverseName="book"/>
        </entity>
        <entity name="Page">
            <relationship name="book" optional="YES" maxCount="1" deletionRule="No Action" destinationEntity="Book" inverseName="pages" transient="YES"/>
        </entity>
        """)
        let book = try #require(model["Book"])
        #expect(book.versionHashModifier == "v2")
        #expect(book.attributes[0].allowsExternalBinaryDataStorage)
        #expect(book.attributes[0].validation == AttributeValidation(minLength: 1, maxLength: 1_000_000))
        #expect(book.attributes[1].validation == AttributeValidation(minLength: 10, maxLength: 13, regularExpression: "[0-9X-]+"))
        #expect(book.attributes[1].versionHashModifier == "isbn13")
        #expect(book.attributes[2].derivationExpression == "pages.@count")
        #expect(book.attributes[3].validation == AttributeValidation(minValue: .decimal(0), maxValue: .decimal(Decimal(string: "999.99")!)))
        #expect(book.attributes[4].defaultValue == .date(0))
        #expect(book.attributes[4].validation == AttributeValidation(minValue: .date(-978_307_200)))
        let pages = try #require(book.relationships.first)
        #expect((pages.isToMany, pages.isOrdered, pages.maxCount, pages.deleteRule) == (true, true, 500, .cascade))
        let back = try #require(model["Page"]?.relationships.first)
        #expect((back.isTransient, back.deleteRule, back.maxCount) == (true, .noAction, 1))
        #expect(model.versionIdentifiers == [])
    }
}
