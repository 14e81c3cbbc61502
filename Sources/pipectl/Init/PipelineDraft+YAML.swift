import Foundation
import Diagnostics
import Pipeline

extension PipelineDraft {
    /// A YAML scalar as written in a flow mapping: quoted when YAML would read it otherwise, its
    /// control characters escaped (a line break would end the line it stands on).
    static func scalar(_ text: String) -> String {
        let plain = text.range(of: #"^[A-Za-z_][A-Za-z0-9_./-]*$"#, options: .regularExpression) != nil
            && !["true", "false", "yes", "no", "null", "on", "off"].contains(text.lowercased())
        guard !plain else { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029:
                quoted += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16, uppercase: true)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// A sampled value shown in a comment: quoted, escaped and cut as messages show values.
    static func example(_ text: String) -> String {
        inComment(Snippet.quoted(text))
    }

    /// A value with stray whitespace shown in a comment: a long one keeps both of its ends, where
    /// the whitespace is (`"<p>I was offered a beer…made with them?</p>\n" (155 characters)`).
    static func trimExample(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > Snippet.valueWidth else { return example(text) }
        var ends = String.UnicodeScalarView(scalars.prefix(24))
        ends.append("…")
        ends.append(contentsOf: scalars.suffix(24))
        return inComment(Snippet.quoted(String(ends))) + " (\(scalars.count.grouped) characters)"
    }

    /// Text from an input (a field's name, a value) made safe for a comment: YAML's parser ends a
    /// comment at any line break, NEL, LS and PS included.
    static func inComment(_ text: String) -> String {
        let breaks: Set<UInt32> = [0x0A, 0x0D, 0x85, 0x2028, 0x2029]
        guard text.unicodeScalars.contains(where: { breaks.contains($0.value) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if breaks.contains(scalar.value) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `line` with `comment` after it, aligned where the line is short enough.
    static func commented(_ line: String, _ comment: String?) -> String {
        guard let comment else { return line + "\n" }
        return line + String(repeating: " ", count: max(1, 60 - line.count)) + "# " + inComment(comment) + "\n"
    }

    /// `lines` (comments) placed under the draft's first two, which say where it comes from.
    static func placing(_ lines: [String], in yaml: String) -> String {
        var all = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        all.insert(contentsOf: lines, at: min(2, all.count))
        return all.joined(separator: "\n")
    }

    /// The pipeline file, and how many sources it has.
    func yaml(name: String, storePath: String, inputNames: [String]) -> (text: String, sources: Int) {
        var inputs: [String] = []
        for path in samples.map(\.path) where !inputs.contains(path) { inputs.append(path) }
        var out = "# Drafted by `pipectl init` from \(modelPath) and \(inputs.joined(separator: ", ")).\n"
        out += "# Check each guess a comment marks, then `pipectl validate` and `pipectl run` this file.\n"
        out += "version: 1\nname: \(Self.scalar(name))\nstore:\n"
        out += "  path: \(Self.scalar(storePath))\n  layout: coredata\n  model: \(Self.scalar(modelPath))\n"

        // The keys of the entities sources load first, each from the first source that loads it,
        // whatever order links reach them in; an entity only links reach gets a key by name.
        var keyed: [(entity: String, key: [String], comment: String)] = []
        var unkeyed: [(entity: String, line: String, comment: String)] = []
        for sample in samples where sample.unreadable == nil {
            guard let mapping = loadable(sample) else { continue }
            let entity = mapping.entity.name
            guard !keyed.contains(where: { $0.entity == entity }), !unkeyed.contains(where: { $0.entity == entity }) else { continue }
            if let (key, comment) = modelKey(of: entity, among: Set(mapping.matches.map(\.property))) {
                keyed.append((entity, key, comment))
                continue
            }
            let (key, comment) = guessedKey(of: entity, from: sample, matches: mapping.matches)
            if let key {
                keyed.append((entity, key, comment))
            } else {
                // Ready to uncomment once someone knows which attribute identifies the records.
                let candidate = keyCandidates(of: entity, among: Set(mapping.matches.map(\.property))).first ?? "..."
                unkeyed.append((entity, "  # \(entity): { unique: \(candidate) }", comment))
            }
        }
        func needKey(_ entity: String) -> [String]? {
            if let known = keyed.first(where: { $0.entity == entity }) { return known.key }
            if unkeyed.contains(where: { $0.entity == entity }) { return nil }
            guard let (key, comment) = key(of: entity) else {
                unkeyed.append((entity, "  # \(entity): { unique: ... }", "name the attribute its records are found by"))
                return nil
            }
            keyed.append((entity, key, comment))
            return key
        }
        var sources = "sources:\n"
        var sourceCount = 0
        // A workbook's sheet that matches no entity (notes, a chart's data) is told, not read,
        // when another sheet of it does match.
        let matchedWorkbooks = Set(samples.filter { $0.sheet != nil && $0.unreadable == nil && loadable($0) != nil }.map(\.path))
        let zone = timezone ?? "UTC"
        for (sample, sourceName) in zip(samples, inputNames) {
            if let sheet = sample.sheet, let why = sample.unreadable {
                sources += "  # sheet \(Self.scalar(sheet)) of \(sample.path) is not read: \(why)\n"
                continue
            }
            // What the draft cannot map (no field names an attribute, or none gives the entity's
            // key, which a load must set) is told in a comment, never drafted as a source that
            // would not validate.
            let what = sample.sheet.map { "sheet \(Self.scalar($0)) of \(sample.path)" } ?? sample.path
            let fields = Self.inComment(sample.fields.prefix(12).joined(separator: ", ") + (sample.fields.count > 12 ? ", ..." : ""))
            guard let mapping = matches(for: sample) else {
                if sample.sheet != nil, matchedWorkbooks.contains(sample.path) {
                    sources += "  # \(what) is not read: no column names an attribute of the model\n"
                } else {
                    sources += "  # \(what) is not read: no field names an attribute of the model (fields: \(fields)); map them by hand\n"
                }
                continue
            }
            let (entity, matches, unmatched) = (mapping.entity, mapping.matches, mapping.unmatched)
            if matches.isEmpty, let namedBy = mapping.namedBy {
                // Named after an entity, it loads that one or nothing: another entity whose
                // attributes its fields resemble would take rows that are not its own.
                sources += "  # \(what) is not read: \(namedBy) names \(entity.name), but no \(sample.sheet == nil ? "field" : "column") "
                    + "names an attribute of it (\(sample.sheet == nil ? "fields" : "columns"): \(fields)); map them by hand\n"
                continue
            }
            let matched = Set(matches.map(\.property))
            if let key = keyed.first(where: { $0.entity == entity.name })?.key ?? modelKey(of: entity.name, among: matched)?.attributes,
               !Set(key).isSubset(of: matched) {
                if sample.sheet != nil, matchedWorkbooks.contains(sample.path) {
                    sources += "  # \(what) is not read: its columns name attributes of \(entity.name) but not its key\n"
                } else {
                    sources += "  # \(what) is not read: its fields name attributes of \(entity.name) (\(Self.inComment(matches.map(\.field).joined(separator: ", ")))), "
                        + "but none gives its key (\(key.joined(separator: ", "))); map them by hand\n"
                }
                continue
            }
            sourceCount += 1
            sources += "  - name: \(Self.scalar(sourceName))\n"
            var read = "    read: { \(sample.format.rawValue): \(Self.scalar(sample.path))"
            if let path = sample.recordPath { read += sample.format == .xml ? ", record: \(Self.scalar(path))" : ", records: \(Self.scalar(path))" }
            if sample.format == .csv { read += ", encoding: auto, delimiter: auto" }
            if let sheet = sample.sheet { read += ", sheet: \(Self.scalar(sheet))" }
            if let range = sample.range { read += ", range: \(range)" }
            // A workbook's dates are wall-clock times: the zone they are in is the reader's.
            let hasDates = sample.values.values.contains { $0.contains { if case .date = $0 { true } else { false } } }
            if sample.format == .xlsx, hasDates { read += ", timezone: \(zone)" }
            read += " }"
            var comment = sample.detected.isEmpty ? nil : "read as " + sample.detected.map { "\($0.name) \($0.value)" }.joined(separator: ", ")
            if sample.format == .xlsx, hasDates, timezone == nil { comment = "date cells: the zone is a guess (pipectl init --timezone)" }
            if let range = sample.range {
                comment = "the table's header row starts at \(range), below what is above it" + (comment.map { "; " + $0 } ?? "")
            }
            sources += Self.commented(read, comment)
            let attributes = model.allAttributes(of: entity.name)
            // Transforms from the values of the matched fields.
            var steps: [(String, String?)] = []
            let loaded = matches.map(\.field)
            if let example = loaded.lazy.compactMap({ Self.needsTrim(sample.values[$0] ?? []) }).first {
                steps.append(("- trim: all", "values with stray whitespace, such as \(Self.trimExample(example))"))
            }
            var commas: [String] = [], example = ""
            for match in matches where !match.isRelationship {
                guard let type = attributes.first(where: { $0.name == match.property })?.type,
                      [.float, .double, .decimal].contains(type), let found = Self.decimalComma(sample.values[match.field] ?? []) else { continue }
                commas.append(match.field)
                example = found
            }
            if !commas.isEmpty {
                // A value the step cannot read (a decimal point among commas) is told, not hidden.
                let unread = commas.lazy.compactMap { Self.unreadNumber(sample.values[$0] ?? []) }.first
                steps.append(("- number: { fields: [\(commas.map(Self.scalar).joined(separator: ", "))], decimal: \",\" }",
                              "decimal commas, such as \(Self.example(example))"
                                  + (unread.map { "; but \(Self.example($0)) does not read so: check the export" } ?? "")))
            }
            for match in matches where !match.isRelationship && attributes.first(where: { $0.name == match.property })?.type == .date {
                let patterns = Self.datePatterns(for: sample.values[match.field] ?? [], zone: zone)
                guard let pattern = patterns.first else {
                    if sample.values[match.field]?.contains(where: { if case .text = $0 { true } else { false } }) == true {
                        steps.append(("# - date: { fields: [\(Self.scalar(match.field))], format: \"...\", timezone: \(zone) }",
                                      "no common pattern reads every value: write its format"))
                    }
                    continue
                }
                var comment = "reads every sampled value"
                if patterns.count > 1 { comment = "ambiguous: \(patterns.dropFirst().map { "\"\($0)\"" }.joined(separator: ", ")) also reads every value, as other dates; check which the export means" }
                if timezone == nil { comment += "; the zone is a guess (pipectl init --timezone)" }
                steps.append(("- date: { fields: [\(Self.scalar(match.field))], format: \"\(pattern)\", timezone: \(zone) }", comment))
            }
            var maps: [(String, String)] = []
            for match in matches where !match.isRelationship && attributes.first(where: { $0.name == match.property })?.type == .bool {
                let words = Set((sample.values[match.field] ?? []).compactMap { value -> String? in
                    if case .text(let text) = value { return (Trimming.trimmed(text) ?? text).lowercased() }
                    return nil
                })
                guard let map = Self.booleanMap(words) else { continue }
                let table = map.map { "\(Self.scalar($0.word)): \($0.value)" }.joined(separator: ", ")
                maps.append(("- map: { fields: [\(Self.scalar(match.field))], values: { \(table) }, ignore_case: true }",
                             "yes and no as the export writes them"))
            }
            steps += maps.map { ($0.0, Optional($0.1)) }
            if !steps.isEmpty {
                sources += "    transform:\n"
                for (step, comment) in steps { sources += Self.commented("      " + step, comment) }
            }
            sources += "    load:\n"
            sources += Self.commented("      \(entity.name):", mapping.namedBy.map { "\($0) names the entity" })
            for match in matches {
                if match.isRelationship, let relationship = model.allRelationships(of: entity.name).first(where: { $0.name == match.property }) {
                    guard let key = needKey(relationship.destination), key.count == 1 else {
                        sources += "        # \(match.property): \(Self.inComment(match.field)) links \(relationship.destination), which has no key to find it by\n"
                        continue
                    }
                    sources += Self.commented("        \(match.property): { \(relationship.destination): { \(key[0]): \(Self.scalar(match.field)) } }",
                                              match.how == "same name" ? nil : match.how)
                } else {
                    sources += Self.commented("        \(match.property): \(Self.scalar(match.field))", match.how == "same name" ? nil : match.how)
                }
            }
            if !unmatched.isEmpty {
                sources += "    # not loaded, as no attribute of \(entity.name) matches: \(Self.inComment(unmatched.joined(separator: ", ")))\n"
            }
            // What the model requires and no field gives: each record would be rejected for it.
            let required = model.allAttributes(of: entity.name)
                .filter { !$0.isOptional && $0.defaultValue == nil && !$0.isTransient && !$0.isDerived
                    && ($0.composite == nil || $0.composite?.composite == $0.name) && !matched.contains($0.name) }.map(\.name)
                + model.allComposites(of: entity.name).filter { composite in
                    composite.isEnum && !composite.isOptional && !matched.contains(composite.name)
                        && !model.allAttributes(of: entity.name).contains { $0.composite?.composite == composite.name && $0.defaultValue != nil }
                }.map(\.name)
                + model.allRelationships(of: entity.name).filter { !$0.isToMany && !$0.isOptional && !$0.isTransient && !matched.contains($0.name) }
                .map(\.name)
            if !required.isEmpty {
                sources += "    # required by \(entity.name), and no field gives \(required.count == 1 ? "it" : "them"): \(required.joined(separator: ", ")); "
                    + "a record without \(required.count == 1 ? "it" : "them") is rejected: map a field, or give the model a default\n"
            }
        }

        if !keyed.isEmpty || !unkeyed.isEmpty {
            // With no key to give, the section is a comment too: `entities:` alone is no mapping.
            out += keyed.isEmpty ? "# entities:\n" : "entities:\n"
            for (entity, key, comment) in keyed {
                let value = key.count == 1 ? key[0] : "[\(key.joined(separator: ", "))]"
                out += Self.commented("  \(entity): { unique: \(value) }", comment)
            }
            for (_, line, comment) in unkeyed { out += Self.commented(line, comment) }
        }
        return (out + sources, sourceCount)
    }
}
