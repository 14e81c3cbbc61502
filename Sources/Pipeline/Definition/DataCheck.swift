import Diagnostics

/// A check on the data of the new store (`checks:` in the pipeline), run before it replaces the
/// old one: a failing check fails the run and the old store stays.
///
/// ```yaml
/// checks:
///   Item: { count: { min: 300 }, not_empty: [name, unit], unique: [name] }
///   Unit: { count: { between: [5, 20] }, values: { name: [g, kg, l, ml, pcs] } }
///   placeholders: none
/// ```
public struct DataCheck: Sendable {
    public enum Kind: Sendable {
        /// The entity's records (its sub-entities' included) number at least `min`, at most `max`.
        case count(min: Int?, max: Int?)
        /// No record leaves the attribute or to-one relationship empty.
        case notEmpty(property: String)
        /// No two records share the values of the attributes.
        case unique(attributes: [String])
        /// Every value of the attribute is one of these (text as written, converted by its type).
        case values(attribute: String, allowed: [String])
        /// No record exists only because a link created it (`placeholders: none`).
        case noPlaceholders
    }

    /// Nil for `placeholders`, which is about every entity.
    public var entity: String?
    public var kind: Kind
    public var location: Location?

    public init(entity: String?, kind: Kind, location: Location?) {
        self.entity = entity
        self.kind = kind
        self.location = location
    }

    /// As the summary and the reports name it: `Item count >= 300`, `Item name not empty`.
    public var name: String {
        let entity = self.entity.map { $0 + " " } ?? ""
        switch kind {
        case .count(let min?, let max?) where min == max: return "\(entity)count = \(min)"
        case .count(let min?, let max?): return "\(entity)count between \(min) and \(max)"
        case .count(let min?, nil): return "\(entity)count >= \(min)"
        case .count(nil, let max?): return "\(entity)count <= \(max)"
        case .count: return "\(entity)count"
        case .notEmpty(let property): return "\(entity)\(property) not empty"
        case .unique(let attributes): return "\(entity)\(attributes.joined(separator: " + ")) unique"
        case .values(let attribute, let allowed): return "\(entity)\(attribute) in [\(allowed.joined(separator: ", "))]"
        case .noPlaceholders: return "no placeholders"
        }
    }
}

/// What a check found.
public struct CheckResult: Sendable, Equatable {
    public var name: String
    public var passed: Bool
    /// What was found: `412 records`, `3 records have no unit`.
    public var detail: String
    /// The first offending records, by key (`name=Milk`), at most ten.
    public var offending: [String]
    public var location: Location?

    public init(name: String, passed: Bool, detail: String, offending: [String] = [], location: Location? = nil) {
        self.name = name
        self.passed = passed
        self.detail = detail
        self.offending = offending
        self.location = location
    }
}
