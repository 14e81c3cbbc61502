import Pipeline

extension SQLiteSink {
    /// Writes `record` after the records it links to and returns its row id, or nil when it was
    /// skipped for an empty key.
    ///
    /// `onDuplicate` is nil for a linked record, which is found or created, never compared or
    /// updated. `linkedFrom` is the link that led here, named in the skip reason (`Item.unit`).
    func store(_ record: EntityRecord, onDuplicate: DuplicatePolicy?, linkedFrom: (writer: EntityWriter, slot: Int)?,
               log: ImportLog) throws -> Int64? {
        let writer = try self.writer(for: record)
        // Linked row ids live on the stack: no allocation per record.
        return try withUnsafeTemporaryAllocation(of: Int64?.self, capacity: record.links.count) { links in
            links.initialize(repeating: nil)
            for slot in record.links.indices {
                guard let link = record.links[slot] else { continue }
                try checkLink(link, slot: slot, of: writer, at: record.location)
                links[slot] = try store(link, onDuplicate: nil, linkedFrom: (writer, slot), log: log)
            }

            guard writer.hasKey else {
                let rowID = try writer.insert(record, links: links)
                log.count(.inserted, entity: writer.entity)
                return rowID
            }
            guard let key = writer.key(of: record) else {
                var reason = writer.emptyKeyReason(of: record)
                if let (from, slot) = linkedFrom { reason += ", so \(from.name).\(from.relationships[slot].name) is left empty" }
                log.skip(entity: writer.entity, at: record.location, reason: reason)
                return nil
            }
            let (existing, isNew) = try writer.keys.find(key) {
                KeyIndex.Entry(rowID: try writer.insert(record, links: links), first: record.location)
            }
            guard !isNew else {
                log.count(.inserted, entity: writer.entity)
                return existing.rowID
            }
            guard let onDuplicate else {
                log.count(.alreadyPresent, entity: writer.entity)
                return existing.rowID
            }
            try resolveDuplicate(record, of: writer, existing: existing, links: links, onDuplicate: onDuplicate, log: log)
            return existing.rowID
        }
    }

    /// Compares a record whose key exists with the stored row; logs a difference as a duplicate
    /// and, under `on_duplicate: update`, writes the record's values over the stored ones.
    private func resolveDuplicate(_ record: EntityRecord, of writer: EntityWriter, existing: KeyIndex.Entry,
                                  links: UnsafeMutableBufferPointer<Int64?>, onDuplicate: DuplicatePolicy,
                                  log: ImportLog) throws {
        let (stored, differing) = try writer.compare(row: existing.rowID, with: record, links: links)
        guard !differing.isEmpty else {
            log.count(.alreadyPresent, entity: writer.entity)
            return
        }
        let differences = try differing.map { column -> (attribute: String, first: String, again: String) in
            switch writer.table.columns[column].source {
            case .attribute(let slot):
                let attribute = writer.attributes[slot]
                return (attribute.name, EntityWriter.displayText(stored: stored[column], as: attribute.type),
                        (record.values[slot] ?? .null).displayText)
            case .link(let slot):
                let target = try self.linkedWriter(of: writer, slot: slot)
                let first: Int64? = if case .integer(let id) = stored[column] { id } else { nil }
                return (writer.relationships[slot].name, try target.keyText(ofRow: first), try target.keyText(ofRow: links[slot]))
            }
        }
        let update = onDuplicate == .update
        if update { try writer.update(row: existing.rowID, with: record, links: links, stored: stored) }
        log.duplicate(ImportLog.Duplicate(entity: writer.name, key: writer.keyText(of: record), first: existing.first,
                                          again: record.location, differences: differences, updated: update))
        log.count(update ? .updated : .alreadyPresent, entity: writer.entity)
    }

    /// The writer for a record's entity, checking that the record has the entity's shape.
    private func writer(for record: EntityRecord) throws -> EntityWriter {
        guard writers.indices.contains(record.entity) else {
            throw PipelineError(.invalidPipeline, at: record.location, stage: "sqlite",
                                "a record names entity number \(record.entity), but the model has \(writers.count) entities")
        }
        guard let writer = writers[record.entity] else {
            throw PipelineError(.invalidPipeline, at: record.location, stage: "sqlite",
                                "entity number \(record.entity) is abstract and has no rows of its own; load one of its concrete entities")
        }
        guard record.values.count == writer.attributes.count, record.links.count == writer.relationships.count else {
            throw PipelineError(.invalidPipeline, at: record.location, stage: "sqlite",
                                "a record for '\(writer.name)' has \(record.values.count) values and \(record.links.count) links; "
                                    + "the entity has \(writer.attributes.count) attributes and \(writer.relationships.count) relationships")
        }
        return writer
    }

    /// A link must go through a relationship with a column, to the entity that column refers to.
    private func checkLink(_ link: EntityRecord, slot: Int, of writer: EntityWriter, at location: Location) throws {
        let relationship = writer.relationships[slot]
        guard let destination = writer.table.linkDestinations[slot] else {
            throw PipelineError(.invalidPipeline, at: location, stage: "sqlite",
                                "'\(writer.name).\(relationship.name)' is a to-many relationship; load the records from the other side "
                                    + "(the to-one relationship of '\(relationship.destination)')")
        }
        guard link.entity == destination else {
            let given = writers.indices.contains(link.entity) ? writers[link.entity].map { "'\($0.name)'" } ?? "an abstract entity" : "an unknown entity"
            throw PipelineError(.invalidPipeline, at: location, stage: "sqlite",
                                "'\(writer.name).\(relationship.name)' links to '\(relationship.destination)', not to \(given)")
        }
    }

    private func linkedWriter(of writer: EntityWriter, slot: Int) throws -> EntityWriter {
        guard let destination = writer.table.linkDestinations[slot], let target = writers[destination] else {
            throw PipelineError(.io, stage: "sqlite", "'\(writer.name).\(writer.relationships[slot].name)' has no column in this layout")
        }
        return target
    }
}
