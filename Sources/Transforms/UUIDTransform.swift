import Checksums
import Diagnostics
import Foundation
import Pipeline

/// `uuid`: gives each record a UUID made from its own values (RFC 4122 version 5, name-based), so
/// that the same record gets the same UUID in every regeneration and an app recognises its
/// default items across releases. Never random.
///
/// ```yaml
/// - uuid: { field: id, from: [name] }
/// ```
/// The name is the `from` values' text joined by U+001F (one value alone is its text); the
/// namespace is `namespace:`, else `UUIDTransform.defaultNamespace`. Without `from`, the values
/// are those the entity's unique key is loaded from, in the load that reads `field`. A record
/// whose `from` values are all empty gets no UUID.
public struct UUIDTransform: TransformKind {
    public var name: String { "uuid" }

    /// pipectl's namespace: the version 5 UUID of the name "pipectl.record" in RFC 4122's DNS
    /// namespace: 0B1AB72C-5A5C-5688-9E4E-C94BD60F4870.
    public static let defaultNamespace = nameBased(
        namespace: UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!, name: "pipectl.record")

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "uuid",
            summary: "A UUID made from the record's own values, the same in every regeneration: `uuid: { field: id, from: [name] }`"
                + " (version 5, name-based; never random).",
            options: [
                OptionSpec("field", .string, required: true, "The field that takes the UUID (added when it does not reach the step)."),
                OptionSpec("from", .stringOrList, default: "the fields of the key of the entity `field` is loaded into",
                           "The fields whose values the UUID is made from."),
                OptionSpec("namespace", .string, default: "pipectl's", "A UUID, so that another pipeline's UUIDs of the same values differ."),
            ])
    }

    public init() {}

    public func fieldsRead(_ node: ConfigNode) -> [String] {
        guard let from = node.mapping?.first(where: { $0.key.scalar == "from" })?.value else { return [] }
        return from.scalar.map { [$0] } ?? from.sequence?.compactMap(\.scalar) ?? []
    }

    public func fieldsMade(_ node: ConfigNode) -> [String] {
        node.mapping?.first(where: { $0.key.scalar == "field" })?.value.scalar.map { [$0] } ?? []
    }

    public func completed(_ node: ConfigNode, loads: [LoadSpec], model: StoreModel) throws -> ConfigNode {
        guard var pairs = node.mapping, !pairs.contains(where: { $0.key.scalar == "from" }),
              let field = pairs.first(where: { $0.key.scalar == "field" })?.value.scalar else { return node }
        // The load that reads the field, and the fields its entity's key is loaded from.
        func keyFields(in load: LoadSpec) -> [String]? {
            if load.assignments.contains(where: { $0.field == field }) {
                let key = model.uniqueKey(of: load.entity)
                let fields = key.compactMap { attribute in load.assignments.first { $0.attribute == attribute }?.field }
                if !key.isEmpty && fields.count == key.count { return fields }
            }
            for link in load.links { if let found = keyFields(in: link.target) { return found } }
            return nil
        }
        guard let from = loads.lazy.compactMap(keyFields).first else {
            throw node.error(.pipelineMissingKey,
                             "uuid: no entity with a unique key loads '\(field)': name the fields the UUID is made from with 'from:'",
                             stage: name)
        }
        pairs.append((ConfigNode(.scalar("from"), at: node.location),
                      ConfigNode(.sequence(from.map { ConfigNode(.scalar($0), at: node.location) }), at: node.location)))
        return ConfigNode(.mapping(pairs), at: node.location, sourceLine: node.sourceLine)
    }

    public func make(_ node: ConfigNode) throws -> any Transform {
        let options = try Options(node, spec: spec)
        guard let field = options.string("field"), !field.isEmpty else {
            throw (options.node("field") ?? node).error(.pipelineEmptyValue, "'field' names the field that takes the UUID", stage: name)
        }
        guard let fromNode = options.node("from") else {
            throw node.error(.pipelineMissingKey, "uuid: name the fields the UUID is made from with 'from:'", stage: name)
        }
        var namespace = Self.defaultNamespace
        if let text = options.string("namespace") {
            guard let parsed = UUID(uuidString: text) else {
                throw (options.node("namespace") ?? node).error(
                    .pipelineInvalidUUID, "'namespace' expects a UUID such as 3F2504E0-4F89-11D3-9A0C-0305E82C3301, found '\(text)'", stage: name)
            }
            namespace = parsed
        }
        return Step(field: field, from: try FieldReference.list(fromNode, option: "from", stage: name), namespace: namespace)
    }

    /// The RFC 4122 version 5 UUID of `name` (UTF-8) in `namespace`.
    public static func nameBased(namespace: UUID, name: String) -> UUID {
        var bytes = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        bytes += Array(name.utf8)
        var digest = Array(Checksum.sha1(bytes).prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x50  // version 5
        digest[8] = (digest[8] & 0x3F) | 0x80  // RFC 4122 variant
        return digest.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    public final class Step: Transform {
        let field: String
        let from: [FieldReference]
        let namespace: UUID
        private var target = 0
        private var sources: [Int] = []

        init(field: String, from: [FieldReference], namespace: UUID) {
            self.field = field
            self.from = from
            self.namespace = namespace
        }

        public func bind(fields: [String]) throws -> [String] {
            sources = try from.map { try $0.index(in: fields, stage: "uuid") }
            let made = FieldReference.made(field, in: fields)
            target = made.index
            return made.fields
        }

        public func apply(_ record: inout Record) throws {
            let values = sources.map { $0 < record.values.count ? record.values[$0] : .null }
            let uuid: Value = values.allSatisfy(\.isEmpty)
                ? .null
                : .text(UUIDTransform.nameBased(namespace: namespace, name: values.map(\.displayText).joined(separator: "\u{1F}")).uuidString)
            while record.values.count <= target { record.values.append(.null) }
            record.values[target] = uuid
        }
    }
}
