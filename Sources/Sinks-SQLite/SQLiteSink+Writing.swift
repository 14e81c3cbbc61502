import Diagnostics
import Pipeline
import CoreDataFormat
import SQLite

extension SQLiteSink {
    /// Writes `record` after the records it links to and returns its row, or nil when it was
    /// skipped for an empty key.
    ///
    /// `onDuplicate` is nil for a linked record, which is found or created, never compared or
    /// updated. `linkedFrom` is the link that led here, named in the skip reason (`Item.unit`).
    ///
    /// The record's own key is looked up before its links are resolved: a record that is skipped
    /// or kept as a duplicate must not create the related records only it mentions.
    ///
    /// `record` is `inout` only so that it and its linked records are read in place (see
    /// `RecordSink.write`); it is left as it was.
    ///
    /// `parent`: for a record a one-to-many lists, its to-one back to the record that lists it,
    /// which that record sets.
    func store(_ record: inout EntityRecord, onDuplicate: DuplicatePolicy?, linkedFrom: (writer: EntityWriter, slot: Int)?,
               parent: ParentLink? = nil, log: ImportLog) throws -> LinkedRow? {
        try unretainedWriter(for: record)._withUnsafeGuaranteedRef { writer in
            try store(&record, of: writer, onDuplicate: onDuplicate, linkedFrom: linkedFrom, parent: parent, log: log)
        }
    }

    private func store(_ record: inout EntityRecord, of writer: EntityWriter, onDuplicate: DuplicatePolicy?,
                       linkedFrom: (writer: EntityWriter, slot: Int)?, parent: ParentLink?, log: ImportLog) throws -> LinkedRow? {
        // Through a buffer pointer: `record.links[slot]?.entity` would copy the linked record.
        try record.links.withUnsafeBufferPointer { linked in
            for slot in linked.indices {
                if let entity = linked[slot]?.entity { try checkLink(to: entity, slot: slot, of: writer, at: record.location) }
            }
        }
        var key: KeyIndex.Key?
        var keyAfterLinks = false
        var foundLinks = FoundLinks()
        /// The row the index holds for the record's key, removed by an update: this record's row
        /// takes its place.
        var revives: Int64?
        if writer.hasKey {
            var recordKey: KeyIndex.Key
            // The common key first, as it was before keys could name relationships: the enum
            // around it cost a copy of the key per record (3% of the flat job's instructions).
            if !writer.hasLinkKey, let key = writer.key(of: record) {
                recordKey = key
            } else {
                switch try lookupKey(of: &record, of: writer, parent: parent) {
                case .empty:
                    // An empty cell for an optional to-one is no link, as the cell says: nothing
                    // was lost, so nothing is skipped or warned of. A record giving other values is.
                    if let (from, slot) = linkedFrom, from.relationships[slot].isOptional,
                       record.values.allSatisfy({ $0?.isEmpty ?? true }), record.links.allSatisfy({ $0 == nil }), record.lists.allSatisfy(\.isEmpty) {
                        return nil
                    }
                    var reason = writer.emptyKeyReason(of: record)
                    if let (from, slot) = linkedFrom { reason += ", so " + leftEmpty(from, slot) }
                    log.skip(entity: writer.entity, at: record.location, reason: reason)
                    return nil
                case .newLinks:
                    // A record its key links to is not in the store yet: neither is this key.
                    recordKey = .values([])
                    keyAfterLinks = true
                case .key(let found, let links):
                    recordKey = found
                    foundLinks = links
                }
            }
            // Labelled: a key whose row an update removed leaves it, to be written anew.
            stored: if !keyAfterLinks, var existing = try writer.keys.lookup(insertingIfAbsent: &recordKey, hash: record.keyHash) {
                if writer.hasRewrittenKeys {
                    guard let row = writer.liveRow(existing) else {
                        revives = existing.rowID
                        break stored
                    }
                    existing.rowID = row
                }
                guard let onDuplicate else {
                    if let parent {
                        try writer.setLink(of: existing.rowID, through: writer.relationships[parent.slot].name, to: parent.row)
                        // A record the listing record owns, by a key that names it: its values are
                        // the element's, as they would be had the list been given once.
                        if parent.replacing, writer.keyLinkSlots.contains(parent.slot) {
                            try resolveDuplicate(&record, of: writer, existing: existing, onDuplicate: .update, log: log, reported: false)
                            return LinkedRow(rowID: existing.rowID, entityNumber: writer.entityNumber)
                        }
                    }
                    log.count(.alreadyPresent, entity: writer.entity)
                    return LinkedRow(rowID: existing.rowID, entityNumber: writer.entityNumber)
                }
                if writer.placeholders[existing.rowID] != nil {
                    try complete(&record, row: existing.rowID, of: writer, log: log)
                    return LinkedRow(rowID: existing.rowID, entityNumber: writer.entityNumber)
                }
                try resolveDuplicate(&record, of: writer, existing: existing, onDuplicate: onDuplicate, log: log)
                return LinkedRow(rowID: existing.rowID, entityNumber: writer.entityNumber)
            }
            if let (from, slot) = linkedFrom, record.missing != .create {
                // `missing: reject` was checked before anything was written (`checkMissingLinks`).
                if record.missing == .reject { throw try missingLinkRejection(record, of: writer, from: from, slot: slot) }
                log.skip(entity: writer.entity, at: record.location,
                         reason: "no \(writer.name) \(writer.keyText(of: record)) in the store\(try closestKey(to: record, of: writer)) "
                             + "(missing: skip), so " + leftEmpty(from, slot))
                return nil
            }
            if !keyAfterLinks, revives == nil { key = recordKey }
        }
        if linkedFrom == nil, record.hasRejectingLinks { try checkMissingLinks(of: record, of: writer) }
        if linkedFrom == nil, !record.lists.isEmpty { try checkRequiredValues(of: record, of: writer) }
        // Linked rows live on the stack: no allocation per record.
        return try withUnsafeTemporaryAllocation(of: LinkedRow?.self, capacity: record.links.count) { links in
            links.initialize(repeating: nil)
            if let parent { links[parent.slot] = parent.row }
            // A method of its own: read inside this closure, which captures it, the record is copied.
            // A record a one-to-many lists by a key that names the listing record is its own: no
            // placeholder for another source to complete. One with a key of its own (an album a
            // playlist lists) is made by the link only, as a to-one's target is.
            let isLink = linkedFrom != nil && (parent == nil || !writer.keyLinkSlots.contains(parent.unsafelyUnwrapped.slot))
            // The records the key's lookup found are linked as they are: looked up again, each
            // would only be found and counted as already present.
            func link(_ found: FoundLinks.Found?) {
                guard let found, links[Int(found.slot)] == nil else { return }
                links[Int(found.slot)] = LinkedRow(rowID: found.rowID, entityNumber: found.entityNumber)
                log.count(.alreadyPresent, entity: Int(found.entity))
            }
            link(foundLinks.first)
            link(foundLinks.second)
            return try insertNew(&record, key: key, keyAfterLinks: keyAfterLinks, revives: revives, links: links, of: writer,
                                 isLink: isLink, log: log)
        }
    }

    /// A record's key as the index looks it up: a key that names relationships needs the rows of
    /// the records it links to, found (never created) here.
    private enum KeyLookup {
        /// A part of the key is empty: the record is skipped.
        case empty
        /// A record the key links to is not in the store: the key is new, and is made once the
        /// links are written.
        case newLinks
        /// `found`: the records of the key's relationships found by their keys.
        case key(KeyIndex.Key, found: FoundLinks)
    }

    /// Up to two records a key's relationships link to (a join entity's two sides), found by
    /// their keys: the slot, the row, and the linked record's entity.
    private struct FoundLinks {
        // Structs, not tuples: an optional tuple cost a lookup of its type's metadata per use.
        struct Found {
            var slot: Int32
            var entity: Int32
            var rowID: Int64
            var entityNumber: Int64
        }
        var first: Found?
        var second: Found?
    }

    /// `record` is `inout` only so that it and the records it links to are read in place rather
    /// than copied (as in `store`): a copy retained the record's three arrays, whose counts the
    /// reading thread wrote last, a cache line from the other core each (with the list elements
    /// copied in `storeLists`, 13% of the nested job's writing thread at 1M). It is left as it was.
    private func lookupKey(of record: inout EntityRecord, of writer: EntityWriter, parent: ParentLink? = nil) throws -> KeyLookup {
        guard writer.hasLinkKey else { return writer.key(of: record).map { .key($0, found: FoundLinks()) } ?? .empty }
        // The rows found, by slot, on the stack: a dictionary of them, made and grown for every
        // list element, cost about 2,500 instructions a lookup (the nested job's 250M of 6,099M).
        return try record.links.withUnsafeBufferPointer { linked in
            try withUnsafeTemporaryAllocation(of: LinkedRow?.self, capacity: linked.count) { rows in
                rows.initialize(repeating: nil)
                var links = FoundLinks()
                for slot in writer.keyLinkSlots {
                    if let parent, parent.slot == slot {
                        rows[slot] = parent.row
                        continue
                    }
                    guard let entity = linked[slot]?.entity else { return .empty }
                    // Passed on in place (`inout`, never written), as `record` is.
                    let link = UnsafeMutablePointer(mutating: linked.baseAddress! + slot)
                    let target = try self.writer(inPlace: &link.pointee!)
                    guard target.hasKey else { return .newLinks }  // an owned child: created with the record
                    switch try lookupKey(of: &link.pointee!, of: target) {
                    case .empty: return .empty
                    case .newLinks: return .newLinks
                    case .key(let key, _):
                        guard let entry = try target.keys.lookup(key, hash: link.pointee?.keyHash), let row = target.liveRow(entry) else {
                            return .newLinks
                        }
                        rows[slot] = LinkedRow(rowID: row, entityNumber: target.entityNumber)
                        // Storing a found record checks its own links first: one with links is stored again.
                        if link.pointee?.links.allSatisfy({ $0 == nil }) == true {
                            let found = FoundLinks.Found(slot: Int32(slot), entity: Int32(entity), rowID: row, entityNumber: target.entityNumber)
                            if links.first == nil { links.first = found } else if links.second == nil { links.second = found }
                        }
                    }
                }
                // The common key of two links first: passing `record` on from here copied it.
                let key = writer.linkPairKey(linkedRows: { rows[$0] }) ?? writer.key(of: record, linkedRows: { rows[$0] })
                return key.map { .key($0, found: links) } ?? .empty
            }
        }
    }

    /// Finds or creates the records `record` links to, then inserts it under `key`.
    private func insertNew(_ record: inout EntityRecord, key: KeyIndex.Key?, keyAfterLinks: Bool = false, revives: Int64? = nil,
                           links: UnsafeMutableBufferPointer<LinkedRow?>, of writer: EntityWriter, isLink: Bool,
                           log: ImportLog) throws -> LinkedRow {
        try storeLinks(of: &record, into: links, of: writer, log: log)
        // A record whose own link made the row of its key (a category naming itself as its
        // parent) completes that row: one row, linking itself.
        if writer.linksToItself, let key, let made = try writer.storedRow(key, hash: record.keyHash) {
            try checkOneToOne(record, links: links, of: writer, row: made)
            let (stored, _) = try writer.compare(row: made, with: record, links: links)
            try writer.update(row: made, with: record, links: links, stored: stored)
            if writer.hasOneToOne { try linkOneToOneInverses(of: record, row: made, links: links, of: writer, stored: stored, log: log) }
            writer.placeholders[made] = nil
            let row = LinkedRow(rowID: made, entityNumber: writer.entityNumber)
            if !record.lists.isEmpty { try storeLists(of: &record, row: row, of: writer, log: log) }
            log.countCompleted()
            return row
        }
        if writer.hasOneToOne { try checkOneToOne(record, links: links, of: writer, row: nil) }
        let rowID = try writer.insert(record, links: links)
        if writer.hasOneToOne { try linkOneToOneInverses(of: record, row: rowID, links: links, of: writer) }
        if !record.lists.isEmpty { try storeLists(of: &record, row: LinkedRow(rowID: rowID, entityNumber: writer.entityNumber), of: writer, log: log) }
        if let key {
            try writer.keys.insert(key, hash: record.keyHash, rowID: rowID, first: record.location)
            if isLink { writer.placeholders[rowID] = record.location }
        } else if keyAfterLinks, let key = writer.key(of: record, linkedRows: { links[$0] }) {
            // A key with relationships, new because a record it links to was: known now.
            try writer.keys.insert(key, hash: nil, rowID: rowID, first: record.location)
            if isLink { writer.placeholders[rowID] = record.location }
        } else if let revives {
            writer.noteRevived(revives, as: rowID)
            if isLink { writer.placeholders[rowID] = record.location }
        }
        log.count(.inserted, entity: writer.entity)
        return LinkedRow(rowID: rowID, entityNumber: writer.entityNumber)
    }

    /// Finds or creates the records `record` links to, for the slots of `links` still empty.
    private func storeLinks(of record: inout EntityRecord, into links: UnsafeMutableBufferPointer<LinkedRow?>,
                            of writer: EntityWriter, log: ImportLog) throws {
        for slot in record.links.indices where links[slot] == nil && record.links[slot] != nil {
            links[slot] = try store(&record.links[slot]!, onDuplicate: nil, linkedFrom: (writer, slot), log: log)
        }
    }

    /// The row of a linked record's key if it was written before; nil for an empty or new key.
    private func find(_ link: EntityRecord) throws -> LinkedRow? {
        let writer = try self.writer(for: link)
        var link = link
        guard writer.hasKey, case .key(let key, _) = try lookupKey(of: &link, of: writer) else { return nil }
        return try writer.keys.lookup(key, hash: link.keyHash).flatMap(writer.liveRow).map { LinkedRow(rowID: $0, entityNumber: writer.entityNumber) }
    }

    /// Compares a record whose key exists with the stored row; logs a difference as a duplicate
    /// and, under `on_duplicate: update` or `merge`, writes the record's values over the stored
    /// ones; `update` replaces the lists the record gives, `merge` adds them.
    ///
    /// Links are compared by finding the related records only; they are created (and counted)
    /// only when the stored row is updated. `reported`: false for a record a list owns, written
    /// over as part of its listing record (no duplicate of its own).
    private func resolveDuplicate(_ record: inout EntityRecord, of writer: EntityWriter, existing: KeyIndex.Entry,
                                  onDuplicate: DuplicatePolicy, log: ImportLog, reported: Bool = true) throws {
        try withUnsafeTemporaryAllocation(of: LinkedRow?.self, capacity: record.links.count) { links in
            links.initialize(repeating: nil)
            var details: [StoredDetail] = []
            for slot in record.links.indices {
                guard let link = record.links[slot] else { continue }
                if let found = try find(link) {
                    links[slot] = found
                } else if let detail = try storedDetail(link, slot: slot, of: writer, row: existing.rowID) {
                    links[slot] = LinkedRow(rowID: detail.row, entityNumber: detail.target.entityNumber)
                    if !detail.differing.isEmpty { details.append(detail) }
                }
            }
            try resolveDuplicate(&record, of: writer, existing: existing, links: links, details: details, onDuplicate: onDuplicate,
                                 log: log, reported: reported)
        }
    }

    /// A record's one-to-one detail without a key, stored: what the record gives again for it is
    /// written over it in place (a detail is the record's own, as its other values are).
    private struct StoredDetail {
        var slot: Int
        var row: Int64
        var target: EntityWriter
        var stored: [Value]
        /// The detail's columns whose given value differs from the stored one.
        var differing: [Int]
    }

    /// The stored one-to-one detail (a record without a key) of row `row` that `link` gives again,
    /// compared with it; nil where there is none, or `link` links records of its own.
    private func storedDetail(_ link: EntityRecord, slot: Int, of writer: EntityWriter, row: Int64) throws -> StoredDetail? {
        guard writer.oneToOneInverse[slot] != nil, link.links.allSatisfy({ $0 == nil }), link.lists.allSatisfy(\.isEmpty),
              let detail = try writer.linkedRow(of: row, through: writer.relationships[slot].name),
              let target = try linkedWriter(of: writer, slot: slot, row: row), !target.hasKey, target.entity == link.entity
        else { return nil }
        return try withUnsafeTemporaryAllocation(of: LinkedRow?.self, capacity: link.links.count) { links in
            links.initialize(repeating: nil)
            let (stored, differing) = try target.compare(row: detail, with: link, links: links)
            return StoredDetail(slot: slot, row: detail, target: target, stored: stored, differing: differing)
        }
    }

    private func resolveDuplicate(_ record: inout EntityRecord, of writer: EntityWriter, existing: KeyIndex.Entry,
                                  links: UnsafeMutableBufferPointer<LinkedRow?>, details: [StoredDetail], onDuplicate: DuplicatePolicy,
                                  log: ImportLog, reported: Bool) throws {
        var (stored, differing) = try writer.compare(row: existing.rowID, with: record, links: links)
        // A related key that is not in the store compares as NULL; against a stored NULL it is
        // still a difference (the first record had no such link, this one names a new one).
        for (column, source) in writer.table.columns.map(\.source).enumerated() where !differing.contains(column) {
            guard case .link(let slot) = source, links[slot] == nil, stored[column] == .null,
                  let link = record.links[slot], try self.writer(for: link).key(of: link) != nil else { continue }
            differing.append(column)
        }
        // Past the duplicates the log keeps described (a run without a report), only whether
        // this one differs: the texts of its values cost more than the comparison.
        let describes = reported && log.describesDuplicates
        var differences = try !describes ? [] : differing.compactMap { column -> (attribute: String, first: String, again: String)? in
            switch writer.table.columns[column].source {
            case .attribute(let slot):
                let attribute = writer.attributes[slot]
                return (attribute.name, StoredValue.displayText(stored[column], as: attribute.type),
                        (record.values[slot] ?? .null).displayText)
            case .link(let slot):
                let first: Int64? = if case .integer(let id) = stored[column] { id } else { nil }
                let shown = try first.map { try storedLinkWriter(of: writer, slot: slot, stored: stored).keyText(ofRow: $0) } ?? ""
                // The record's related key may not be in the store (yet): show it from the record.
                var again = ""
                if let link = record.links[slot] {
                    let target = try self.writer(for: link)
                    again = try links[slot].map { try target.keyText(ofRow: $0.rowID) }
                        ?? (target.key(of: link) == nil ? "" : target.keyText(of: link))
                }
                return (writer.relationships[slot].name, shown, again)
            case .linkEntity, .order:
                return nil  // `compare` reports the row id's column only
            }
        }
        for detail in details where describes {
            let (attributes, link) = (detail.target.attributes, record.links[detail.slot]!)
            func shown(_ values: (Int, Int) -> String) -> String {
                detail.differing.compactMap { column in
                    guard case .attribute(let slot) = detail.target.table.columns[column].source else { return nil }
                    return "\(attributes[slot].name)=\(values(column, slot))"
                }.joined(separator: ", ")
            }
            differences.append((writer.relationships[detail.slot].name,
                                shown { StoredValue.displayText(detail.stored[$0], as: attributes[$1].type) },
                                shown { (link.values[$1] ?? .null).displayText }))
        }
        let writesOver = onDuplicate != .keep
        let update = writesOver && !(differing.isEmpty && details.isEmpty)

        // Its lists are written whether or not its own values differ: checked first, as for an insert.
        if writesOver, !record.lists.isEmpty {
            if record.hasRejectingLinks { try checkMissingLinks(of: record, of: writer) }
            try checkRequiredValues(of: record, of: writer, isNew: false)
        }
        if update {
            if record.hasRejectingLinks { try checkMissingLinks(of: record, of: writer) }
            for detail in details {
                try withUnsafeTemporaryAllocation(of: LinkedRow?.self, capacity: record.links[detail.slot]!.links.count) { none in
                    none.initialize(repeating: nil)
                    try detail.target.update(row: detail.row, with: record.links[detail.slot]!, links: none, stored: detail.stored)
                }
            }
            try storeLinks(of: &record, into: links, of: writer, log: log)
            try checkOneToOne(record, links: links, of: writer, row: existing.rowID)
            try writer.update(row: existing.rowID, with: record, links: links, stored: stored)
            try linkOneToOneInverses(of: record, row: existing.rowID, links: links, of: writer, stored: stored, log: log)
            // A link moved away may have been a placeholder's last; values alone change no link.
            if differing.contains(where: { if case .link = writer.table.columns[$0].source { true } else { false } }) {
                mayHaveUnlinkedPlaceholders = true
            }
        }
        let row = LinkedRow(rowID: existing.rowID, entityNumber: writer.entityNumber)
        var listsChanged = false
        if onDuplicate == .update, !record.listSlots.isEmpty {
            let changes = try replaceLists(of: &record, row: row, of: writer, log: log)
            listsChanged = !changes.isEmpty
            differences += changes.map { ($0.relationship, $0.before, $0.after) }
        } else if onDuplicate == .merge, !record.lists.isEmpty {
            // Links of to-many relationships are added, never taken away (docs/pipeline-format.md).
            var listed: [[ListedRow]]? = nil
            try storeLists(of: &record, row: row, of: writer, log: log, listed: &listed, appending: true)
        }
        if describes {
            try log.duplicate(ImportLog.Duplicate(entity: writer.name, key: writer.keyText(of: record),
                                                  first: writer.keys.firstLocation(of: existing),
                                                  again: record.location, differences: differences, updated: update || listsChanged))
        } else if reported {
            // As `differences` would say: a column of a value or a link, a detail, or a list changed.
            let differs = listsChanged || !details.isEmpty || differing.contains { column in
                switch writer.table.columns[column].source {
                case .attribute, .link: true
                case .linkEntity, .order: false
                }
            }
            log.countDuplicate(differing: differs)
        }
        log.count(update || listsChanged ? .updated : .alreadyPresent, entity: writer.entity)
    }

    // MARK: One-to-one

    /// A one-to-one links each record to one other: a record whose link names a record already
    /// linked from another one is rejected (before it is written), rather than taking it from that
    /// one silently. `row`: the record's own row, when it is an update.
    private func checkOneToOne(_ record: EntityRecord, links: UnsafeMutableBufferPointer<LinkedRow?>, of writer: EntityWriter,
                               row: Int64?) throws {
        for slot in writer.oneToOneInverse.indices {
            guard let inverse = writer.oneToOneInverse[slot], let linked = links[slot], let link = record.links[slot] else { continue }
            let target = try self.writer(for: link)
            guard let owner = try target.linkedRow(of: linked.rowID, through: inverse), owner != row else { continue }
            let relationship = writer.relationships[slot].name
            throw Rejection(at: record.location, stage: "sqlite", field: relationship,
                            reason: "\(target.name) \(try target.keyText(ofRow: linked.rowID)) is already linked from \(writer.name) "
                                + "\(try writer.keyText(ofRow: owner)) through the one-to-one '\(relationship)' (inverse '\(inverse)'), "
                                + "and each \(target.name) belongs to one \(writer.name)")
        }
    }

    /// Sets the other side of each one-to-one the record links through, as Core Data keeps both
    /// foreign keys; an update that moves a link clears the inverse of the record it left.
    /// A record without a key that the update left was this record's own detail: it is removed,
    /// not left behind linked from nothing.
    private func linkOneToOneInverses(of record: EntityRecord, row: Int64, links: UnsafeMutableBufferPointer<LinkedRow?>,
                                      of writer: EntityWriter, stored: [Value]? = nil, log: ImportLog? = nil) throws {
        for slot in writer.oneToOneInverse.indices {
            guard let inverse = writer.oneToOneInverse[slot], let link = record.links[slot] else { continue }
            let target = try self.writer(for: link)
            if let stored, let column = writer.table.columns.firstIndex(where: { if case .link(slot) = $0.source { true } else { false } }),
               case .integer(let left) = stored[column], left != links[slot]?.rowID {
                let leftWriter = try storedLinkWriter(of: writer, slot: slot, stored: stored)
                try leftWriter.setLink(of: left, through: inverse, to: nil)
                if !leftWriter.hasKey, let log { try remove(left, of: leftWriter, log: log) }
            }
            guard let linked = links[slot] else { continue }
            try target.setLink(of: linked.rowID, through: inverse, to: LinkedRow(rowID: row, entityNumber: writer.entityNumber))
        }
    }

    // MARK: Placeholders

    /// Gives a row a link created (a placeholder) the values of the first record of its own with
    /// its key: counted as that record's insert, whatever `on_duplicate` says, as the row was
    /// never the record's.
    private func complete(_ record: inout EntityRecord, row: Int64, of writer: EntityWriter, log: ImportLog) throws {
        if record.hasRejectingLinks { try checkMissingLinks(of: record, of: writer) }
        if !record.lists.isEmpty { try checkRequiredValues(of: record, of: writer, isNew: false) }
        try withUnsafeTemporaryAllocation(of: LinkedRow?.self, capacity: record.links.count) { links in
            links.initialize(repeating: nil)
            try storeLinks(of: &record, into: links, of: writer, log: log)
            try checkOneToOne(record, links: links, of: writer, row: row)
            let (stored, _) = try writer.compare(row: row, with: record, links: links)
            try writer.update(row: row, with: record, links: links, stored: stored)
            try linkOneToOneInverses(of: record, row: row, links: links, of: writer, stored: stored, log: log)
        }
        writer.placeholders[row] = nil
        if !record.lists.isEmpty { try storeLists(of: &record, row: LinkedRow(rowID: row, entityNumber: writer.entityNumber), of: writer, log: log) }
        // An insert for this record's source; the entity's row was counted when the link made it.
        log.countCompleted()
    }

    /// Tells `log` of every placeholder no record completed, entity by entity, in row order.
    func reportPlaceholders(to log: ImportLog) throws {
        for case let writer? in writers where !writer.placeholders.isEmpty {
            for (row, first) in writer.placeholders.sorted(by: { $0.key < $1.key }) {
                log.placeholder(ImportLog.Placeholder(entity: writer.name, key: try writer.keyText(ofRow: row), first: first))
            }
        }
    }

    // MARK: Links that must find their record

    /// Rejects the record before any of it is written when a link that says `missing: reject`
    /// names a record not in the store: a rejected record creates none of its links.
    /// `before`: records of the same source record written before this one, which a link may name.
    func checkMissingLinks(of record: EntityRecord, of writer: EntityWriter, before: ArraySlice<EntityRecord> = []) throws {
        let listed = record.lists.indices.flatMap { slot in record.lists[slot].map { (slot, $0) } }
        for (slot, link) in record.links.indices.compactMap({ slot in record.links[slot].map { (slot, $0) } }) + listed {
            let target = try self.writer(for: link)
            if target.hasKey {
                var link = link
                let lookup = try lookupKey(of: &link, of: target)
                if case .empty = lookup { continue }  // skipped for its empty key
                if case .key(let key, _) = lookup, try target.keys.lookup(key, hash: link.keyHash).flatMap(target.liveRow) != nil { continue }
                if before.contains(where: { $0.entity == link.entity && target.key(of: $0) != nil && target.keyText(of: $0) == target.keyText(of: link) }) {
                    continue
                }
                switch link.missing {
                case .reject: throw try missingLinkRejection(link, of: target, from: writer, slot: slot)
                case .skip: continue
                case .create: break
                }
            }
            try checkMissingLinks(of: link, of: target)  // created: so would its own links be
        }
    }

    /// `no Ingredient name=Fetta; did you mean 'Feta'?`, at the record that links.
    private func missingLinkRejection(_ link: EntityRecord, of target: EntityWriter, from writer: EntityWriter,
                                      slot: Int) throws -> Rejection {
        let relationship = writer.relationships[slot].name
        let raw = target.keySlots.count == 1 ? (link.values[target.keySlots[0]] ?? .null).displayText : target.keyText(of: link)
        return Rejection(at: link.location, stage: "sqlite", field: relationship, rawValue: raw,
                         reason: "no \(target.name) \(target.keyText(of: link)) in the store\(try closestKey(to: link, of: target)) "
                             + "(\(writer.name).\(relationship) says missing: reject)")
    }

    /// `; did you mean 'Feta'?` for a single text key close to one in the store; empty otherwise.
    private func closestKey(to record: EntityRecord, of writer: EntityWriter) throws -> String {
        guard writer.keySlots.count == 1, case .text(let text)? = record.values[writer.keySlots[0]] else { return "" }
        return Suggestion.hint(for: text, in: writer.keys.textKeys(limit: 20_000))
    }

    /// The writer for a record's entity, checking that the record has the entity's shape.
    func writer(for record: EntityRecord) throws -> EntityWriter {
        try unretainedWriter(for: record).takeUnretainedValue()
    }

    /// `writer(for:)` of a record read in place, as `store` reads it: `inout` only so that it is
    /// not copied (see `lookupKey`); it is left as it was.
    private func writer(inPlace record: inout EntityRecord) throws -> EntityWriter {
        try unretainedWriter(for: record).takeUnretainedValue()
    }

    /// `writer(for:)` without a retain: `writers` keeps every writer while the sink builds.
    /// Retaining and releasing the writer of every record and linked record were four pairs of
    /// atomic operations a row, each waiting for the writing thread's pending stores (its key
    /// tables' cache misses) to complete. (`_withUnsafeGuaranteedRef`, underscored, is public in
    /// every standard library since Swift 5, on Linux and Apple's platforms.)
    private func unretainedWriter(for record: EntityRecord) throws -> Unmanaged<EntityWriter> {
        guard writers.indices.contains(record.entity) else {
            throw PipelineError(.invalidPipeline, code: .recordUnknownEntity, at: record.location, stage: "sqlite",
                                "a record names entity number \(record.entity), but the model has \(writers.count) entities")
        }
        guard let writer = writers[record.entity] else {
            throw PipelineError(.invalidPipeline, code: .recordAbstractEntity, at: record.location, stage: "sqlite",
                                "entity number \(record.entity) is abstract and has no rows of its own; load one of its concrete entities")
        }
        guard record.values.count == writer.attributes.count, record.links.count == writer.relationships.count,
              record.lists.isEmpty || record.lists.count == writer.relationships.count else {
            throw PipelineError(.invalidPipeline, code: .recordShapeMismatch, at: record.location, stage: "sqlite",
                                "a record for '\(writer.name)' has \(record.values.count) values and \(record.links.count) links; "
                                    + "the entity has \(writer.attributes.count) attributes and \(writer.relationships.count) relationships")
        }
        return Unmanaged.passUnretained(writer)
    }

    /// A link must go through a relationship with a column, to an entity that column may refer to.
    private func checkLink(to entity: Int, slot: Int, of writer: EntityWriter, at location: Location) throws {
        // Every link of every record comes here: the relationship (names, options) is copied
        // only to say what is wrong.
        if writer.table.linkTargets[slot].contains(entity) { return }
        let relationship = writer.relationships[slot]
        let targets = writer.table.linkTargets[slot]
        guard !targets.isEmpty else {
            let why = if relationship.isTransient {
                "is transient: Core Data keeps it in memory only, so it has nothing in the store to load"
            } else {
                "is a to-many relationship: it links the records of a list (`EntityRecord.lists`), not one record"
            }
            throw PipelineError(.invalidPipeline, code: relationship.isTransient ? .pipelineTransientProperty : .recordToManyAsLink,
                                at: location, stage: "sqlite", "'\(writer.name).\(relationship.name)' \(why)")
        }
        guard targets.contains(entity) else {
            let given = writers.indices.contains(entity) ? writers[entity].map { "'\($0.name)'" } ?? "an abstract entity" : "an unknown entity"
            throw PipelineError(.invalidPipeline, code: .pipelineWrongDestination, at: location, stage: "sqlite",
                                "'\(writer.name).\(relationship.name)' links to '\(relationship.destination)', not to \(given)")
        }
    }

    /// The writer of the row a stored link column refers to: the only entity the link may be, or
    /// the one the row's `.linkEntity` column names.
    private func storedLinkWriter(of writer: EntityWriter, slot: Int, stored: [Value]) throws -> EntityWriter {
        let targets = writer.table.linkTargets[slot]
        var target = targets.count == 1 ? writers[targets[0]] : nil
        if target == nil, let column = writer.table.columns.firstIndex(where: {
            if case .linkEntity(slot) = $0.source { true } else { false }
        }), case .integer(let number) = stored[column] {
            target = writers.lazy.compactMap { $0 }.first { $0.entityNumber == number }
        }
        guard let target else {
            throw PipelineError(.io, code: .storeInconsistent, stage: "sqlite",
                                "'\(writer.name).\(writer.relationships[slot].name)' links to a row of no known entity")
        }
        return target
    }
}

