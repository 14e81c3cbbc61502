import Diagnostics
/// A `LoadSpec` bound to one source's field names and the model: indexes resolved once, so that
/// turning a record into entity records does no lookups by name.
///
/// A class: taken from an array to fill a record, a struct would be copied, retaining each of
/// its arrays and strings, for every source record.
final class LoadBinding {
    struct Slot {
        var attribute: Int
        var field: Int
        var type: AttributeType
        var attributeName: String
        var fieldName: String
        /// What an empty value becomes: the attribute's default, already converted.
        var defaultValue: Value?
        /// An empty value here is a rejection: the attribute is required and has no default.
        var requiresValue: Bool
        /// The model's validation rules, if it sets any.
        var validation: AttributeValidation.Checker?
    }

    /// What `fill` reads of a slot for every record: plain values, so that reading one retains
    /// nothing (a `Slot` holds names, a default and a checker).
    struct Step {
        var attribute: Int
        var field: Int
        var type: AttributeType
        var requiresValue: Bool
        var hasDefault: Bool
        var validates: Bool
        /// The last use of its field among the source's loads: the value is moved out of the
        /// source record rather than copied (see `takeLastUses`).
        var takesValue = false
    }

    let entity: Int
    let entityName: String
    let attributeCount: Int
    let relationshipCount: Int
    let slots: [Slot]
    // Unchecked: read for every record on one thread (see `RecordFeed`), set before it starts
    // (`takeLastUses`); run-time exclusivity checks were 8 calls a record in `fill`.
    @exclusivity(unchecked) private var steps: [Step]
    /// The attribute that is the entity's unique key when that is one text attribute: its hash
    /// goes with each record (`EntityRecord.keyHash`).
    private let textKey: Int?
    @exclusivity(unchecked) private var scratch: [UInt8] = []
    /// Enum properties of a SwiftData model, loaded by case name (or raw value): apart from
    /// `steps`, as one value may set several columns.
    let enums: [EnumSlot]
    /// `listed: { value: false }`: converted once, set in every record.
    let constants: [(attribute: Int, value: Value)]
    /// Arrays of structs whose elements' keys the load renames (`each:` with property fields):
    /// the slot, and each element key's property.
    private let renamedElements: [(slot: Int, properties: [String: String])]
    let links: [(relationship: Int, target: LoadBinding)]
    /// The to-many links: one linked record per element of a list.
    let lists: [ListLink]
    /// `lists`' relationship slots (`EntityRecord.listSlots`).
    private let listSlots: [Int]
    /// What the sink does when a linked record of this load is not in the store.
    fileprivate var missing = MissingLinkPolicy.create
    /// Whether a link below this load says `missing: reject` (`EntityRecord.hasRejectingLinks`);
    /// known once the links are bound, their `missing` set as each is made.
    private let hasRejectingLinks: Bool

    init(_ spec: LoadSpec, model: StoreModel, fields: [String], fieldIndex: [String: Int], source: String) throws {
        guard let entityIndex = model.index(of: spec.entity) else {
            throw PipelineError(.invalidPipeline, code: .pipelineUnknownEntity, at: spec.location, stage: "load",
                                "unknown entity '\(spec.entity)'\(Suggestion.hint(for: spec.entity, in: model.entities.map(\.name)))")
        }
        let attributes = model.allAttributes(of: spec.entity)
        let relationships = model.allRelationships(of: spec.entity)
        let key = Set(model.uniqueKey(of: spec.entity))
        entity = entityIndex
        entityName = spec.entity
        attributeCount = attributes.count
        relationshipCount = relationships.count

        let composites = model.allComposites(of: spec.entity)
        var enums: [EnumSlot] = []
        var plain: [LoadSpec.Assignment] = []
        var constants: [(attribute: Int, value: Value)] = []
        for assignment in spec.assignments {
            if let text = assignment.constant {
                constants.append(try LoadBinding.constant(text, of: assignment, entity: spec.entity, attributes: attributes))
                continue
            }
            // An enum with raw values whose cases the model does not list (one read from a model
            // file) takes its raw value as it is.
            if let composite = composites.first(where: { $0.name == assignment.attribute }), composite.isEnum,
               composite.kind != .rawValue(cases: []) {
                enums.append(try EnumSlot(composite, attributes: attributes, assignment: assignment,
                                          fieldIndex: fieldIndex, fields: fields, source: source))
            } else {
                plain.append(assignment)
            }
        }
        self.enums = enums
        self.constants = constants
        slots = try plain.map { assignment in
            guard let a = attributes.firstIndex(where: { $0.name == assignment.attribute }) else {
                throw PipelineError(.invalidPipeline, code: .pipelineUnknownAttribute, at: assignment.location, stage: "load",
                                    "entity '\(spec.entity)' has no attribute '\(assignment.attribute)'"
                                        + Suggestion.hint(for: assignment.attribute, in: attributes.map(\.name)),
                                    sourceLine: assignment.sourceLine)
            }
            let f = try LoadBinding.field(of: assignment, in: fieldIndex, fields: fields, source: source)
            let attribute = attributes[a]
            guard !attribute.isTransient else {
                throw PipelineError(.invalidPipeline, code: .pipelineTransientProperty, at: assignment.location, stage: "load",
                                    "\(spec.entity).\(attribute.name) is transient in the model: it has no column in the store, so nothing could be loaded into it",
                                    sourceLine: assignment.sourceLine)
            }
            // A key's empty part stays empty, so that the sink skips and reports the record: under
            // the default, the first record without its id would be stored as id 0 and the next
            // ones taken for it.
            let defaultValue = key.contains(attribute.name)
                ? nil : attribute.defaultValue.flatMap { try? attribute.type.convertDefault($0).get() }
            var validation: AttributeValidation.Checker?
            if !attribute.validation.isEmpty {
                do throws(ConversionFailure) {
                    validation = try AttributeValidation.Checker(attribute.validation)
                } catch {
                    throw PipelineError(.invalidPipeline, code: .modelInvalidValidation, at: attribute.location, stage: "model",
                                        "\(spec.entity).\(attribute.name): \(error.reason)")
                }
            }
            return Slot(attribute: a, field: f, type: attribute.type, attributeName: attribute.name,
                        fieldName: assignment.field, defaultValue: defaultValue,
                        requiresValue: !attribute.isOptional && attribute.defaultValue == nil && !key.contains(attribute.name),
                        validation: validation)
        }
        renamedElements = plain.indices.compactMap { plain[$0].elementFields.isEmpty ? nil : ($0, plain[$0].elementFields) }
        let keyAttributes = model.uniqueKey(of: spec.entity).compactMap { name in attributes.firstIndex { $0.name == name } }
        textKey = keyAttributes.count == 1 && attributes[keyAttributes[0]].type == .string ? keyAttributes[0] : nil
        steps = slots.map {
            Step(attribute: $0.attribute, field: $0.field, type: $0.type, requiresValue: $0.requiresValue,
                 hasDefault: $0.defaultValue != nil, validates: $0.validation != nil)
        }
        var links: [(relationship: Int, target: LoadBinding)] = []
        var lists: [ListLink] = []
        for link in spec.links {
            guard let r = relationships.firstIndex(where: { $0.name == link.relationship }) else {
                throw PipelineError(.invalidPipeline, code: .pipelineUnknownRelationship, at: link.location, stage: "load",
                                    "entity '\(spec.entity)' has no relationship '\(link.relationship)'"
                                        + Suggestion.hint(for: link.relationship, in: relationships.map(\.name)))
            }
            if relationships[r].isToMany {
                lists.append(try ListLink(link, relationship: r, model: model, fields: fields, fieldIndex: fieldIndex, source: source))
                continue
            }
            let target = try LoadBinding(link.target, model: model, fields: fields, fieldIndex: fieldIndex, source: source)
            target.missing = link.missing
            links.append((r, target))
        }
        self.links = links
        self.lists = lists
        listSlots = lists.map(\.relationship).sorted()
        hasRejectingLinks = (links.map(\.target) + lists.map(\.target)).contains { $0.missing == .reject || $0.hasRejectingLinks }
    }

    /// An entity record of this load's shape (and its links'), to be filled by `fill` again and
    /// again: refilling it in place costs no allocation per source record.
    func emptyRecord(at location: Location) -> EntityRecord {
        var linked = [EntityRecord?](repeating: nil, count: relationshipCount)
        for link in links { linked[link.relationship] = link.target.emptyRecord(at: location) }
        return EntityRecord(entity: entity, values: [Value?](repeating: nil, count: attributeCount), links: linked,
                            lists: lists.isEmpty ? [] : Array(repeating: [], count: relationshipCount), listSlots: listSlots,
                            location: location, missing: missing, hasRejectingLinks: hasRejectingLinks)
    }

    /// Lets the last step to read each field take its value from the source record instead of
    /// copying it: `fill` then hands a text on to the entity record without retaining it, and the
    /// reader's next record does not release it (retains and releases were a fifth of the
    /// reading thread). `loads` in the order `fill` runs them for each record.
    static func takeLastUses(in loads: [LoadBinding]) {
        var last: [Int: (binding: LoadBinding, step: Int)] = [:]
        // Fields a to-many link reads, after every step of the record: they stay in the record.
        var kept = Set<Int>()
        func visit(_ binding: LoadBinding) {
            for i in binding.steps.indices { last[binding.steps[i].field] = (binding, i) }
            kept.formUnion(binding.enums.map(\.field))
            for link in binding.links { visit(link.target) }
            for list in binding.lists { kept.formUnion(list.sourceFieldsRead) }
        }
        for load in loads { visit(load) }
        for (field, (binding, step)) in last where !kept.contains(field) { binding.steps[step].takesValue = true }
    }

    /// Puts the values of one source record into `out` (from `emptyRecord`, or filled before), or
    /// throws the rejection of its first bad value. Every slot and link this load sets is set
    /// again, so nothing of an earlier record remains. The fields this load reads last are left
    /// `.null` in `record` (see `takeLastUses`).
    func fill(_ out: inout EntityRecord, from record: inout Record) throws {
        out.location = record.location
        // Set once the values are in: writing a value drops the record's hash.
        var keyHash: TextKeyHash?
        for i in steps.indices {
            let step = steps[i]
            var raw = Value.null
            if step.takesValue {
                swap(&raw, &record.values[step.field])
            } else {
                raw = record.values[step.field]
            }
            if step.type.takesAsIs(raw) {
                if step.validates, let reason = slots[i].validation?.violation(of: raw) {
                    throw rejection(slots[i], in: record, raw: raw, reason)
                }
                // Hashed before it moves into the record; text converted from another type is
                // hashed after the loop.
                if step.attribute == textKey, case .text(let key) = raw {
                    keyHash = TextKeyHash(of: key, scratch: &scratch)
                }
                out.values[step.attribute] = consume raw
                continue
            }
            switch step.type.convert(raw) {
            case .success(.null):
                if step.requiresValue {
                    throw rejection(slots[i], in: record, raw: raw, "is required and has no default, but the value is empty")
                }
                out.values[step.attribute] = step.hasDefault ? slots[i].defaultValue : .null
            case .success(let value):
                if step.validates, let reason = slots[i].validation?.violation(of: value) {
                    throw rejection(slots[i], in: record, raw: raw, reason)
                }
                out.values[step.attribute] = value
            case .failure(let failure):
                throw rejection(slots[i], in: record, raw: raw, "(\(step.type.rawValue)): \(failure.reason)")
            }
        }
        if keyHash == nil, let textKey, case .text(let key)? = out.values[textKey], !key.isEmpty {
            keyHash = TextKeyHash(of: key, scratch: &scratch)
        }
        if !enums.isEmpty { try fillEnums(&out, from: record) }
        if !renamedElements.isEmpty { try renameElements(&out, in: record) }
        for constant in constants { out.values[constant.attribute] = constant.value }
        out.keyHash = keyHash
        for j in links.indices {
            let relationship = links[j].relationship
            // Filled in its place, so that the linked record's arrays stay uniquely referenced and
            // are refilled. (Moved out and back, putting it back destroyed the nil left in its
            // place through the generic value witness; `??` or a `defer` copied the record.)
            if case .none = out.links[relationship] {
                out.links[relationship] = links[j].target.emptyRecord(at: record.location)
            }
            // Unretained: `links` keeps the target, and a retain and release per linked record
            // are two atomic operations on the busier reading thread.
            try Unmanaged.passUnretained(links[j].target)._withUnsafeGuaranteedRef {
                try $0.fill(&out.links[relationship]!, from: &record)
            }
        }
        if !lists.isEmpty { try fillLists(&out, from: record) }
    }

    /// The to-many links of `fill`, apart: with the loop inline, the compiler made `out.lists`
    /// unique before it, allocating an array for every record of a load that has no lists.
    @inline(never)
    private func fillLists(_ out: inout EntityRecord, from record: Record) throws {
        for list in lists { try list.fill(&out.lists[list.relationship], from: record) }
    }

    /// A constant's attribute and value, converted by the attribute's type once: a value it cannot
    /// take is an error in the pipeline file.
    static func constant(_ text: String, of assignment: LoadSpec.Assignment, entity: String,
                         attributes: [Attribute]) throws -> (attribute: Int, value: Value) {
        guard let index = attributes.firstIndex(where: { $0.name == assignment.attribute }) else {
            throw PipelineError(.invalidPipeline, code: .pipelineUnknownAttribute, at: assignment.location, stage: "load",
                                "entity '\(entity)' has no attribute '\(assignment.attribute)'", sourceLine: assignment.sourceLine)
        }
        switch attributes[index].type.convert(.text(text)) {
        case .success(let value):
            return (index, value)
        case .failure(let failure):
            throw PipelineError(.invalidPipeline, code: .pipelineValueDoesNotFit, at: assignment.location, stage: "load",
                                "the value \"\(text)\" of \(entity).\(assignment.attribute) (\(attributes[index].type.rawValue)): \(failure.reason)",
                                sourceLine: assignment.sourceLine)
        }
    }

    /// The source field an assignment reads, or an error naming the fields there are.
    static func field(of assignment: LoadSpec.Assignment, in fieldIndex: [String: Int], fields: [String], source: String) throws -> Int {
        guard let field = fieldIndex[assignment.field] else {
            throw PipelineError(.invalidPipeline, code: .pipelineUnknownField, at: assignment.location, stage: "load",
                                "source '\(source)' has no field '\(assignment.field)'" + Suggestion.hint(for: assignment.field, in: fields)
                                    + " (fields: \(fields.joined(separator: ", ")))",
                                sourceLine: assignment.sourceLine)
        }
        return field
    }

    /// Each object of a renamed list takes the struct's property names for the keys the load
    /// names; the sink then checks and archives it as the struct.
    @inline(never)
    private func renameElements(_ out: inout EntityRecord, in record: Record) throws {
        for (i, properties) in renamedElements {
            guard case .list(var elements)? = out.values[slots[i].attribute] else { continue }
            for e in elements.indices {
                guard case .object(var fields) = elements[e] else { continue }
                for n in fields.names.indices {
                    guard let property = properties[fields.names[n]] else { continue }
                    if fields.names.contains(property) {
                        throw rejection(slots[i], in: record, raw: elements[e], "gives its element's '\(property)' twice: as '\(fields.names[n])', "
                                            + "which the load renames, and as itself")
                    }
                    fields.names[n] = property
                }
                elements[e] = .object(fields)
            }
            out.values[slots[i].attribute] = .list(elements)
        }
    }

    @inline(never)
    private func fillEnums(_ out: inout EntityRecord, from record: Record) throws {
        for slot in enums {
            let raw = record.values[slot.field]
            let text = raw.isEmpty ? nil : raw.displayText.trimmingCharacters(in: .whitespaces)
            guard let text else {
                if slot.hasDefault {
                    for column in slot.columns { out.values[column.attribute] = column.defaultValue ?? .null }
                    continue
                }
                if slot.isRequired {
                    throw Rejection(at: record.location(ofField: slot.field), stage: "load", field: slot.fieldName, rawValue: "",
                                    reason: "\(entityName).\(slot.property) is required and has no default, but the value is empty")
                }
                for column in slot.columns { out.values[column.attribute] = .null }
                continue
            }
            guard let chosen = slot.cases.first(where: { $0.name == text || $0.rawValue == text }) else {
                throw Rejection(at: record.location(ofField: slot.field), stage: "load", field: slot.fieldName, rawValue: raw.displayText,
                                reason: "\(entityName).\(slot.property) is \(Self.article(slot.typeName)) \(slot.typeName), whose cases are "
                                    + slot.cases.map(\.name).joined(separator: ", ") + Suggestion.hint(for: text, in: slot.cases.map(\.name)))
            }
            for column in slot.columns {
                if let only = column.onlyFor {
                    out.values[column.attribute] = only == chosen.name ? .text(chosen.name) : .null
                } else {
                    out.values[column.attribute] = column.type.isInteger ? Int64(chosen.rawValue).map(Value.integer) ?? .text(chosen.rawValue)
                        : .text(chosen.rawValue)
                }
            }
        }
    }

    private func rejection(_ slot: Slot, in record: Record, raw: Value, _ reason: String) -> Rejection {
        Rejection(at: record.location(ofField: slot.field), stage: "load", field: slot.fieldName,
                  rawValue: raw.displayText, reason: "\(entityName).\(slot.attributeName) \(reason)")
    }
}

/// A to-many link: the records it makes, one per element of a list, each filled by `target` from
/// an element record whose fields are `names`, read from the element first and from the source
/// record where the element has no such field.
struct ListLink {
    let relationship: Int
    let relationshipName: String
    let target: LoadBinding
    /// The element record's fields: every name the target reads.
    let names: [String]
    /// Per name, the source record's field of that name, if it has one.
    let sourceFields: [Int?]
    /// The source field holding the list (`each:`); nil: whichever of `sourceFields` holds one.
    let each: Int?
    /// Where in `names` the list's own field is: a plain element (not an object) is its value.
    let listName: String?
    /// The element record's values, kept from list to list (on the reading thread, as the link
    /// is): an array made for every list cost an allocation and a lookup of its type's metadata.
    private let spare = SpareValues()
    private final class SpareValues { var values: [Value] = [] }

    init(_ link: LoadSpec.Link, relationship: Int, model: StoreModel, fields: [String], fieldIndex: [String: Int],
         source: String) throws {
        self.relationship = relationship
        relationshipName = link.relationship
        var names: [String] = []
        var seen = Set<String>()
        func collect(_ spec: LoadSpec) {
            for assignment in spec.assignments where assignment.constant == nil && seen.insert(assignment.field).inserted {
                names.append(assignment.field)
            }
            for inner in spec.links {
                if let each = inner.each, seen.insert(each).inserted { names.append(each) }
                collect(inner.target)
            }
        }
        collect(link.target)
        if let each = link.each {
            guard let field = fieldIndex[each] else {
                throw PipelineError(.invalidPipeline, code: .pipelineUnknownField, at: link.location, stage: "load",
                                    "source '\(source)' has no field '\(each)' for 'each'" + Suggestion.hint(for: each, in: fields)
                                        + " (fields: \(fields.joined(separator: ", ")))")
            }
            self.each = field
        } else {
            // Without `each:` the names are the source's own fields, checked as for any load.
            for name in names where fieldIndex[name] == nil && name != LoadSpec.Link.positionField {
                throw PipelineError(.invalidPipeline, code: .pipelineUnknownField, at: link.location, stage: "load",
                                    "source '\(source)' has no field '\(name)'" + Suggestion.hint(for: name, in: fields)
                                        + " (fields: \(fields.joined(separator: ", ")); to read the fields of a list's "
                                        + "elements, name the list with 'each:')")
            }
            self.each = nil
        }
        listName = link.each
        self.names = names
        sourceFields = names.map { fieldIndex[$0] }
        var elementIndex: [String: Int] = [:]
        for (i, name) in names.enumerated() { elementIndex[name] = i }
        target = try LoadBinding(link.target, model: model, fields: names, fieldIndex: elementIndex, source: source)
        target.missing = link.missing
    }

    /// The source fields this link reads: they must still hold their values when it runs.
    var sourceFieldsRead: [Int] {
        sourceFields.compactMap { $0 } + (each.map { [$0] } ?? [])
    }

    /// Refills `records` with one record per element of the list in `record`: the records of the
    /// list before are filled again in place, so a list costs allocations only where it grows.
    func fill(_ records: inout [EntityRecord], from record: Record) throws {
        var count = 0
        defer { if records.count > count { records.removeLast(records.count - count) } }
        var list = Value.null
        var listName = self.listName
        if let each {
            list = record.values[each]
        } else {
            // The list is the field the target reads that holds one; a plain value links one record.
            for (i, field) in sourceFields.enumerated() {
                guard let field, case .list = record.values[field] else { continue }
                if let other = listName, other != names[i] {
                    throw Rejection(at: record.location, stage: "load", field: names[i],
                                    reason: "\(relationshipName) reads two lists, '\(other)' and '\(names[i])': name the one "
                                        + "that gives one linked record per element with 'each:'")
                }
                listName = names[i]
                list = record.values[field]
            }
            if listName == nil {
                guard sourceFields.contains(where: { $0.map { !record.values[$0].isEmpty } ?? false }) else { return }
                list = .list([.null])  // the record itself: one link
            }
        }
        var values: [Value] = []
        swap(&values, &spare.values)
        if values.count != names.count { values = [Value](repeating: .null, count: names.count) }
        var elementRecord = Record(values: consume values, location: record.location)
        defer { spare.values = elementRecord.values }
        for (position, element) in list.elements.enumerated() {
            for i in names.indices {
                if names[i] == LoadSpec.Link.positionField {
                    elementRecord.values[i] = .integer(Int64(position))
                } else if case .object(let fields) = element, let value = fields[names[i]] {
                    elementRecord.values[i] = value
                } else if names[i] == listName {
                    elementRecord.values[i] = element
                } else if let field = sourceFields[i] {
                    elementRecord.values[i] = record.values[field]
                } else {
                    elementRecord.values[i] = .null
                }
            }
            if count == records.count { records.append(target.emptyRecord(at: record.location)) }
            do {
                try target.fill(&records[count], from: &elementRecord)
            } catch var rejection as Rejection where rejection.location == elementRecord.location {
                // A value the element took from the record (a part of a split cell, say) is
                // rejected where the record holds it: its cell, or its line and column.
                if let field = rejection.field.flatMap({ sourceField(of: $0, element: element, listName: listName) }) {
                    rejection.location = record.location(ofField: field)
                }
                throw rejection
            }
            count += 1
        }
    }

    /// The source field the element record's field `name` was filled from, if it was: not a field
    /// of the element's own (an object's), nor its position.
    private func sourceField(of name: String, element: Value, listName: String?) -> Int? {
        guard let i = names.firstIndex(of: name) else { return nil }
        if case .object(let fields) = element, fields[name] != nil { return nil }
        return name == listName ? each ?? sourceFields[i] : sourceFields[i]
    }
}

extension LoadBinding {
    /// "an" before a name that starts with a vowel, "a" before any other: "an Equipment", "a Gear".
    static func article(_ name: String) -> String {
        name.first.map { "AEIOUaeiou".contains($0) } == true ? "an" : "a"
    }
}
