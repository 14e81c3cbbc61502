import Diagnostics
import Pipeline
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

/// Stores that Core Data itself wrote (see `CoreDataStoreFormat`), restated: the model,
/// and what the store holds for it: entity hashes, schema statements and Z_PRIMARYKEY rows.
struct CoreDataCase: Sendable {
    /// How the store's schema statements compare with ours.
    enum Comparison: Sendable {
        /// Same statements in the same order.
        case exact
        /// Same statements; older frameworks (or a migration) created them in another order.
        case sameStatements
        /// Same tables and columns; an older framework put some columns in another order.
        case sameColumns
    }

    var name: String
    /// The `.xcdatamodel/contents` XML, when the model is read through the reader.
    var modelXML: String?
    /// The model in Swift, for a case whose model file is not XML.
    var model: StoreModel?
    /// Entity name to base64 hash, from the store's Z_METADATA.
    var hashes: [String: String]
    /// The store's schema, one statement per line.
    var schema: String
    var comparison: Comparison
    var modelCache: Bool
    /// (Z_ENT, Z_NAME, Z_SUPER); Z_MAX is the row count of each root table.
    var entities: [(Int, String, Int)]
    var rowCounts: [String: Int64]
    var versionIdentifiers: [String]
}

enum CoreDataCases {
    static let all: [CoreDataCase] = [groceryDude, surfJournal, samplePlusV1, samplePlusV2, bookMigration, wibosco, recipes]

    // Grocery Dude (framework 641): inheritance with an abstract root, indexed attribute, defaults.
    static let groceryDudeXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model userDefinedModelVersionIdentifier="" type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Item" representedClassName="Item">
            <attribute name="collected" optional="YES" attributeType="Boolean" defaultValueString="NO"/>
            <attribute name="listed" optional="YES" attributeType="Boolean" defaultValueString="YES"/>
            <attribute name="name" optional="YES" attributeType="String" defaultValueString="New Item" indexed="YES"/>
            <attribute name="photoData" optional="YES" attributeType="Binary"/>
            <attribute name="quantity" optional="YES" attributeType="Float" defaultValueString="1"/>
            <relationship name="locationAtHome" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="LocationAtHome" inverseName="items"/>
            <relationship name="locationAtShop" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="LocationAtShop" inverseName="items"/>
            <relationship name="unit" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Unit" inverseName="items"/>
        </entity>
        <entity name="Location" isAbstract="YES">
            <attribute name="summary" optional="YES" attributeType="String"/>
        </entity>
        <entity name="LocationAtHome" parentEntity="Location">
            <attribute name="storedin" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="locationAtHome"/>
        </entity>
        <entity name="LocationAtShop" parentEntity="Location">
            <attribute name="aisle" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="locationAtShop"/>
        </entity>
        <entity name="Unit">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="unit"/>
        </entity>
        <fetchRequest name="ShoppingList" entity="Item" predicateString="listed == 1"/>
    </model>
    """

    static let groceryDude = CoreDataCase(
        name: "grocerydude", modelXML: groceryDudeXML,
        hashes: [
            "Item": "bczLnOwKIlsDQoLjvUK8d9yPHarLcOibbGlpzTDv5NE=",
            "Location": "Rhu2tmuMRhF0ap48gHDCjcTo8WLik0BXSlz4HDb84PU=",
            "LocationAtHome": "QfIRgJCUWGITojKHMmyahTLDKnTc6xvNfKVDrnV34HQ=",
            "LocationAtShop": "tlQzimQ6Cl2AlH+hjl98asc+qdNzyCLLUQIhgdPMuzA=",
            "Unit": "IiApERpgmALOjTRPB2zCsxyU2ax7PPkpBCJ0A0Cp8O0=",
        ],
        schema: """
        CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOLLECTED INTEGER, ZLISTED INTEGER, ZLOCATIONATHOME INTEGER, ZLOCATIONATSHOP INTEGER, ZUNIT INTEGER, ZQUANTITY FLOAT, ZNAME VARCHAR, ZPHOTODATA BLOB )
        CREATE TABLE ZLOCATION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSUMMARY VARCHAR, ZSTOREDIN VARCHAR, ZAISLE VARCHAR )
        CREATE TABLE ZUNIT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )
        CREATE INDEX ZITEM_ZNAME_INDEX ON ZITEM (ZNAME)
        CREATE INDEX ZITEM_ZLOCATIONATHOME_INDEX ON ZITEM (ZLOCATIONATHOME)
        CREATE INDEX ZITEM_ZLOCATIONATSHOP_INDEX ON ZITEM (ZLOCATIONATSHOP)
        CREATE INDEX ZITEM_ZUNIT_INDEX ON ZITEM (ZUNIT)
        CREATE INDEX ZLOCATION_Z_ENT_INDEX ON ZLOCATION (Z_ENT)
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)
        """,
        comparison: .exact, modelCache: true,
        entities: [(1, "Item", 0), (2, "Location", 0), (3, "LocationAtHome", 2), (4, "LocationAtShop", 2), (5, "Unit", 0)],
        rowCounts: ["Item": 55, "Location": 24, "Unit": 8], versionIdentifiers: [""])

    // SurfJournal (framework 519): one entity, Date and Integer 16.
    static let surfJournalXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
        <entity name="JournalEntry" representedClassName="JournalEntry">
            <attribute name="date" optional="YES" attributeType="Date"/>
            <attribute name="height" optional="YES" attributeType="String"/>
            <attribute name="location" optional="YES" attributeType="String"/>
            <attribute name="period" optional="YES" attributeType="String"/>
            <attribute name="rating" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
            <attribute name="wind" optional="YES" attributeType="String"/>
        </entity>
    </model>
    """

    static let surfJournal = CoreDataCase(
        name: "surfjournal", modelXML: surfJournalXML,
        hashes: ["JournalEntry": "Tj6pVjI2H01Wp34HCsdGhqINZK/14EnrYaNBIVLu3wc="],
        schema: """
        CREATE TABLE ZJOURNALENTRY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZRATING INTEGER, ZDATE TIMESTAMP, ZHEIGHT VARCHAR, ZLOCATION VARCHAR, ZPERIOD VARCHAR, ZWIND VARCHAR )
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)
        """,
        comparison: .exact, modelCache: false,
        entities: [(1, "JournalEntry", 0)], rowCounts: ["JournalEntry": 5000], versionIdentifiers: [""])

    // CoreDataPlus sample model, version 1 (framework 1044): uniqueness constraints, UUID with
    // preserve-after-deletion, transient attributes, three-level inheritance, Transformable.
    static let samplePlusV1XML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift" userDefinedModelVersionIdentifier="1">
        <entity name="Car" representedClassName="Car">
            <attribute name="color" optional="YES" attributeType="Transformable" valueTransformerName="ColorTransformer" customClassName="Color"/>
            <attribute name="currentDrivingSpeed" optional="YES" transient="YES" attributeType="Integer 64" defaultValueString="0"/>
            <attribute name="maker" optional="YES" attributeType="String"/>
            <attribute name="markedForDeletionAsOf" optional="YES" attributeType="Date"/>
            <attribute name="model" optional="YES" attributeType="String"/>
            <attribute name="numberPlate" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars"/>
            <uniquenessConstraints>
                <uniquenessConstraint><constraint value="numberPlate"/></uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="ExpensiveSportCar" parentEntity="SportCar">
            <attribute name="isLimitedEdition" optional="YES" attributeType="Boolean" defaultValueString="NO"/>
        </entity>
        <entity name="Person" representedClassName="Person">
            <attribute name="firstName" optional="YES" attributeType="String"/>
            <attribute name="id" attributeType="UUID" preserveAfterDeletion="YES"/>
            <attribute name="isDriving" transient="YES" attributeType="Boolean" defaultValueString="NO"/>
            <attribute name="lastName" optional="YES" attributeType="String"/>
            <attribute name="updatedAt" attributeType="Date"/>
            <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner"/>
            <uniquenessConstraints>
                <uniquenessConstraint><constraint value="firstName"/><constraint value="lastName"/></uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="SportCar" parentEntity="Car"/>
    </model>
    """

    static let samplePlusV1 = CoreDataCase(
        name: "coredataplus-v1", modelXML: samplePlusV1XML,
        hashes: [
            "Car": "nlVVKQchWCING6zS+Ao9rUkZ90oyqovp7iKmp7QSbI8=",
            "ExpensiveSportCar": "PcfjKxvkW1pMeVrJrz4dEKpyItPGmugFu+tECL3rpIA=",
            "Person": "FkJoVRtFEIrnY6orph/zLTLTIyOFCYfD4hYHyNpEtys=",
            "SportCar": "UU7BkHpWgpn5+2hREGUWE28HVfRfpTqCOg5NRAE9UxM=",
        ],
        schema: """
        CREATE TABLE ZCAR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER, ZISLIMITEDEDITION INTEGER, ZMARKEDFORDELETIONASOF TIMESTAMP, ZMAKER VARCHAR, ZMODEL VARCHAR, ZNUMBERPLATE VARCHAR, ZCOLOR BLOB )
        CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZUPDATEDAT TIMESTAMP, ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR, ZID BLOB )
        CREATE INDEX ZCAR_ZOWNER_INDEX ON ZCAR (ZOWNER)
        CREATE INDEX ZCAR_Z_ENT_INDEX ON ZCAR (Z_ENT)
        CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC)
        CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)
        """,
        comparison: .exact, modelCache: true,
        entities: [(1, "Car", 0), (2, "SportCar", 1), (3, "ExpensiveSportCar", 2), (4, "Person", 0)],
        rowCounts: ["Car": 125, "Person": 20], versionIdentifiers: ["1"])

    // Version 2 of the same model (a store migrated from version 1): a renamed entity and a fetch index.
    static let samplePlusV2XML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift" userDefinedModelVersionIdentifier="2">
        <entity name="Car" representedClassName="Car">
            <attribute name="maker" optional="YES" attributeType="String"/>
            <attribute name="markedForDeletionAsOf" optional="YES" attributeType="Date"/>
            <attribute name="model" optional="YES" attributeType="String"/>
            <attribute name="numberPlate" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars"/>
            <fetchIndex name="byMakerAndNumberPlate">
                <fetchIndexElement property="maker" type="Binary" order="ascending"/>
                <fetchIndexElement property="numberPlate" type="Binary" order="ascending"/>
            </fetchIndex>
            <uniquenessConstraints>
                <uniquenessConstraint><constraint value="numberPlate"/></uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="LuxuryCar" parentEntity="SportCar" elementID="ExpensiveSportCar">
            <attribute name="isLimitedEdition" optional="YES" attributeType="Boolean" defaultValueString="NO"/>
        </entity>
        <entity name="Person">
            <attribute name="firstName" optional="YES" attributeType="String"/>
            <attribute name="lastName" optional="YES" attributeType="String"/>
            <attribute name="updatedAt" attributeType="Date"/>
            <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner"/>
            <uniquenessConstraints>
                <uniquenessConstraint><constraint value="firstName"/><constraint value="lastName"/></uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="SportCar" parentEntity="Car"/>
    </model>
    """

    /// The migration created the tables in another order and kept the old Z_NAME
    /// (ExpensiveSportCar) for entity 3; a new store names it LuxuryCar.
    static let samplePlusV2 = CoreDataCase(
        name: "coredataplus-v2", modelXML: samplePlusV2XML,
        hashes: [
            "Car": "flA++/S2PNk/9ynpZ14hxjxlJi2FqYifWaJECvZIG5M=",
            "LuxuryCar": "qHPFWQAQ5Oo/e9+EZ4bfv1ywlVJrhqoN4sVpxLsSGIY=",
            "Person": "BnrmLhvRAUy2VZ2ZCAOuWPNU3Rt7p7dyKjYcDDnyE04=",
            "SportCar": "cipVtbvNUddIdqTdj497veV93GHLZaV37FsPvpeNe4w=",
        ],
        schema: """
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)
        CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZUPDATEDAT TIMESTAMP, ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR )
        CREATE TABLE ZCAR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER, ZISLIMITEDEDITION INTEGER, ZMARKEDFORDELETIONASOF TIMESTAMP, ZMAKER VARCHAR, ZMODEL VARCHAR, ZNUMBERPLATE VARCHAR )
        CREATE INDEX ZCAR_ZOWNER_INDEX ON ZCAR (ZOWNER)
        CREATE INDEX ZCAR_Z_ENT_INDEX ON ZCAR (Z_ENT)
        CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)
        CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC)
        CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)
        """,
        comparison: .sameStatements, modelCache: true,
        entities: [(1, "Car", 0), (2, "SportCar", 1), (3, "LuxuryCar", 2), (4, "Person", 0)],
        rowCounts: ["Car": 125, "Person": 20], versionIdentifiers: ["2"])

    /// Version 3 has no store; its hashes come from Xcode's compiled model (VersionInfo.plist).
    /// It adds a many-to-many pair (Car.previousOwners, Person.previousCars).
    static let samplePlusV3XML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift" userDefinedModelVersionIdentifier="3">
        <entity name="Car">
            <attribute name="markedForDeletionAsOf" optional="YES" attributeType="Date"/>
            <attribute name="model" optional="YES" attributeType="String"/>
            <attribute name="numberPlate" attributeType="String"/>
            <relationship name="createdBy" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Maker" inverseName="cars"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars"/>
            <relationship name="previousOwners" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="previousCars"/>
            <uniquenessConstraints>
                <uniquenessConstraint><constraint value="numberPlate"/></uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="LuxuryCar" parentEntity="SportCar">
            <attribute name="isLimitedEdition" optional="YES" attributeType="Boolean" defaultValueString="NO"/>
        </entity>
        <entity name="Maker">
            <attribute name="name" attributeType="String"/>
            <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="createdBy"/>
            <uniquenessConstraints>
                <uniquenessConstraint><constraint value="name"/></uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="Person">
            <attribute name="firstName" optional="YES" attributeType="String"/>
            <attribute name="lastName" optional="YES" attributeType="String"/>
            <attribute name="updatedAt" attributeType="Date"/>
            <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner"/>
            <relationship name="previousCars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="previousOwners"/>
            <uniquenessConstraints>
                <uniquenessConstraint><constraint value="firstName"/><constraint value="lastName"/></uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="SportCar" parentEntity="Car"/>
    </model>
    """

    static let samplePlusV3Hashes = [
        "Car": "lITFqUIBMVkVPXxgwsaKgoR7eCXO5mcoGtz2TyVxeSk=",
        "LuxuryCar": "vBcyTTVIeamwUwOErPMyyfTNhKQ6TaDJ2kpqWp3dfQg=",
        "Maker": "xo05YAM8Qdm7hk5p4fflD+mYxPJIEpq5PBapZ3vq0b0=",
        "Person": "mc8l/vRuh4lJoMB77AVPnf5cL8eKgecLw6T9d1NqM8c=",
        "SportCar": "aXRu2wwW7/Djuh8m2cJlcOI6REPa+8ykEdgRWq5QRwI=",
    ]

    // BookMigration (framework 419, Xcode 4.3 format): optional to-one with an explicit minCount 1.
    static let bookMigrationXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model name="" userDefinedModelVersionIdentifier="" type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Xcode 4.3">
        <entity name="Book" syncable="YES">
            <attribute name="authorName" optional="YES" attributeType="String" syncable="YES"/>
            <attribute name="fileURL" optional="YES" attributeType="Transformable" syncable="YES"/>
            <attribute name="title" optional="YES" attributeType="String" syncable="YES"/>
            <relationship name="user" optional="YES" minCount="1" maxCount="1" deletionRule="Nullify" destinationEntity="User" inverseName="books" syncable="YES"/>
        </entity>
        <entity name="User" syncable="YES">
            <attribute name="userId" optional="YES" attributeType="Integer 32" defaultValueString="0" syncable="YES"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="user" syncable="YES"/>
        </entity>
    </model>
    """

    /// The old framework created each table's indexes right after it.
    static let bookMigration = CoreDataCase(
        name: "bookmigration", modelXML: bookMigrationXML,
        hashes: [
            "Book": "QAj4tkrjwHQVGdiK0wEeqC4C3pQrvIhRCwPbCZIk7fU=",
            "User": "+ifl7ss57tyNIBx4GpqLk7/mDZi70ClX1CJ83vCIHmo=",
        ],
        schema: """
        CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZUSER INTEGER, ZAUTHORNAME VARCHAR, ZTITLE VARCHAR, ZFILEURL BLOB )
        CREATE INDEX ZBOOK_ZUSER_INDEX ON ZBOOK (ZUSER)
        CREATE TABLE ZUSER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZUSERID INTEGER )
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)
        """,
        comparison: .sameStatements, modelCache: false,
        entities: [(1, "Book", 0), (2, "User", 0)], rowCounts: ["Book": 4, "User": 3], versionIdentifiers: [""])

    // CoreDataMigration example (framework 847): a non-optional to-one with no minCount.
    static let wiboscoXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Color" representedClassName="Color" codeGenerationType="class">
            <attribute name="colorID" optional="YES" attributeType="String"/>
            <attribute name="hex" optional="YES" attributeType="String"/>
            <relationship name="post" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Post" inverseName="color"/>
        </entity>
        <entity name="Post" representedClassName="Post" codeGenerationType="class">
            <attribute name="date" optional="YES" attributeType="Date"/>
            <attribute name="postID" optional="YES" attributeType="String"/>
            <relationship name="color" maxCount="1" deletionRule="Nullify" destinationEntity="Color" inverseName="post"/>
        </entity>
    </model>
    """

    static let wibosco = CoreDataCase(
        name: "wibosco", modelXML: wiboscoXML,
        hashes: [
            "Color": "xCYQ2suC39Z9goHUnYKRa9Akk8tMyJfbnKCX/nycuec=",
            "Post": "ilX9TObDFEQxPUyX4CR6xdPtJSjEhNrrcLTkgdNuI0U=",
        ],
        schema: """
        CREATE TABLE ZCOLOR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPOST INTEGER, ZCOLORID VARCHAR, ZHEX VARCHAR )
        CREATE TABLE ZPOST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOLOR INTEGER, ZDATE TIMESTAMP, ZPOSTID VARCHAR )
        CREATE INDEX ZCOLOR_ZPOST_INDEX ON ZCOLOR (ZPOST)
        CREATE INDEX ZPOST_ZCOLOR_INDEX ON ZPOST (ZCOLOR)
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)
        """,
        comparison: .exact, modelCache: true,
        entities: [(1, "Color", 0), (2, "Post", 0)], rowCounts: ["Color": 7995, "Post": 7995], versionIdentifiers: [""])

    // Apple's iPhoneCoreDataRecipes (framework 241): the model file is an old binary format, so the
    // model is restated here. It has minCount 1 on optional to-ones, and no version identifier.
    static let recipesModel = StoreModel(entities: [
        Entity(name: "Image", attributes: [
            Attribute(name: "image", type: .transformable),
        ], relationships: [
            Relationship(name: "recipe", destination: "Recipe", inverse: "image", isOptional: false, minCount: 1),
        ]),
        Entity(name: "Ingredient", attributes: [
            Attribute(name: "amount", type: .string),
            Attribute(name: "displayOrder", type: .integer16, isOptional: false),
            Attribute(name: "name", type: .string, isOptional: false),
        ], relationships: [
            Relationship(name: "recipe", destination: "Recipe", inverse: "ingredients", minCount: 1),
        ]),
        Entity(name: "Recipe", attributes: [
            Attribute(name: "instructions", type: .string),
            Attribute(name: "name", type: .string),
            Attribute(name: "overview", type: .string),
            Attribute(name: "prepTime", type: .string),
            Attribute(name: "thumbnailImage", type: .transformable),
        ], relationships: [
            Relationship(name: "image", destination: "Image", inverse: "recipe", minCount: 1),
            Relationship(name: "ingredients", destination: "Ingredient", inverse: "recipe", isToMany: true),
            Relationship(name: "type", destination: "RecipeType", inverse: "recipes", minCount: 1),
        ]),
        Entity(name: "RecipeType", attributes: [
            Attribute(name: "name", type: .string),
        ], relationships: [
            Relationship(name: "recipes", destination: "Recipe", inverse: "type", isToMany: true),
        ]),
    ])

    /// The 2009 framework put ZRECIPE's VARCHAR columns in another order (prepTime, name,
    /// instructions, overview) and each table's indexes right after it.
    static let recipes = CoreDataCase(
        name: "recipes", model: recipesModel,
        hashes: [
            "Image": "njbxNx1A/bZrU1DVRF9Kx6AYc/E6XKYaVqbNJLdYlC8=",
            "Ingredient": "5tCLlA1r9p1UWdOTr3XJ+ZzBr6bxraWAs3Vt9zCAZek=",
            "Recipe": "PcSdeYYgO5cW+z5s8cHpAZzy3WHO/upsq6Ujxtwckog=",
            "RecipeType": "EtqagX2A7+sQqDbBbEtFZT9iQz2Hsuv8um2Nz6k5YK4=",
        ],
        schema: """
        CREATE TABLE ZIMAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZRECIPE INTEGER, ZIMAGE BLOB )
        CREATE INDEX ZIMAGE_ZRECIPE_INDEX ON ZIMAGE (ZRECIPE)
        CREATE TABLE ZINGREDIENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDISPLAYORDER INTEGER, ZRECIPE INTEGER, ZAMOUNT VARCHAR, ZNAME VARCHAR )
        CREATE INDEX ZINGREDIENT_ZRECIPE_INDEX ON ZINGREDIENT (ZRECIPE)
        CREATE TABLE ZRECIPE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZIMAGE INTEGER, ZTYPE INTEGER, ZPREPTIME VARCHAR, ZNAME VARCHAR, ZINSTRUCTIONS VARCHAR, ZOVERVIEW VARCHAR, ZTHUMBNAILIMAGE BLOB )
        CREATE INDEX ZRECIPE_ZIMAGE_INDEX ON ZRECIPE (ZIMAGE)
        CREATE INDEX ZRECIPE_ZTYPE_INDEX ON ZRECIPE (ZTYPE)
        CREATE TABLE ZRECIPETYPE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)
        """,
        comparison: .sameColumns, modelCache: false,
        entities: [(1, "Image", 0), (2, "Ingredient", 0), (3, "Recipe", 0), (4, "RecipeType", 0)],
        rowCounts: ["Image": 7, "Ingredient": 31, "Recipe": 7, "RecipeType": 5], versionIdentifiers: [])
}
