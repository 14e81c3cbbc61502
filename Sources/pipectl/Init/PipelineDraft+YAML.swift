import Foundation
import Pipeline

extension PipelineDraft {
    /// A YAML scalar as written in a flow mapping: quoted when YAML would read it otherwise.
    static func scalar(_ text: String) -> String {
        let plain = text.range(of: #"^[A-Za-z_][A-Za-z0-9_./-]*$"#, options: .regularExpression) != nil
            && !["true", "false", "yes", "no", "null", "on", "off"].contains(text.lowercased())
        return plain ? text : "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `line` with `comment` after it, aligned where the line is short enough.
    static func commented(_ line: String, _ comment: String?) -> String {
        guard let comment else { return line + "\n" }
        return line + String(repeating: " ", count: max(1, 60 - line.count)) + "# " + comment + "\n"
    }

    /// The pipeline file, and how many sources it has.
    func yaml(name: String, storePath: String, inputNames: [String]) -> (text: String, sources: Int) {
        var inputs: [String] = []
        for path in samples.map(\.path) where !inputs.contains(path) { inputs.append(path) }
        var out = "# Drafted by `pipectl init` from \(modelPath) and \(inputs.joined(separator: ", ")).\n"
        out += "# Check each guess a comment marks, then `pipectl validate` and `pipectl run` this file.\n"
        out += "version: 1\nname: \(Self.scalar(name))\nstore:\n"
        out += "  path: \(Self.scalar(storePath))\n  layout: coredata\n  model: \(Self.scalar(modelPath))\n"

        // First the sources, which say which entities need keys.
        var keyed: [(entity: String, key: [String], comment: String)] = []
        var unkeyed: [String] = []
        func needKey(_ entity: String, among matched: Set<String>? = nil) -> [String]? {
            if let known = keyed.first(where: { $0.entity == entity }) { return known.key }
            if unkeyed.contains(entity) { return nil }
            guard let (key, comment) = key(of: entity, among: matched) else { unkeyed.append(entity); return nil }
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
            let fields = sample.fields.prefix(12).joined(separator: ", ") + (sample.fields.count > 12 ? ", ..." : "")
            guard let (entity, matches, unmatched) = matches(for: sample) else {
                if sample.sheet != nil, matchedWorkbooks.contains(sample.path) {
                    sources += "  # \(what) is not read: no column names an attribute of the model\n"
                } else {
                    sources += "  # \(what) is not read: no field names an attribute of the model (fields: \(fields)); map them by hand\n"
                }
                continue
            }
            let matched = Set(matches.map(\.property))
            if let key = keyed.first(where: { $0.entity == entity.name })?.key ?? key(of: entity.name, among: matched)?.attributes,
               !Set(key).isSubset(of: matched) {
                if sample.sheet != nil, matchedWorkbooks.contains(sample.path) {
                    sources += "  # \(what) is not read: its columns name attributes of \(entity.name) but not its key\n"
                } else {
                    sources += "  # \(what) is not read: its fields name attributes of \(entity.name) (\(matches.map(\.field).joined(separator: ", "))), "
                        + "but none gives its key (\(key.joined(separator: ", "))); map them by hand\n"
                }
                continue
            }
            _ = needKey(entity.name, among: matched)
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
                steps.append(("- trim: all", "values with stray whitespace, such as \(Self.scalar(example))"))
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
                              "decimal commas, such as \(Self.scalar(example))"
                                  + (unread.map { "; but \(Self.scalar($0)) does not read so: check the export" } ?? "")))
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
                guard !words.isEmpty, words.allSatisfy({ Self.booleans[$0] != nil }) else { continue }
                let table = words.sorted().map { "\(Self.scalar($0)): \(Self.booleans[$0]!)" }.joined(separator: ", ")
                maps.append(("- map: { fields: [\(Self.scalar(match.field))], values: { \(table) }, ignore_case: true }",
                             "yes and no as the export writes them"))
            }
            steps += maps.map { ($0.0, Optional($0.1)) }
            if !steps.isEmpty {
                sources += "    transform:\n"
                for (step, comment) in steps { sources += Self.commented("      " + step, comment) }
            }
            sources += "    load:\n      \(entity.name):\n"
            for match in matches {
                if match.isRelationship, let relationship = model.allRelationships(of: entity.name).first(where: { $0.name == match.property }) {
                    guard let key = needKey(relationship.destination), key.count == 1 else {
                        sources += "        # \(match.property): \(match.field) links \(relationship.destination), which has no key to find it by\n"
                        continue
                    }
                    sources += Self.commented("        \(match.property): { \(relationship.destination): { \(key[0]): \(Self.scalar(match.field)) } }",
                                              match.how == "same name" ? nil : match.how)
                } else {
                    sources += Self.commented("        \(match.property): \(Self.scalar(match.field))", match.how == "same name" ? nil : match.how)
                }
            }
            if !unmatched.isEmpty {
                sources += "    # not loaded, as no attribute of \(entity.name) matches: \(unmatched.joined(separator: ", "))\n"
            }
        }

        if !keyed.isEmpty || !unkeyed.isEmpty {
            out += "entities:\n"
            for (entity, key, comment) in keyed {
                let value = key.count == 1 ? key[0] : "[\(key.joined(separator: ", "))]"
                out += Self.commented("  \(entity): { unique: \(value) }", comment)
            }
            for entity in unkeyed { out += "  # \(entity): { unique: ... }   name the attribute its records are found by\n" }
        }
        return (out + sources, sourceCount)
    }
}
