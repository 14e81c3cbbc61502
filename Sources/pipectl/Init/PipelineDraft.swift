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
    static func normalized(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) })
    }

    struct Match {
        var field: String
        var property: String
        var isRelationship: Bool
        /// `same name`, `ignoring case and _`, `similar name`.
        var how: String
    }

    /// How well `field` names `property`: exact, the same once case, spaces and `_` are gone, or
    /// within two edits of it; nil when not at all.
    static func matchKind(_ field: String, _ property: String) -> (rank: Int, how: String)? {
        if field == property { return (0, "same name") }
        let f = normalized(field), p = normalized(property)
        if f == p { return (1, "same name ignoring case, spaces and _") }
        if f.count >= 5, p.count >= 5, let close = Suggestion.closest(to: f, in: [p]), close == p { return (2, "similar name: check it") }
        return nil
    }

    /// The best entity for a sample's fields and how each field maps to it.
    func matches(for sample: InputSample) -> (entity: Entity, matches: [Match], unmatched: [String])? {
        var best: (entity: Entity, matches: [Match], unmatched: [String])?
        for entity in model.entities where !entity.isAbstract {
            var properties: [(String, Bool)] = model.allAttributes(of: entity.name)
                .filter { !$0.isTransient && !$0.isDerived && ($0.composite == nil || $0.composite?.composite != $0.name) }.map { ($0.name, false) }
            properties += model.allAttributes(of: entity.name).filter { $0.composite?.composite == $0.name }.map { ($0.name, false) }
            properties += model.allRelationships(of: entity.name).filter { !$0.isToMany && !$0.isTransient }.map { ($0.name, true) }
            var taken = Set<String>()
            var found: [Match] = []
            var unmatched: [String] = []
            for field in sample.fields {
                let candidates = properties.filter { !taken.contains($0.0) }.compactMap { name, isLink in
                    Self.matchKind(field, name).map { (name, isLink, $0.rank, $0.how) }
                }.sorted { $0.2 < $1.2 }
                guard let (name, isLink, _, how) = candidates.first else { unmatched.append(field); continue }
                taken.insert(name)
                found.append(Match(field: field, property: name, isRelationship: isLink, how: how))
            }
            if found.count > (best?.matches.count ?? 0) { best = (entity, found, unmatched) }
        }
        return best
    }

    /// The key an entity is found by, and a comment on where it comes from: the model's
    /// uniqueness constraint (of several, the first the source's fields give), else its one text
    /// attribute of its own, else one named like a key.
    /// `among`: the attributes a source's fields match, which the key should be made of.
    func key(of entity: String, among matched: Set<String>? = nil) -> (attributes: [String], comment: String)? {
        let constraints = model.lineage(of: entity).reversed().flatMap(\.uniquenessConstraints).filter { !$0.isEmpty }
        if let first = constraints.first {
            guard constraints.count > 1 else { return (first, "the model's uniqueness constraint") }
            let chosen = matched.flatMap { matched in constraints.first { Set($0).isSubset(of: matched) } } ?? first
            let others = constraints.filter { $0 != chosen }.map { $0.joined(separator: "+") }.joined(separator: ", ")
            return (chosen, "one of the model's uniqueness constraints (also: \(others)): check which the export identifies records by")
        }
        let guessed = "guessed: the model has no uniqueness constraint on \(entity)"
        let own = model[entity]?.attributes.filter { $0.type == .string && $0.composite == nil && matched?.contains($0.name) != false } ?? []
        if own.count == 1 { return ([own[0].name], guessed) }
        let all = model.allAttributes(of: entity).filter { $0.type == .string && matched?.contains($0.name) != false }
        for name in ["name", "title", "code", "key", "sku", "identifier"] {
            if let attribute = all.first(where: { $0.name.lowercased() == name }) { return ([attribute.name], guessed) }
        }
        return nil
    }

    /// The sample's entity and matches when its fields give the entity's key too (a load must
    /// set it); nil when they match nothing, or miss the key.
    func loadable(_ sample: InputSample) -> (entity: Entity, matches: [Match], unmatched: [String])? {
        guard let found = matches(for: sample) else { return nil }
        let matched = Set(found.matches.map(\.property))
        if let key = key(of: found.entity.name, among: matched), !Set(key.attributes).isSubset(of: matched) { return nil }
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

    static let booleans: [String: String] = ["ja": "true", "nein": "false", "oui": "true", "non": "false", "si": "true", "sí": "true",
                                             "wahr": "true", "falsch": "false", "x": "true"]
}
