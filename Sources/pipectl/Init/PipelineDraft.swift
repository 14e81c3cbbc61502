import Foundation
import Diagnostics
import Pipeline
import Transforms

/// The pipeline `pipectl init` drafts from an app's model and its inputs: each input's fields
/// matched to the entity whose attributes they name, keys from the model (else guessed), and
/// transforms guessed from the sampled values. Every guess says so in a comment.
struct PipelineDraft {
    let model: StoreModel
    /// As the pipeline file names them: relative to its folder.
    let modelPath: String
    let samples: [InputSample]
    let timezone: String?
    let isSwiftData: Bool

    /// A name reduced to what matching compares: letters and digits, lower case.
    /// ASCII names (nearly all) byte by byte; Foundation's character set (made once: its getter
    /// copies it) for the others. A 16 MB header took `init` a minute, normalized per attribute.
    static func normalized(_ name: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(byte + 32)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): bytes.append(byte)
            case 0x80...: return String(name.lowercased().unicodeScalars.filter { alphanumerics.contains($0) })
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let alphanumerics = CharacterSet.alphanumerics

    struct Match {
        var field: String
        var property: String
        var isRelationship: Bool
        /// `same name`, `ignoring case and _`, `similar name`.
        var how: String
    }

    /// How well `field` names `property`: exact, the same once case, spaces and `_` are gone, or
    /// within two edits of it; or the entity's name then the attribute's (`ProductName`); nil when not at all.
    /// `normalizedField`: `field` normalized, when the caller matches it against many properties.
    static func matchKind(_ field: String, _ property: String, of entity: String? = nil,
                          normalizedField: String? = nil) -> (rank: Int, how: String)? {
        if field == property { return (0, "same name") }
        let f = normalizedField ?? normalized(field), p = normalized(property)
        if f == p { return (1, "same name ignoring case, spaces and _") }
        // `ProductName` for Product's name, as exports of databases name columns.
        if let entity, f == normalized(entity) + p { return (1, "the entity's name, then the attribute's") }
        // `street` for a struct's `address.street`, as exports flatten structs.
        if let dot = property.lastIndex(of: "."), f == normalized(String(property[property.index(after: dot)...])) {
            return (2, "the name of its last part: check it")
        }
        if f.count >= 5, p.count >= 5, let close = Suggestion.closest(to: f, in: [p]), close == p { return (2, "similar name: check it") }
        return nil
    }

    /// What a sample loads: the entity, each field's attribute, the fields that match none.
    struct Mapping {
        var entity: Entity
        var matches: [Match]
        var unmatched: [String]
        /// `the sheet's name`, `the file's name`: what names the entity, when the input's or
        /// sheet's name does; nil when its fields chose it.
        var namedBy: String?
    }

    /// The entity `name` names: its own name ignoring case, spaces, `_` and a plural ending
    /// (`Categories` for Category, `order_details` for OrderDetail); never an abstract one.
    func entity(named name: String) -> Entity? {
        // Each word's plural too: `Orders Details` names OrderDetail.
        let words = name.split(whereSeparator: { $0 == " " || $0 == "_" || $0 == "-" })
        let names = Set([Self.normalized(name), Self.normalized(words.map(Self.singular).joined())]).filter { !$0.isEmpty }
        return model.entities.first { entity in
            let e = Self.normalized(entity.name)
            return !entity.isAbstract && names.contains { n in n == e || Self.normalized(Self.singular(Substring(n))) == e }
        }
    }

    /// `word` without an English plural ending (`Categories`, `Boxes`, `Tags`); as it is otherwise.
    static func singular(_ word: Substring) -> String {
        let lower = word.lowercased()
        if lower.hasSuffix("ies"), lower.count > 4 { return String(word.dropLast(3)) + "y" }
        if lower.hasSuffix("sses") || lower.hasSuffix("xes") || lower.hasSuffix("ches") || lower.hasSuffix("shes") { return String(word.dropLast(2)) }
        if lower.hasSuffix("s"), !lower.hasSuffix("ss"), lower.count > 2 { return String(word.dropLast()) }
        return String(word)
    }

    /// The entity a sample is named after: a sheet's name, else (a lone sheet, any other input)
    /// the file's.
    func namedEntity(of sample: InputSample) -> (entity: Entity, by: String)? {
        if let sheet = sample.sheet {
            if let entity = entity(named: sheet) { return (entity, "the sheet's name") }
            guard sample.sheetCount == 1 else { return nil }
        }
        return entity(named: sample.url.deletingPathExtension().lastPathComponent).map { ($0, "the file's name") }
    }

    /// How a sample's fields map to `entity`'s attributes and to-one relationships.
    func fieldMatches(of sample: InputSample, to entity: Entity) -> (matches: [Match], unmatched: [String]) {
        // An enum loads from one field by its own name, not by its columns.
        let enums = model.allComposites(of: entity.name).filter(\.isEnum).map(\.name)
        var properties: [(String, Bool)] = model.allAttributes(of: entity.name)
            .filter { !$0.isTransient && !$0.isDerived && !enums.contains($0.composite?.composite ?? "") }.map { ($0.name, false) }
        properties += enums.map { ($0, false) }
        properties += model.allRelationships(of: entity.name).filter { !$0.isToMany && !$0.isTransient }.map { ($0.name, true) }
        var taken = Set<String>()
        var found: [Match] = []
        var unmatched: [String] = []
        for field in sample.fields {
            let normalizedField = Self.normalized(field)
            let candidates = properties.filter { !taken.contains($0.0) }.compactMap { name, isLink in
                Self.matchKind(field, name, of: entity.name, normalizedField: normalizedField).map { (name, isLink, $0.rank, $0.how) }
            }.sorted { $0.2 < $1.2 }
            guard let (name, isLink, _, how) = candidates.first else { unmatched.append(field); continue }
            taken.insert(name)
            found.append(Match(field: field, property: name, isRelationship: isLink, how: how))
        }
        return (found, unmatched)
    }

    /// The entity a sample loads and how its fields map to it: the entity its name names, before
    /// any matching by fields (a `Categories` sheet whose columns look like another entity's
    /// attributes still loads Category); else the entity whose attributes its fields name most.
    /// Nil when its fields name nothing; a named entity comes back even with no field matched.
    func matches(for sample: InputSample) -> Mapping? {
        if let (entity, by) = namedEntity(of: sample) {
            let (matches, unmatched) = fieldMatches(of: sample, to: entity)
            return Mapping(entity: entity, matches: matches, unmatched: unmatched, namedBy: by)
        }
        var best: Mapping?
        for entity in model.entities where !entity.isAbstract {
            let (found, unmatched) = fieldMatches(of: sample, to: entity)
            if found.count > (best?.matches.count ?? 0) { best = Mapping(entity: entity, matches: found, unmatched: unmatched) }
        }
        return best
    }

    /// The key the model gives an entity, and a comment on it: its uniqueness constraint (of
    /// several, the first the source's fields give); nil when it has none.
    /// `among`: the attributes a source's fields match, which the key should be made of.
    func modelKey(of entity: String, among matched: Set<String>? = nil) -> (attributes: [String], comment: String)? {
        let constraints = model.lineage(of: entity).reversed().flatMap(\.uniquenessConstraints).filter { !$0.isEmpty }
        guard let first = constraints.first else { return nil }
        guard constraints.count > 1 else { return (first, "the model's uniqueness constraint") }
        let chosen = matched.flatMap { matched in constraints.first { Set($0).isSubset(of: matched) } } ?? first
        let others = constraints.filter { $0 != chosen }.map { $0.joined(separator: "+") }.joined(separator: ", ")
        return (chosen, "one of the model's uniqueness constraints (also: \(others)): check which the export identifies records by")
    }

    /// The attributes of an entity without a uniqueness constraint that a key is guessed from, in
    /// order: its one text attribute of its own, else its text attributes named like a key.
    /// `among`: the attributes a source's fields match.
    func keyCandidates(of entity: String, among matched: Set<String>? = nil) -> [String] {
        let own = model[entity]?.attributes.filter { $0.type == .string && $0.composite == nil && matched?.contains($0.name) != false } ?? []
        if own.count == 1 { return [own[0].name] }
        let all = model.allAttributes(of: entity).filter { $0.type == .string && matched?.contains($0.name) != false }
        return ["name", "title", "code", "key", "sku", "identifier"].compactMap { name in all.first { $0.name.lowercased() == name }?.name }
    }

    /// The key an entity is found by, and a comment on where it comes from; for an entity that
    /// only links reach (no source of its own), a guess by name, as the link's value is its key.
    func key(of entity: String, among matched: Set<String>? = nil) -> (attributes: [String], comment: String)? {
        if let key = modelKey(of: entity, among: matched) { return key }
        return keyCandidates(of: entity, among: matched).first.map { ([$0], "guessed: the model has no uniqueness constraint on \(entity)") }
    }

    /// A key guessed for an entity a source loads and the model gives none: the first candidate
    /// (`keyCandidates`) whose field has a value in every sampled record, no two alike. A key that
    /// repeats would load the first record of each value and count the others as already there;
    /// one that is empty would skip the record. Nil key, and why, when no candidate qualifies.
    func guessedKey(of entity: String, from sample: InputSample, matches: [Match]) -> (attributes: [String]?, comment: String) {
        let candidates = keyCandidates(of: entity, among: Set(matches.map(\.property)))
        var why: [String] = []
        for attribute in candidates {
            guard let field = matches.first(where: { $0.property == attribute })?.field else { continue }
            let values = (sample.values[field] ?? []).map { value -> String in
                guard case .text(let text) = value else { return value.displayText }
                return Trimming.trimmed(text) ?? text
            }
            if values.count < sample.records {
                why.append("\(Self.scalar(field)) is empty in \(sample.records - values.count) of the \(sample.records) sampled records")
                continue
            }
            var seen: [String: Int] = [:], order: [String] = []
            for value in values {
                if seen[value] == nil { order.append(value) }
                seen[value, default: 0] += 1
            }
            let repeated = order.filter { seen[$0]! > 1 }
            if repeated.isEmpty {
                return ([attribute], "guessed: the model has no uniqueness constraint on \(entity); "
                            + "\(Self.scalar(field)) differs in each of the \(sample.records) sampled records")
            }
            let shown = repeated.prefix(3).map { "\(Self.scalar($0)) \(seen[$0]!) times" }.joined(separator: ", ")
            why.append("\(Self.scalar(field)) repeats in the sampled records (\(shown)\(repeated.count > 3 ? ", \(repeated.count - 3) more" : ""))")
        }
        guard !why.isEmpty else {
            return (nil, "no key: the model has no uniqueness constraint on \(entity), and no field gives a text attribute named like a key "
                        + "(name, title, code, ...); each record is inserted as it comes")
        }
        return (nil, "no key guessed: the model has no uniqueness constraint on \(entity), and \(why.joined(separator: "; ")); "
                    + "each record is inserted as it comes")
    }

    /// The sample's mapping when it can be drafted: a field matches, and the fields give the
    /// model's key if it has one (a load must set it); nil when they match nothing, or miss the key.
    func loadable(_ sample: InputSample) -> Mapping? {
        guard let found = matches(for: sample), !found.matches.isEmpty else { return nil }
        let matched = Set(found.matches.map(\.property))
        if let key = modelKey(of: found.entity.name, among: matched), !Set(key.attributes).isSubset(of: matched) { return nil }
        return found
    }

    // MARK: Transforms

    /// Values that carry stray whitespace: a `trim` is worth it.
    static func needsTrim(_ values: [Value]) -> String? {
        values.lazy.compactMap { value -> String? in
            guard case .text(let text) = value, Trimming.trimmed(text) != nil else { return nil }
            return text
        }.first
    }

    /// A decimal comma in a number column (`0,75`): `number` with `decimal: ","`.
    static func decimalComma(_ values: [Value]) -> String? {
        values.lazy.compactMap { value -> String? in
            guard case .text(let text) = value else { return nil }
            let trimmed = Trimming.trimmed(text) ?? text
            guard let comma = trimmed.lastIndex(of: ","), !trimmed[trimmed.index(after: comma)...].contains(".") else { return nil }
            let after = trimmed[trimmed.index(after: comma)...]
            return !after.isEmpty && after.count <= 3 && after.allSatisfy(\.isNumber) && !(after.count == 3 && !trimmed.contains(".")) ? trimmed : nil
        }.first
    }

    static let datePatterns = ["dd/MM/yyyy", "MM/dd/yyyy", "d/M/yyyy", "M/d/yyyy", "dd.MM.yyyy", "d.M.yyyy", "yyyy-MM-dd",
                               "dd-MM-yyyy", "yyyy/MM/dd", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm:ss",
                               "yyyy-MM-dd'T'HH:mm:ssXXX", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "dd/MM/yyyy HH:mm", "MM/dd/yyyy HH:mm",
                               "dd.MM.yyyy HH:mm", "d MMM yyyy", "MMM d, yyyy", "d MMMM yyyy", "MMMM d, yyyy"]

    /// The patterns that read every sampled value, grouped by what they read them as: more than
    /// one group is an ambiguity (dd/MM or MM/dd) to tell.
    static func datePatterns(for values: [Value], zone: String) -> [String] {
        let texts = values.compactMap { value -> String? in
            if case .text(let text) = value { return Trimming.trimmed(text) ?? text }
            return nil
        }
        guard !texts.isEmpty else { return [] }
        var groups: [(pattern: String, read: [Value])] = []
        for pattern in datePatterns {
            let here = Location(file: "init")
            let node = ConfigNode(.mapping([
                (ConfigNode(.scalar("fields"), at: here), ConfigNode(.scalar("v"), at: here)),
                (ConfigNode(.scalar("format"), at: here), ConfigNode(.scalar(pattern), at: here)),
                (ConfigNode(.scalar("timezone"), at: here), ConfigNode(.scalar(zone), at: here)),
            ]), at: here)
            guard let step = try? DateTransform().make(node), (try? step.bind(fields: ["v"])) != nil else { continue }
            var read: [Value] = []
            for text in texts {
                var record = Record(values: [.text(text)], location: here)
                guard (try? step.apply(&record)) != nil else { read = []; break }
                read.append(record.values[0])
            }
            guard read.count == texts.count, !groups.contains(where: { $0.read == read }) else { continue }
            groups.append((pattern, read))
        }
        return groups.map(\.pattern)
    }

    /// A sampled value that `number` with a decimal comma cannot read.
    static func unreadNumber(_ values: [Value]) -> String? {
        let here = Location(file: "init")
        let node = ConfigNode(.mapping([
            (ConfigNode(.scalar("fields"), at: here), ConfigNode(.scalar("v"), at: here)),
            (ConfigNode(.scalar("decimal"), at: here), ConfigNode(.scalar(","), at: here)),
        ]), at: here)
        guard let step = try? NumberTransform().make(node), (try? step.bind(fields: ["v"])) != nil else { return nil }
        for value in values {
            guard case .text(let text) = value else { continue }
            var record = Record(values: [.text(Trimming.trimmed(text) ?? text)], location: here)
            if (try? step.apply(&record)) == nil { return text }
        }
        return nil
    }

    /// Yes and no as exports in common languages write them, each word with its language's
    /// other one; `x` alone (a ticked box). The words a Boolean column uses bring their pair into
    /// the draft's `map`, so that a sample with only `Sí` still reads a `No` further down.
    static let yesNo: [(yes: String, no: String?)] = [
        ("sí", "no"), ("si", "no"), ("sì", "no"),           // Spanish, Italian
        ("ja", "nein"), ("wahr", "falsch"),                 // German
        ("oui", "non"), ("vrai", "faux"),                   // French
        ("sim", "não"), ("sim", "nao"),                     // Portuguese
        ("да", "нет"), ("так", "ні"),                       // Russian, Ukrainian
        ("ja", "nee"), ("ja", "nej"), ("ja", "nei"),        // Dutch, Swedish and Danish, Norwegian
        ("tak", "nie"), ("ano", "ne"), ("igen", "nem"),     // Polish, Czech, Hungarian
        ("kyllä", "ei"), ("evet", "hayır"), ("ναι", "όχι"), // Finnish, Turkish, Greek
        ("はい", "いいえ"), ("是", "否"),                     // Japanese, Chinese
        ("x", nil),
    ]

    /// What the load reads as a Boolean by itself (AttributeType's conversion), ignoring case.
    static let nativeBooleans: [String: Bool] = ["true": true, "yes": true, "y": true, "1": true,
                                                 "false": false, "no": false, "n": false, "0": false]

    /// The `map` table for a Boolean field's sampled words (trimmed, lower case): each word of
    /// another language with its pair, and the load's own words seen beside them; nil when the
    /// load reads every word itself, or one is no yes or no word at all.
    static func booleanMap(_ words: Set<String>) -> [(word: String, value: Bool)]? {
        guard words.contains(where: { nativeBooleans[$0] == nil }) else { return nil }
        var table: [String: Bool] = [:]
        for word in words.sorted() where nativeBooleans[word] == nil {
            // Of the pairs holding the word, the one whose other word is seen too, else the first.
            let pairs = yesNo.filter { $0.yes == word || $0.no == word }
            guard let pair = pairs.first(where: { words.contains($0.yes) && $0.no.map(words.contains) == true }) ?? pairs.first else { return nil }
            table[pair.yes] = true
            if let no = pair.no { table[no] = false }
        }
        for word in words where table[word] == nil { table[word] = nativeBooleans[word] }
        return table.keys.sorted().map { ($0, table[$0]!) }
    }
}
