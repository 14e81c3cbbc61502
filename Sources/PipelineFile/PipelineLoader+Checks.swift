import Diagnostics
import Pipeline

extension PipelineLoader.Context {
    /// The check kinds an entity's entry may hold.
    static let checkKinds = ["count", "not_empty", "unique", "values"]

    /// `checks:`: per entity `count`, `not_empty`, `unique`, `values`; and `placeholders: none`.
    func checks(from node: ConfigNode, model: StoreModel) throws -> [DataCheck] {
        guard let pairs = node.mapping else {
            throw node.error(.pipelineWrongType,
                             "'checks' expects a mapping of entity names to their checks (and placeholders: none), found \(node.kindDescription)")
        }
        var checks: [DataCheck] = []
        let names = model.entities.map(\.name)
        for (key, value) in pairs {
            let name = key.scalar ?? ""
            if name == "placeholders" {
                guard value.scalar == "none" else {
                    throw value.error(.pipelineValueNotAllowed, "'placeholders' takes 'none': no record may exist only because a link created it")
                }
                checks.append(DataCheck(entity: nil, kind: .noPlaceholders, location: value.location))
                continue
            }
            guard model[name] != nil else {
                throw key.error(.pipelineUnknownEntity,
                                "the model has no entity '\(name)'\(Suggestion.hint(for: name, in: names + ["placeholders"])) "
                                    + "(entities: \(names.joined(separator: ", ")))")
            }
            guard let entries = value.mapping, !entries.isEmpty else {
                throw value.error(.pipelineWrongType,
                                  "'\(name)' expects its checks (\(Self.checkKinds.joined(separator: ", "))), found \(value.kindDescription)")
            }
            for (kindKey, body) in entries {
                checks += try entityChecks(kindKey, body, entity: name, model: model)
            }
        }
        return checks
    }

    private func entityChecks(_ key: ConfigNode, _ body: ConfigNode, entity: String, model: StoreModel) throws -> [DataCheck] {
        let attributes = model.allAttributes(of: entity).map(\.name)
        let toOnes = model.allRelationships(of: entity).filter { !$0.isToMany }.map(\.name)
        func property(_ node: ConfigNode, among known: [String], what: String) throws -> String {
            guard let name = node.scalar, known.contains(name) else {
                let given = node.scalar ?? node.kindDescription
                throw node.error(.pipelineUnknownAttribute, "'\(entity)' has no \(what) '\(given)'\(Suggestion.hint(for: given, in: known))"
                                                                + " (\(what)s: \(known.joined(separator: ", ")))")
            }
            return name
        }
        func list(_ node: ConfigNode) -> [ConfigNode] { node.sequence ?? [node] }
        switch key.scalar ?? "" {
        case "count":
            guard let bounds = body.mapping, !bounds.isEmpty else {
                throw body.error(.pipelineWrongType,
                                 "'count' takes { min: N }, { max: N }, { between: [N, M] } or { equals: N }, found \(body.kindDescription)")
            }
            var low: Int?, high: Int?
            for (boundKey, boundValue) in bounds {
                func number(_ node: ConfigNode) throws -> Int {
                    guard let n = node.scalar.flatMap({ Int($0) }), n >= 0 else {
                        throw node.error(.pipelineValueOutOfRange, "a count is a whole number, 0 or more, found \(node.kindDescription)")
                    }
                    return n
                }
                switch boundKey.scalar ?? "" {
                case "min": low = try number(boundValue)
                case "max": high = try number(boundValue)
                case "equals": (low, high) = (try number(boundValue), try number(boundValue))
                case "between":
                    guard let two = boundValue.sequence, two.count == 2 else {
                        throw boundValue.error(.pipelineWrongType, "'between' takes two counts, [low, high]")
                    }
                    (low, high) = (try number(two[0]), try number(two[1]))
                default:
                    throw boundKey.error(.pipelineUnknownKey, "'count' takes min, max, between or equals, not '\(boundKey.scalar ?? "")'"
                                                                  + Suggestion.hint(for: boundKey.scalar ?? "", in: ["min", "max", "between", "equals"]))
                }
            }
            if let low, let high, low > high { throw body.error(.pipelineValueOutOfRange, "the lowest count \(low) is above the highest \(high)") }
            return [DataCheck(entity: entity, kind: .count(min: low, max: high), location: key.location)]
        case "not_empty":
            return try list(body).map { node in
                DataCheck(entity: entity, kind: .notEmpty(property: try property(node, among: attributes + toOnes,
                                                                                   what: "attribute or to-one relationship")),
                          location: node.location)
            }
        case "unique":
            // `[name, code]`: each alone; `[[shop, code]]`: the two together.
            return try list(body).map { node in
                let names = try list(node).map { try property($0, among: attributes, what: "attribute") }
                return DataCheck(entity: entity, kind: .unique(attributes: names), location: node.location)
            }
        case "values":
            guard let pairs = body.mapping, !pairs.isEmpty else {
                throw body.error(.pipelineWrongType,
                                 "'values' takes attributes and the values each may hold: { name: [g, kg] }, found \(body.kindDescription)")
            }
            return try pairs.map { attributeKey, allowedNode in
                let name = try property(attributeKey, among: attributes, what: "attribute")
                let type = model.allAttributes(of: entity).first { $0.name == name }?.type
                let allowed = try list(allowedNode).map { item -> String in
                    guard let text = item.scalar else { throw item.error(.pipelineWrongType, "'values' lists values, found \(item.kindDescription)") }
                    // Told here, at the value, rather than once the new store is built and thrown away.
                    if let type, case .failure(let failure) = type.convert(.text(text)) {
                        throw item.error(.pipelineValueDoesNotFit,
                                         "\(entity).\(name) (\(type.rawValue)) cannot hold \(Snippet.quoted(text)): \(failure.reason)")
                    }
                    return text
                }
                return DataCheck(entity: entity, kind: .values(attribute: name, allowed: allowed), location: attributeKey.location)
            }
        default:
            let given = key.scalar ?? ""
            throw key.error(.pipelineUnknownCheck,
                            "'\(given)' is no check\(Suggestion.hint(for: given, in: Self.checkKinds)) (checks: \(Self.checkKinds.joined(separator: ", ")))")
        }
    }
}
