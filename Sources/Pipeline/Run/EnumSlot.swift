import Diagnostics

/// An enum property of a SwiftData model (a composite attribute) loaded from one field: by case
/// name, or by raw value where the enum has raw values. With raw values its one column holds the
/// raw value; without, each case has a column, and the chosen case's holds its name.
struct EnumSlot {
    struct Column {
        var attribute: Int
        var type: AttributeType
        /// For an enum without raw values: the case whose column this is.
        var onlyFor: String?
        /// The column's value for the case the property starts as, if the model gives one.
        var defaultValue: Value?
    }

    let field: Int
    let fieldName: String
    let property: String
    let typeName: String
    let isRequired: Bool
    /// An empty value is the case the property starts as.
    let hasDefault: Bool
    let cases: [CompositeAttribute.EnumCase]
    let columns: [Column]

    init(_ composite: CompositeAttribute, attributes: [Attribute], assignment: LoadSpec.Assignment,
         fieldIndex: [String: Int], fields: [String], source: String) throws {
        field = try LoadBinding.field(of: assignment, in: fieldIndex, fields: fields, source: source)
        fieldName = assignment.field
        property = composite.name
        typeName = composite.typeName
        isRequired = !composite.isOptional
        var columns: [Column] = []
        for (index, attribute) in attributes.enumerated() where attribute.composite?.composite == composite.name {
            let isCase = attribute.name != composite.name
            columns.append(Column(attribute: index, type: attribute.type, onlyFor: isCase ? attribute.composite?.element : nil,
                                  defaultValue: attribute.defaultValue))
        }
        self.columns = columns
        hasDefault = columns.contains { $0.defaultValue != nil }
        switch composite.kind {
        case .rawValue(let known):
            cases = known
        case .caseName(let names):
            cases = names.map { .init($0, rawValue: $0) }
        case .structure:
            cases = []
        }
    }
}
