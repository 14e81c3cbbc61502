import Diagnostics
import Checksums
import Foundation
import Pipeline
import PropertyLists

/// The store metadata Core Data keeps in Z_METADATA: a binary property list (`Z_PLIST`) and the
/// store UUID (`Z_UUID`).
///
/// ```swift
/// let metadata = CoreDataMetadata(model: model, extra: ["DefaultDataImported": .bool(true)])
/// let plist = try metadata.binaryPropertyList()          // bplist00...
/// let uuid = CoreDataMetadata.storeUUID(from: inputDigest) // "6FA1...": same inputs, same UUID
/// ```
public struct CoreDataMetadata: Sendable {
    /// `NSPersistenceFrameworkVersion` written by default: the value in the newest store of the
    /// test cases (a 2024 store written by the macOS 14/iOS 17 framework). Core Data records the
    /// writer's version but does not compare it when opening a store: the entity hashes decide.
    public static let defaultFrameworkVersion = 1044

    /// Entity name to 32-byte version hash.
    public var versionHashes: [String: Data]
    public var versionIdentifiers: [String]
    public var frameworkVersion: Int
    /// The app's own keys (such as `DefaultDataImported`), added beside Core Data's.
    public var extra: [String: Value]

    public init(versionHashes: [String: Data], versionIdentifiers: [String],
                frameworkVersion: Int = CoreDataMetadata.defaultFrameworkVersion, extra: [String: Value] = [:]) {
        self.versionHashes = versionHashes
        self.versionIdentifiers = versionIdentifiers
        self.frameworkVersion = frameworkVersion
        self.extra = extra
    }

    /// `NSPersistenceFrameworkVersion` of a store for a SwiftData app: the newest SwiftData store
    /// of the cases (swiftdata-metacocktails, an iOS 18 era store).
    public static let swiftDataFrameworkVersion = 1414

    /// The metadata of a store for `model`; the framework version its app's stores have
    /// (`StoreModel.frameworkVersion`), else `defaultFrameworkVersion`.
    public init(model: StoreModel, frameworkVersion: Int? = nil, extra: [String: Value] = [:]) {
        self.init(versionHashes: CoreDataVersionHashes.hashes(for: model), versionIdentifiers: model.versionIdentifiers,
                  frameworkVersion: frameworkVersion ?? model.frameworkVersion ?? Self.defaultFrameworkVersion, extra: extra)
    }

    /// The entity hashes in ascending name order, as both digests take them.
    private var sortedHashes: [(name: String, hash: Data)] {
        versionHashes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `NSStoreModelVersionHashesDigest`: SHA-512 of each entity's UTF-8 name and hash, in name
    /// order, base64 (confirmed by swiftdata-metacocktails, swiftdata-cheftime, bookmarks-ddg and
    /// coredataplus-samplemodel, framework 1044 and later; the stores of 847 and before lack it).
    public var hashesDigest: String {
        var bytes = Data()
        for (name, hash) in sortedHashes { bytes.append(contentsOf: name.utf8); bytes.append(hash) }
        return Data(Checksum.sha512(bytes)).base64EncodedString()
    }

    /// `NSStoreModelVersionChecksumKey`: SHA-256 of the entity hashes in name order, base64
    /// (confirmed by the same SwiftData stores and bookmarks-ddg, framework 1327 and later; the
    /// 1044 store lacks it).
    public var checksum: String {
        var bytes = Data()
        for (_, hash) in sortedHashes { bytes.append(hash) }
        return Data(Checksum.sha256(bytes)).base64EncodedString()
    }

    /// Keys Core Data owns; an app key of the same name would be silently replaced, so it is refused.
    public static let reservedKeys: Set<String> = [
        "NSStoreType", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion",
        "NSStoreModelVersionIdentifiers", "NSPersistenceFrameworkVersion", "_NSAutoVacuumLevel", "NSStoreUUID",
        "NSStoreModelVersionHashesDigest", "NSStoreModelVersionChecksumKey",
    ]

    /// The plist dictionary: Core Data's keys plus `extra`.
    public func propertyList() throws -> BinaryPropertyList.Object {
        var plist: [String: BinaryPropertyList.Object] = [
            "NSStoreType": .string("SQLite"),
            "NSStoreModelVersionHashes": .dictionary(versionHashes.mapValues { .data(Array($0)) }),
            "NSStoreModelVersionHashesVersion": .integer(3),
            "NSStoreModelVersionIdentifiers": .array(versionIdentifiers.map(BinaryPropertyList.Object.string)),
            "NSPersistenceFrameworkVersion": .integer(Int64(frameworkVersion)),
            "_NSAutoVacuumLevel": .string("2"),
        ]
        // Written by the framework versions whose stores have them.
        if frameworkVersion >= 1044 { plist["NSStoreModelVersionHashesDigest"] = .string(hashesDigest) }
        if frameworkVersion >= 1327 { plist["NSStoreModelVersionChecksumKey"] = .string(checksum) }
        for key in extra.keys.sorted() {
            guard !Self.reservedKeys.contains(key) else {
                throw PipelineError(.invalidPipeline, code: .pipelineReservedMetadataKey, stage: "metadata",
                                    "'\(key)' is a key Core Data writes itself; choose another metadata key")
            }
            guard let value = extra[key], let object = Self.plistObject(value) else {
                throw PipelineError(.invalidPipeline, code: .pipelineEmptyValue, stage: "metadata",
                                    "metadata key '\(key)' has no value; a property list cannot hold a null")
            }
            plist[key] = object
        }
        return .dictionary(plist)
    }

    /// `Z_PLIST`: the dictionary as a binary property list (`bplist00`), the same bytes every time.
    public func binaryPropertyList() throws -> Data {
        BinaryPropertyList.encode(try propertyList())
    }

    static func plistObject(_ value: Value) -> BinaryPropertyList.Object? {
        switch value {
        case .null: nil
        case .text(let s): .string(s)
        case .integer(let i): .integer(i)
        case .double(let d): .real(d)
        // A property list has no exact decimal type; a real is what Core Data itself would store.
        case .decimal(let d): .real(Double(d.description) ?? NSDecimalNumber(decimal: d).doubleValue)
        case .bool(let b): .bool(b)
        case .date(let t): .date(t)
        case .binary(let bytes): .data(bytes)
        case .list(let values): .array(values.compactMap(plistObject))
        case .object(let fields):
            .dictionary(Dictionary(zip(fields.names, fields.values.map(plistObject)).compactMap { name, value in value.map { (name, $0) } },
                                   uniquingKeysWith: { _, last in last }))
        }
    }

    /// Namespace of pipectl's store UUIDs (itself a version 5 UUID of "pipectl.store" in the
    /// RFC 4122 DNS namespace), so they cannot collide with other name-based UUIDs.
    public static let storeNamespace = nameBasedUUID(
        namespace: UUID(uuid: (0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8)),
        name: Array("pipectl.store".utf8))

    /// `Z_UUID` derived from the run's inputs, so that the same inputs give the same store.
    /// Upper case, as Core Data writes it.
    public static func storeUUID(from input: some Sequence<UInt8>) -> String {
        nameBasedUUID(namespace: storeNamespace, name: Array(input)).uuidString.uppercased()
    }

    /// An RFC 4122 version 5 (SHA-1, name-based) UUID.
    public static func nameBasedUUID(namespace: UUID, name: [UInt8]) -> UUID {
        var bytes = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        bytes += name
        var digest = Array(Checksum.sha1(bytes).prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x50  // version 5
        digest[8] = (digest[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                           digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]))
    }
}
