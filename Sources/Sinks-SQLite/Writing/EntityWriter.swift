import Foundation
import Diagnostics
import Pipeline
import CoreDataFormat
import SQLite

/// Writes the records of one concrete entity: its prepared statements, what each parameter binds,
/// and the index of the unique keys written so far.
///
/// Everything a record needs is resolved here once, so writing a record is a key lookup, binds
/// and a step: no names, no SQL text.
final class EntityWriter {
    let entity: Int
    let name: String
    let table: EntityTable
    /// `table.columns`' sources alone: iterating them per record retains no strings.
    private let sources: [EntityTable.Source]
    /// Per column: how the layout stores the value, and whether that is other than as it is.
    private let storage: [EntityTable.Storage]
    private let converts: [Bool]
    let attributes: [Attribute]
    let relationships: [Relationship]
    /// Per relationship slot: a to-many whose inverse is a to-many too (a join table's).
    let isManyToMany: [Bool]
    /// Per relationship slot: the inverse's name when both sides are to-one (a one-to-one), whose
    /// foreign key Core Data keeps on both sides: a link through the slot sets the inverse too.
    let oneToOneInverse: [String?]
    /// Whether a new row can lack a value the model requires: a required attribute with no default
    /// outside the key (a record with an empty key is skipped, never inserted).
    let mayLackRequiredValue: Bool
    /// Whether this record, or one it links or lists at any depth, may lack a required value
    /// (set by the sink once every writer is made): where none may, a record's links and lists
    /// need no walk before it is written.
    var mayLackRequiredValueBelow = true
    /// Per relationship slot: the entities (model indexes) a to-many may list; empty for a to-one.
    let listTargets: [[Int]]
    /// Whether any slot is a one-to-one: the many entities without one skip those steps.
    let hasOneToOne: Bool
    /// Whether a to-one may link a record of this very entity (a category's parent): a record's
    /// own link may then make the row its key names (`C,C`, a category that is its own parent).
    let linksToItself: Bool
    /// `table.entityNumber`, or 0: what a row linking here records as this entity.
    let entityNumber: Int64
    /// The value a new row gets for each attribute the record leaves out.
    private let defaults: [Value]
    private let required: [Bool]
    /// Attribute slots of the unique key; empty when the entity has none.
    let keySlots: [Int]
    /// Relationship slots of the unique key (a join entity's `recipe, ingredient`): the linked
    /// row identifies the record, so the key is known once those links are found.
    let keyLinkSlots: [Int]
    /// The key's parts in the key's order: attribute or relationship slots.
    private let keyParts: [KeyPart]
    private enum KeyPart { case attribute(Int), link(Int) }
    /// The slots of a key of exactly two links, for `linkPairKey`.
    private let linkPair: (Int, Int)?
    /// The key text of a linked record, and of a row a link column holds (slot, row): set by the
    /// sink, which knows the other entities' writers. For keys with relationships.
    var linkKeyText: ((EntityRecord) -> String)?
    var linkedRowKeyText: ((Int, Int64) -> String)?
    let keys: KeyIndex
    /// Rows created by links only, with where the first link was: placeholders until a record of
    /// this entity with their key arrives and completes them.
    var placeholders: [Int64: Location] = [:]
    /// Rows an update removed (owned children it replaced) whose keys the index still holds, and
    /// the rows written for such keys since, by the row the index holds: see `liveRow`.
    var removedRows: Set<Int64> = []
    var revivedRows: [Int64: Int64] = [:]
    /// Whether `removedRows` or `revivedRows` was ever written: one test per lookup until then.
    var hasRewrittenKeys = false
    /// Per relationship slot: the join table's record of which side gave each pair, and this side's
    /// number in it (many-to-many only; set by the sink, which sees both sides).
    var joinSides: [(sides: JoinSides, side: Int)?] = []

    let connection: SQLiteConnection
    private let insert: SQLiteStatement
    /// An ASCII text key's bytes for `insert`, which binds them from here without a copy: a copy
    /// (`SQLITE_TRANSIENT`) cost SQLite a malloc and a free for every row.
    private let keyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: TextKeyHash.inlineCapacity)
    // Prepared on first use: duplicates and their reporting are the rare path.
    private var compareStatement: SQLiteStatement?
    private var updateStatement: SQLiteStatement?
    private var keyStatement: SQLiteStatement?
    /// Per relationship name: reading and setting the link column(s) of one row (one-to-one inverses).
    private var linkStatements: [String: (read: SQLiteStatement, write: SQLiteStatement, hasOrder: Bool)] = [:]
    /// Per relationship slot: adding a row to a many-to-many's join table.
    private var joinStatements: [Int: SQLiteStatement] = [:]
    /// Per relationship slot and row count: adding that many rows to a join table at once.
    private var joinBatchStatements: [JoinBatch: SQLiteStatement] = [:]
    private struct JoinBatch: Hashable { var slot: Int, rows: Int }
    /// Per column: setting the key of the row that lists a row (`setListingKey`).
    private var listingStatements: [String: SQLiteStatement] = [:]
    /// Statements of updates that replace lists (`EntityWriter+Replacing.swift`), by their SQL.
    var replacingStatements: [String: SQLiteStatement] = [:]
    /// Indexes made for those updates' lookups, dropped before the store is completed.
    var replacingIndexes: [String] = []

    init(entity: Int, table: EntityTable, model: StoreModel, connection: SQLiteConnection, keys: KeyIndex) throws {
        let name = model.entities[entity].name
        self.entity = entity
        self.name = name
        self.table = table
        self.sources = table.columns.map(\.source)
        self.storage = table.columns.map(\.storage)
        self.converts = storage.map { if case .asIs = $0 { false } else { true } }
        let attributes = model.allAttributes(of: name)
        self.attributes = attributes
        let relationships = model.allRelationships(of: name)
        self.relationships = relationships
        self.isManyToMany = relationships.map { relationship in
            relationship.isToMany && relationship.inverse.map { inverse in
                model.allRelationships(of: relationship.destination).contains { $0.name == inverse && $0.isToMany }
            } ?? false
        }
        self.oneToOneInverse = relationships.map { relationship in
            guard !relationship.isToMany, !relationship.isTransient, let inverse = relationship.inverse,
                  model.allRelationships(of: relationship.destination).contains(where: { $0.name == inverse && !$0.isToMany && !$0.isTransient })
            else { return nil }
            return inverse
        }
        self.hasOneToOne = oneToOneInverse.contains { $0 != nil }
        self.linksToItself = table.linkTargets.contains { $0.contains(entity) }
        self.listTargets = relationships.map { relationship in
            guard relationship.isToMany else { return [] }
            return model.entities.indices.filter { index in
                !model.entities[index].isAbstract && model.lineage(of: model.entities[index].name).contains { $0.name == relationship.destination }
            }
        }
        self.entityNumber = table.entityNumber ?? 0
        self.defaults = attributes.map { $0.defaultValue ?? .null }
        self.required = attributes.map { !$0.isOptional }
        // The layout has checked that every key name is an attribute.
        let keyParts: [KeyPart] = model.uniqueKey(of: name).compactMap { keyName in
            if let slot = attributes.firstIndex(where: { $0.name == keyName }) { return .attribute(slot) }
            return relationships.firstIndex { $0.name == keyName }.map(KeyPart.link)
        }
        self.keyParts = keyParts
        self.keySlots = keyParts.compactMap { if case .attribute(let slot) = $0 { slot } else { nil } }
        self.keyLinkSlots = keyParts.compactMap { if case .link(let slot) = $0 { slot } else { nil } }
        if keyParts.count == 2, case .link(let first) = keyParts[0], case .link(let second) = keyParts[1] {
            linkPair = (first, second)
        } else {
            linkPair = nil
        }
        textKeySlot = keySlots.count == 1 && keyLinkSlots.isEmpty ? keySlots[0] : nil
        let (required, defaults, keySlots) = (self.required, self.defaults, self.keySlots)
        mayLackRequiredValue = sources.contains { source in
            guard case .attribute(let slot) = source else { return false }
            return required[slot] && defaults[slot] == .null && !keySlots.contains(slot)
        }
        self.keys = keys
        self.connection = connection
        self.insert = try connection.prepare(table.insertSQL)
    }

    deinit {
        // SQLite may keep the pointer until the statement is bound again or finalized: unbind first.
        insert.reset()
        keyBytes.deallocate()
    }

    var hasKey: Bool { !keyParts.isEmpty }
    /// Whether the key names relationships: it is then made with `key(of:linkedRows:)`.
    var hasLinkKey: Bool { !keyLinkSlots.isEmpty }
    /// The key's slot when the key is one attribute.
    private let textKeySlot: Int?

    // MARK: Keys

    /// The record's key, or nil when any part of it is empty (missing, NULL or empty text).
    ///
    /// A short text key is given by the bytes its hash carries (`EntityRecord.keyHash`): found and
    /// kept without touching the text, which the reading thread made (see `TextKeyHash`).
    @inline(__always)
    func key(of record: EntityRecord) -> KeyIndex.Key? {
        if let hash = record.keyHash, hash.hasInlineBytes {
            assert(keyText(of: record, hashesTo: hash), "\(name): the record's key hash is not its key's")
            return .canonical(hash)
        }
        if keySlots.count == 1 {
            guard let value = record.values[keySlots[0]], !value.isEmpty else { return nil }
            if case .text(let text) = value { return .text(text) }
            return .value(value)
        }
        var tuple: [Value] = []
        tuple.reserveCapacity(keySlots.count)
        for slot in keySlots {
            guard let value = record.values[slot], !value.isEmpty else { return nil }
            tuple.append(value)
        }
        return .values(tuple)
    }

    /// The key of two links (a join entity's `recipe, ingredient`), from the rows they were found
    /// at alone: no array for each record's key, and no record to read (passing one on from a
    /// closure copied it). `.some(nil)` where a link was not found; nil for other keys.
    func linkPairKey(linkedRows: (Int) -> LinkedRow?) -> KeyIndex.Key?? {
        guard let (first, second) = linkPair else { return nil }
        guard let a = linkedRows(first), let b = linkedRows(second) else { return .some(nil) }
        return .pair(a.rowID, b.rowID)
    }

    /// The key of a record whose key names relationships, with the rows its key links were
    /// found at; nil when an attribute of it is empty.
    func key(of record: EntityRecord, linkedRows: (Int) -> LinkedRow?) -> KeyIndex.Key? {
        if let key = linkPairKey(linkedRows: linkedRows) { return key }
        var tuple: [Value] = []
        tuple.reserveCapacity(keyParts.count)
        for part in keyParts {
            switch part {
            case .attribute(let slot):
                guard let value = record.values[slot], !value.isEmpty else { return nil }
                tuple.append(value)
            case .link(let slot):
                guard let row = linkedRows(slot) else { return nil }
                tuple.append(.integer(row.rowID))
            }
        }
        return .values(tuple)
    }

    private func keyName(_ part: KeyPart) -> String {
        switch part {
        case .attribute(let slot): attributes[slot].name
        case .link(let slot): relationships[slot].name
        }
    }

    /// Whether the record's key is one text value whose hash is `hash`.
    private func keyText(of record: EntityRecord, hashesTo hash: TextKeyHash) -> Bool {
        guard keySlots.count == 1, case .text(let text)? = record.values[keySlots[0]] else { return false }
        var scratch: [UInt8] = []
        return TextKeyHash(of: text, scratch: &scratch) == hash
    }

    /// Why a record with an empty key is skipped: `Item has an empty unique key 'name'`.
    func emptyKeyReason(of record: EntityRecord) -> String {
        var reason = "\(name) has an empty unique key '\(keyParts.map(keyName).joined(separator: ", "))'"
        if keyParts.count > 1 {
            let empty = keyParts.filter { part in
                switch part {
                case .attribute(let slot): record.values[slot]?.isEmpty ?? true
                case .link(let slot): record.links[slot] == nil
                }
            }.map { "'\(keyName($0))'" }
            reason += " (\(empty.joined(separator: ", ")) empty)"
        }
        return reason
    }

    /// The key as users read it: `name=Milk`, `aisle=3, shop=North`.
    func keyText(of record: EntityRecord) -> String {
        keyParts.map { part in
            switch part {
            case .attribute(let slot): "\(attributes[slot].name)=\((record.values[slot] ?? .null).displayText)"
            case .link(let slot): "\(relationships[slot].name)=(\(record.links[slot].flatMap { linkKeyText?($0) } ?? ""))"
            }
        }.joined(separator: ", ")
    }

    /// The key of a stored row as users read it (`id=7` for an entity without a key); empty for
    /// no row.
    func keyText(ofRow rowID: Int64?) throws -> String {
        guard let rowID else { return "" }
        guard hasKey else { return "\(table.rowID)=\(rowID)" }
        let statement = try keyStatement ?? connection.prepare(table.selectSQL(keyParts.map { part in
            switch part {
            case .attribute(let slot):
                table.columns.first { if case .attribute(slot) = $0.source { true } else { false } }?.name ?? attributes[slot].name
            case .link(let slot):
                table.columns.first { if case .link(slot) = $0.source { true } else { false } }?.name ?? relationships[slot].name
            }
        }))
        keyStatement = statement
        defer { statement.reset() }
        try statement.bind(.integer(rowID), at: 1)
        guard try statement.step() else { return "\(table.rowID)=\(rowID)" }
        let values = keyParts.indices.map { statement.value(at: Int32($0)) }
        return zip(keyParts, values).map { part, value in
            switch part {
            case .attribute(let slot):
                return "\(attributes[slot].name)=\(StoredValue.displayText(value, as: attributes[slot].type))"
            case .link(let slot):
                guard case .integer(let row) = value else { return "\(relationships[slot].name)=()" }
                return "\(relationships[slot].name)=(\(linkedRowKeyText?(slot, row) ?? "row \(row)"))"
            }
        }.joined(separator: ", ")
    }

    // MARK: One-to-one inverses

    /// The row that row `rowID` links to through relationship `name`, if any.
    func linkedRow(of rowID: Int64, through name: String) throws -> Int64? {
        let statements = try linkStatements(name)
        defer { statements.read.reset() }
        try statements.read.bind(.integer(rowID), at: 1)
        guard try statements.read.step(), case .integer(let linked) = statements.read.value(at: 0) else { return nil }
        return linked
    }

    /// Sets the link of row `rowID` through relationship `name` (a to-one with a column) to `linked`.
    func setLink(of rowID: Int64, through name: String, to linked: LinkedRow?) throws {
        let statements = try linkStatements(name)
        try statements.write.bind(linked?.rowID, at: 1)
        try statements.write.bind(linked?.entityNumber, at: 2)
        try statements.write.bind(.integer(rowID), at: 3)
        if statements.hasOrder { try statements.write.bind(linked?.order, at: 4) }
        try statements.write.run()
    }

    private func linkStatements(_ name: String) throws -> (read: SQLiteStatement, write: SQLiteStatement, hasOrder: Bool) {
        if let statements = linkStatements[name] { return statements }
        guard let slot = relationships.firstIndex(where: { $0.name == name }),
              let column = table.columns.first(where: { if case .link(slot) = $0.source { true } else { false } }) else {
            throw PipelineError(.io, code: .storeInconsistent, stage: "sqlite", "'\(self.name).\(name)' has no column to link a row through")
        }
        let entityColumn = table.columns.first { if case .linkEntity(slot) = $0.source { true } else { false } }
        let table = SQL.quote(table.name), rowID = SQL.quote(self.table.rowID)
        var sets = ["\(SQL.quote(column.name)) = ?1"]
        // ?2 is bound for every relationship; SQLite lets a statement leave a parameter below the last unused.
        if let entityColumn { sets.append("\(SQL.quote(entityColumn.name)) = ?2") }
        let order = self.table.columns.first { if case .order(slot) = $0.source { true } else { false } }
        if let order { sets.append("\(SQL.quote(order.name)) = ?4") }
        let statements = (read: try connection.prepare("SELECT \(SQL.quote(column.name)) FROM \(table) WHERE \(rowID) = ?1"),
                          write: try connection.prepare("UPDATE \(table) SET \(sets.joined(separator: ", ")) WHERE \(rowID) = ?3"),
                          hasOrder: order != nil)
        linkStatements[name] = statements
        return statements
    }

    /// The first attribute slot a new row of `record` would leave empty though the model requires
    /// it and gives no default (what `insert` rejects), or nil.
    /// The rejection of a new row without a value for required attribute `slot`.
    func missingValue(_ slot: Int, at location: Location) -> Rejection {
        Rejection(at: location, stage: "sqlite", field: attributes[slot].name,
                  reason: "\(name).\(attributes[slot].name) is required and has no default, but the record gives no value")
    }

    func missingRequiredValue(in record: EntityRecord) -> Int? {
        guard mayLackRequiredValue else { return nil }
        for case .attribute(let slot) in sources where required[slot] {
            if case .null = record.values[slot] ?? defaults[slot] { return slot }
        }
        return nil
    }

    // MARK: Many-to-many

    /// Adds the pair (`own`, `other`) to the join table of relationship `slot`, unless it is
    /// there: `order` is `other`'s place in this row's ordered list; where the inverse is ordered
    /// too, this row goes last in `other`'s.
    /// Sets the key of the row that lists row `rowID` through a to-many without inverse.
    func setListingKey(_ column: String, of rowID: Int64, to listing: Int64?) throws {
        let statement = try listingStatements[column] ?? connection.prepare(
            "UPDATE \(SQL.quote(table.name)) SET \(SQL.quote(column)) = ?1 WHERE \(SQL.quote(table.rowID)) = ?2")
        listingStatements[column] = statement
        try statement.bind(listing, at: 1)
        try statement.bind(.integer(rowID), at: 2)
        try statement.run()
    }

    /// The most rows `addJoinRows` adds in one statement.
    static let joinRowsAtOnce = 8

    /// Whether `addJoinRows` can add the rows of `join`: one whose other side keeps an order reads
    /// the join table for each row's place, which rows of the same statement would not see.
    static func addsJoinRowsAtOnce(_ join: EntityTable.Join) -> Bool { join.otherOrder == nil }

    /// Adds the rows (`own`, each of `others` with its place) to a join table, in order: as
    /// `addJoinRow` would one at a time, with the same row ids, in one statement per
    /// `joinRowsAtOnce` rows. Each statement costs SQLite about 3,000 instructions beyond its
    /// rows: a recipe's three tags took 8,000 a row one at a time, 5,100 three at once.
    func addJoinRows(slot: Int, _ join: EntityTable.Join, own: Int64, others: ArraySlice<(row: Int64, order: Int64?)>) throws {
        precondition(Self.addsJoinRowsAtOnce(join), "a join table whose other side is ordered takes its rows one at a time")
        var rest = others
        while !rest.isEmpty {
            let rows = rest.prefix(Self.joinRowsAtOnce)
            rest = rest.dropFirst(rows.count)
            guard rows.count > 1 else {
                try addJoinRow(slot: slot, join, own: own, other: rows[rows.startIndex].row, order: rows[rows.startIndex].order)
                continue
            }
            let perRow: Int32 = join.ownOrder == nil ? 2 : 3
            let statement = try joinBatchStatements[JoinBatch(slot: slot, rows: rows.count)] ?? {
                var columns = [join.ownColumn, join.otherColumn]
                if let ownOrder = join.ownOrder { columns.append(ownOrder) }
                let values = (0..<Int32(rows.count)).map { row in
                    "(" + (1...perRow).map { "?\(row * perRow + $0)" }.joined(separator: ", ") + ")"
                }
                let statement = try connection.prepare("INSERT OR IGNORE INTO \(SQL.quote(join.table)) (\(columns.map(SQL.quote).joined(separator: ", "))) "
                                                       + "VALUES \(values.joined(separator: ", "))")
                joinBatchStatements[JoinBatch(slot: slot, rows: rows.count)] = statement
                return statement
            }()
            var parameter: Int32 = 1
            for (other, order) in rows {
                try statement.bind(.integer(own), at: parameter)
                try statement.bind(.integer(other), at: parameter + 1)
                if join.ownOrder != nil { try statement.bind(order, at: parameter + 2) }
                parameter += perRow
            }
            try statement.run()
        }
    }

    func addJoinRow(slot: Int, _ join: EntityTable.Join, own: Int64, other: Int64, order: Int64?) throws {
        let statement = try joinStatements[slot] ?? {
            let table = SQL.quote(join.table)
            var columns = [join.ownColumn, join.otherColumn].map(SQL.quote), values = ["?1", "?2"]
            if let ownOrder = join.ownOrder {
                columns.append(SQL.quote(ownOrder))
                values.append("?3")
            }
            if let otherOrder = join.otherOrder {
                let (first, step) = self.table.orderKeys
                columns.append(SQL.quote(otherOrder))
                values.append("(SELECT coalesce(max(\(SQL.quote(otherOrder))), \(first - step)) + \(step) FROM \(table) "
                              + "WHERE \(SQL.quote(join.otherColumn)) = ?2)")
            }
            let statement = try connection.prepare("INSERT OR IGNORE INTO \(table) (\(columns.joined(separator: ", "))) "
                                                   + "VALUES (\(values.joined(separator: ", ")))")
            joinStatements[slot] = statement
            return statement
        }()
        try statement.bind(.integer(own), at: 1)
        try statement.bind(.integer(other), at: 2)
        if join.ownOrder != nil { try statement.bind(order, at: 3) }
        try statement.run()
    }

    // MARK: Writing

    /// Inserts a new row from the record's values (defaults where it gives none) and the linked
    /// rows, and returns its row id.
    ///
    /// Throws `Rejection` when a required attribute would be empty or the row would break a
    /// uniqueness constraint of the model.
    func insert(_ record: EntityRecord, links: UnsafeMutableBufferPointer<LinkedRow?>) throws -> Int64 {
        do {
            for (column, source) in sources.enumerated() {
                let parameter = Int32(column + 1)
                switch source {
                case .attribute(let slot):
                    // A key whose UTF-8 is its canonical bytes is bound from those: the text is not touched.
                    if slot == textKeySlot, let hash = record.keyHash, hash.isCanonical,
                       let count = hash.withInlineBytes({ bytes -> Int in
                           if let base = bytes.baseAddress { keyBytes.update(from: base, count: bytes.count) }
                           return bytes.count
                       }) {
                        try insert.bind(unchangedUTF8: UnsafeBufferPointer(start: keyBytes, count: count), at: parameter)
                        continue
                    }
                    let value = record.values[slot] ?? defaults[slot]
                    if required[slot], case .null = value { throw missingValue(slot, at: record.location) }
                    try insert.bind(try stored(value, column: column, slot: slot, at: record.location), at: parameter)
                case .link(let slot):
                    try insert.bind(links[slot]?.rowID, at: parameter)
                case .linkEntity(let slot):
                    try insert.bind(links[slot]?.entityNumber, at: parameter)
                case .order(let slot):
                    try insert.bind(links[slot]?.order, at: parameter)
                }
            }
        } catch {
            insert.reset()
            throw error
        }
        guard try insert.runUnlessUniqueConflict() else {
            throw try uniqueConflict(record: record, links: links, stored: nil)
        }
        return connection.lastInsertRowID
    }

    /// The value as the column keeps it: a UUID's text as its 16 bytes, a list archived, where
    /// the layout says so.
    @inline(__always)
    private func stored(_ value: Value, column: Int, slot: Int, at location: Location) throws -> Value {
        guard converts[column] else { return value }
        switch (storage[column], value) {
        case (.uuidBytes, .text(let text)):
            guard let uuid = UUID(uuidString: text) else {
                throw Rejection(at: location, stage: "sqlite", field: attributes[slot].name, rawValue: text, reason: "not a UUID")
            }
            return .binary(withUnsafeBytes(of: uuid.uuid) { Array($0) })
        case (.externalBinary, .binary(let bytes)):
            return .binary(CoreDataExternalData.inline(bytes))
        case (.archivedArray(let element?), .list(var values)):
            // Enums and structs as the app's Codable writes them, each element checked against its type.
            if let shape = attributes[slot].elementShape {
                switch ElementShape.array(shape).encode(.list(values)) {
                case .success(.list(let encoded)): values = encoded
                case .success: break
                case .failure(let failure):
                    throw Rejection(at: location, stage: "sqlite", field: attributes[slot].name, rawValue: value.displayText,
                                    reason: "an element of the list \(failure.reason)")
                }
            }
            switch KeyedArchive.archive(values, element: element) {
            case .success(let bytes): return .binary(bytes)
            case .failure(let failure):
                throw Rejection(at: location, stage: "sqlite", field: attributes[slot].name, rawValue: value.displayText,
                                reason: "an element of the list \(failure.reason)")
            }
        case (.archivedArray(nil), .list):
            throw Rejection(at: location, stage: "sqlite", field: attributes[slot].name, rawValue: value.displayText,
                            reason: "is a list, and only a SwiftData app's array property (read from its @Model source) takes one")
        default:
            return value
        }
    }

    /// Why a row breaking a unique index is turned away, naming the model's constraint.
    /// `stored` holds the row's columns when it is an update (of row `row`), whose record may
    /// leave some out.
    private func uniqueConflict(record: EntityRecord, links: UnsafeMutableBufferPointer<LinkedRow?>,
                                stored: [Value]?, row: Int64? = nil) throws -> Rejection {
        guard let constraint = try brokenConstraint(record: record, links: links, stored: stored, row: row) else {
            return Rejection(at: record.location, stage: "sqlite",
                             reason: "\(name) breaks a unique index of table '\(table.name)': the store already holds such a row")
        }
        var field: String?
        let values = constraint.columns.compactMap { column -> String? in
            guard let index = table.columns.firstIndex(where: { $0.name == column }) else { return nil }
            switch table.columns[index].source {
            case .attribute(let slot):
                field = field ?? attributes[slot].name
                let value = record.values[slot] ?? stored.map { StoredValue.displayText($0[index], as: attributes[slot].type) }
                    .map(Value.text) ?? defaults[slot]
                return "\(attributes[slot].name)=\(value.displayText)"
            case .link(let slot):
                let row = links[slot].map { Value.integer($0.rowID) } ?? stored?[index] ?? .null
                return "\(relationships[slot].name)=\(row == .null ? "none" : "row \(row.displayText)")"
            case .linkEntity, .order:
                return nil
            }
        }
        return Rejection(at: record.location, stage: "sqlite", field: field,
                         reason: "\(name) breaks the model's uniqueness constraint on \(constraint.description): "
                             + "the store already holds a row with \(values.joined(separator: ", "))")
    }

    /// Which of the table's unique indexes the row breaks. SQLite says only that one was broken
    /// (`SQLITE_CONSTRAINT_UNIQUE`); with several, each is asked whether another row holds the
    /// row's values. A rare path: prepared each time.
    private func brokenConstraint(record: EntityRecord, links: UnsafeMutableBufferPointer<LinkedRow?>,
                                  stored: [Value]?, row: Int64?) throws -> EntityTable.UniqueConstraint? {
        let constraints = table.uniqueConstraints
        guard constraints.count > 1 else { return constraints.first }
        for constraint in constraints {
            let indexes = constraint.columns.compactMap { column in table.columns.firstIndex { $0.name == column } }
            guard indexes.count == constraint.columns.count else { continue }
            var conditions = indexes.enumerated().map { k, i in "\(SQL.quote(table.columns[i].name)) IS ?\(k + 1)" }
            if row != nil { conditions.append("\(SQL.quote(table.rowID)) IS NOT ?\(indexes.count + 1)") }
            let probe = try connection.prepare("SELECT 1 FROM \(SQL.quote(table.name)) WHERE \(conditions.joined(separator: " AND ")) LIMIT 1")
            for (k, i) in indexes.enumerated() {
                try probe.bind(try columnValue(i, record: record, links: links, stored: stored), at: Int32(k + 1))
            }
            if let row { try probe.bind(.integer(row), at: Int32(indexes.count + 1)) }
            if try probe.step() { return constraint }
        }
        return nil
    }

    /// What column `i` holds for the record: its own value or link, else the stored one (an
    /// update), else the attribute's default.
    private func columnValue(_ i: Int, record: EntityRecord, links: UnsafeMutableBufferPointer<LinkedRow?>,
                             stored: [Value]?) throws -> Value {
        switch sources[i] {
        case .attribute(let slot):
            if let value = record.values[slot] { return try self.stored(value, column: i, slot: slot, at: record.location) }
            return try stored?[i] ?? self.stored(defaults[slot], column: i, slot: slot, at: record.location)
        case .link(let slot):
            if record.links[slot] == nil, let stored { return stored[i] }
            return links[slot].map { .integer($0.rowID) } ?? .null
        case .linkEntity(let slot):
            if record.links[slot] == nil, let stored { return stored[i] }
            return links[slot].map { .integer($0.entityNumber) } ?? .null
        case .order(let slot):
            if let stored { return stored[i] }
            return links[slot]?.order.map(Value.integer) ?? .null
        }
    }

    /// The stored columns of row `rowID` and the indexes of the columns whose given value (a
    /// non-nil value or link slot) differs from the stored one.
    ///
    /// Columns of a linked record's entity (`.linkEntity`) are never reported apart: the same row
    /// id in one table is the same entity.
    func compare(row rowID: Int64, with record: EntityRecord,
                 links: UnsafeMutableBufferPointer<LinkedRow?>) throws -> (stored: [Value], differing: [Int]) {
        let statement = try compareStatement ?? connection.prepare(table.compareSQL)
        compareStatement = statement
        defer { statement.reset() }
        try statement.bind(.integer(rowID), at: 1)
        for (i, source) in sources.enumerated() {
            switch source {
            case .attribute(let slot):
                try statement.bind(try stored(record.values[slot] ?? .null, column: i, slot: slot, at: record.location), at: Int32(i + 2))
            case .link(let slot): try statement.bind(links[slot]?.rowID, at: Int32(i + 2))
            case .linkEntity(let slot): try statement.bind(links[slot]?.entityNumber, at: Int32(i + 2))
            case .order: try statement.bind(nil, at: Int32(i + 2))
            }
        }
        guard try statement.step() else {
            throw PipelineError(.io, code: .storeInconsistent, stage: "sqlite", "row \(rowID) of '\(name)' is missing from the store being built")
        }
        let count = sources.count
        let stored = (0..<count).map { statement.value(at: Int32($0)) }
        var differing: [Int] = []
        for (i, source) in sources.enumerated() where isGiven(source, in: record) {
            if case .linkEntity = source { continue }
            if statement.value(at: Int32(count + i)) == .integer(0) { differing.append(i) }
        }
        return (stored, differing)
    }

    /// Replaces the stored columns of row `rowID` with the record's given values and links,
    /// keeping `stored` (from `compare`) where the record gives nothing.
    ///
    /// Throws `Rejection` when the row would break a uniqueness constraint of the model.
    func update(row rowID: Int64, with record: EntityRecord, links: UnsafeMutableBufferPointer<LinkedRow?>,
                stored: [Value]) throws {
        let statement = try updateStatement ?? connection.prepare(table.updateSQL)
        updateStatement = statement
        do {
            for (i, source) in sources.enumerated() {
                let parameter = Int32(i + 1)
                switch source {
                case .attribute(let slot):
                    let value = try record.values[slot].map { try self.stored($0, column: i, slot: slot, at: record.location) }
                    try statement.bind(value ?? stored[i], at: parameter)
                case .link(let slot):
                    if record.links[slot] != nil { try statement.bind(links[slot]?.rowID, at: parameter) }
                    else { try statement.bind(stored[i], at: parameter) }
                case .linkEntity(let slot):
                    if record.links[slot] != nil { try statement.bind(links[slot]?.entityNumber, at: parameter) }
                    else { try statement.bind(stored[i], at: parameter) }
                case .order:
                    // Set by the record that lists this one (`setLink`), never by the row's own record.
                    try statement.bind(stored[i], at: parameter)
                }
            }
            try statement.bind(.integer(rowID), at: Int32(sources.count + 1))
        } catch {
            statement.reset()
            throw error
        }
        guard try statement.runUnlessUniqueConflict() else {
            throw try uniqueConflict(record: record, links: links, stored: stored, row: rowID)
        }
    }

    /// Whether the record gives column `source` (nil slots leave the stored value alone).
    private func isGiven(_ source: EntityTable.Source, in record: EntityRecord) -> Bool {
        switch source {
        case .attribute(let slot): record.values[slot] != nil
        case .link(let slot), .linkEntity(let slot): record.links[slot] != nil
        case .order: false
        }
    }
}
