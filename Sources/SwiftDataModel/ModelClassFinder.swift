import Diagnostics
import Pipeline
import SwiftSyntax

/// One `@Model` class as written: its stored properties and what their attributes say.
struct ModelClass {
    var name: String
    var location: Location
    /// The class it inherits from, if any (an entity's parent when that is a `@Model` class too).
    var superclass: String?
    /// The types it is declared in or in an extension of, outermost first: a `VersionedSchema`
    /// among them is the schema it belongs to (`enum SchemaV2: VersionedSchema { @Model ... }`,
    /// `extension SchemaV2 { @Model ... }`).
    var containers: [String] = []
    var properties: [Property] = []
    /// `#Unique<T>([\.a, \.b])` constraints.
    var uniqueConstraints: [[String]] = []
    /// `#Index<T>([\.a], [\.a, \.b])` indexes.
    var indexes: [[String]] = []

    struct Property {
        var name: String
        var type: PropertyType
        var location: Location
        var defaultValue: Value?
        var isUnique = false
        var externalStorage = false
        var preserveOnDeletion = false
        var hashModifier: String?
        /// `@Relationship(inverse: \T.p)`: `p`.
        var inverse: String?
        var deleteRule = Relationship.DeleteRule.nullify
        var minCount: Int?
        var maxCount: Int?
        /// `@Attribute(.ephemeral)`: kept in memory only.
        var isEphemeral = false
        /// Written with an initial value (`= Tags()`), literal or not.
        var hasInitialValue = false
        /// `= []`.
        var isEmptyArray = false
        /// `= .paperback`: the case an enum property starts as.
        var initialCase: String?
    }
}

/// A struct or enum declared in the source: what a property of its type stores.
enum ValueType {
    case structure(properties: [ModelClass.Property])
    /// `rawType` is the raw value type (`String`, `Int`), nil for an enum without raw values.
    case enumeration(rawType: String?, cases: [EnumCase], location: Location)

    struct EnumCase {
        var name: String
        /// As written (`"Coupe"`, `3`), or implied (the case's name, the next integer).
        var rawValue: String?
        /// `case syrups(Syrup)`.
        var hasPayload: Bool
    }
}

/// A `VersionedSchema`: its version and the model classes it lists, gathered from its
/// declaration and its extensions.
struct VersionedSchemaDeclaration {
    var name: String
    /// Nil when no `versionIdentifier` was read (SwiftData requires one).
    var version: [Int]?
    var models: [String]
    var location: Location
}

/// A list of model types the app hands SwiftData: `SchemaMigrationPlan.schemas` (of schemas),
/// `Schema([...])`, `ModelContainer(for: ...)`, `.modelContainer(for: ...)`.
struct ModelTypeList {
    enum Kind { case migrationPlan, schema, container }
    var kind: Kind
    /// The type names, in order (`Recipe` for `Recipe.self`).
    var names: [String]
    var location: Location
    /// `Schema(versionedSchema: SchemaV2.self)`: the schema it names.
    var versionedSchema: String?
    /// For each name, the type it is written in (`SchemaV2` for `SchemaV2.Recipe.self`), if any.
    var qualifiers: [String?] = []
}

/// `typealias Habit = SchemaV1.Habit`: how an app names the classes of its current
/// `VersionedSchema` in its `Schema([...])` and `ModelContainer(for:)` lists.
struct TypeAlias {
    var name: String
    /// The type the target is written in (`SchemaV1`), nil for an unqualified target.
    var qualifier: String?
    var target: String
    var location: Location
}

/// A property's type as written (or as its initial value gives it): optional, array, base name.
struct PropertyType {
    var written: String
    var base: String
    var isOptional: Bool
    var isArray: Bool

    /// The `@Model` class the property refers to, if `base` is one.
    func modelName(in models: Set<String>) -> String? { models.contains(base) ? base : nil }

    var attributeType: AttributeType? {
        switch base {
        case "Int", "Int64", "UInt", "UInt64": .integer64
        case "Int32", "UInt32": .integer32
        case "Int16", "UInt16", "Int8", "UInt8": .integer16
        case "Double", "CGFloat": .double
        case "Float": .float
        case "Bool": .bool
        case "String", "Character": .string
        case "Date": .date
        case "Data": .binary
        case "UUID": .uuid
        case "URL": .uri
        case "Decimal": .decimal
        default: nil
        }
    }

    /// `String?`, `Optional<String>`, `[Tag]`, `[Tag]?`, `Array<Tag>`, `Foundation.Date`.
    init(_ type: TypeSyntax) {
        written = type.trimmedDescription
        var type = type
        isOptional = false
        isArray = false
        if let optional = type.as(OptionalTypeSyntax.self) {
            isOptional = true
            type = optional.wrappedType
        } else if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            isOptional = true
            type = unwrapped.wrappedType
        } else if let named = type.as(IdentifierTypeSyntax.self), named.name.text == "Optional",
                  let argument = named.genericArgumentClause?.arguments.first?.argument.as(TypeSyntax.self) {
            isOptional = true
            type = argument
        }
        if let array = type.as(ArrayTypeSyntax.self) {
            isArray = true
            type = array.element
        } else if let named = type.as(IdentifierTypeSyntax.self), named.name.text == "Array",
                  let argument = named.genericArgumentClause?.arguments.first?.argument.as(TypeSyntax.self) {
            isArray = true
            type = argument
        }
        if let member = type.as(MemberTypeSyntax.self) {
            base = member.name.text
        } else if let named = type.as(IdentifierTypeSyntax.self) {
            base = named.name.text
        } else {
            base = type.trimmedDescription
        }
    }

    init(written: String, base: String, isOptional: Bool = false, isArray: Bool = false) {
        self.written = written
        self.base = base
        self.isOptional = isOptional
        self.isArray = isArray
    }

    /// The type an initial value gives a property written without one: `"1"`, `1`, `1.5`,
    /// `false`, `UUID()`, `Date()`, `Date.now`, `[Tag]()`; nil where it cannot be told.
    init?(initialValue value: ExprSyntax) {
        switch value.kind {
        case .stringLiteralExpr: self.init(written: "String", base: "String")
        case .integerLiteralExpr: self.init(written: "Int", base: "Int")
        case .floatLiteralExpr: self.init(written: "Double", base: "Double")
        case .booleanLiteralExpr: self.init(written: "Bool", base: "Bool")
        case .prefixOperatorExpr:
            guard let prefix = value.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-",
                  let number = PropertyType(initialValue: prefix.expression), ["Int", "Double"].contains(number.base) else { return nil }
            self = number
        default:
            if let call = value.as(FunctionCallExprSyntax.self) {
                // `UUID()`, `Date()`: a type's initializer, told from a function (`makeID()`) by its capital.
                if let name = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text,
                   name.first?.isUppercase == true {
                    self.init(written: name, base: name)
                    return
                }
                // `[Tag]()`
                if let array = call.calledExpression.as(ArrayExprSyntax.self), array.elements.count == 1,
                   let element = array.elements.first?.expression.as(DeclReferenceExprSyntax.self)?.baseName.text {
                    self.init(written: "[\(element)]", base: element, isArray: true)
                    return
                }
            }
            // `Date.now`, `.now` is not enough to tell.
            if let member = value.as(MemberAccessExprSyntax.self), let base = member.base?.as(DeclReferenceExprSyntax.self)?.baseName.text,
               ["Date", "UUID", "URL"].contains(base) {
                self.init(written: base, base: base)
                return
            }
            return nil
        }
    }
}

/// Finds the `@Model` classes of one file and reads their stored properties.
final class ModelClassFinder: SyntaxVisitor {
    let converter: SourceLocationConverter
    let file: String
    private(set) var classes: [ModelClass] = []
    private(set) var valueTypes: [(name: String, type: ValueType)] = []
    /// Every declaration and extension of a type conforming to `VersionedSchema` (one per
    /// declaration: `SwiftDataModelReader` merges those of one name).
    private(set) var schemas: [VersionedSchemaDeclaration] = []
    /// Every extension or declaration that states `versionIdentifier` or `models` for a type
    /// that may be a schema declared elsewhere.
    private(set) var schemaParts: [VersionedSchemaDeclaration] = []
    private(set) var typeLists: [ModelTypeList] = []
    private(set) var typeAliases: [TypeAlias] = []
    /// The enums and extensions enclosing the declaration being read, innermost last.
    private var containerStack: [String] = []

    init(converter: SourceLocationConverter, file: String) {
        self.converter = converter
        self.file = file
        super.init(viewMode: .sourceAccurate)
    }

    func location(_ node: some SyntaxProtocol) -> Location {
        let place = converter.location(for: node.positionAfterSkippingLeadingTrivia)
        return Location(file: file, line: place.line, column: place.column)
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        // Nested classes are read too: SwiftData names their entities by the class name alone.
        guard node.attributes.contains(where: { Self.attributeName($0) == "Model" }) else { return .visitChildren }
        var model = ModelClass(name: node.name.text, location: location(node.name),
                               superclass: node.inheritanceClause?.inheritedTypes.first.map { PropertyType($0.type).base },
                               containers: containerStack)
        for member in node.memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                model.properties += properties(of: variable)
            } else if let macro = member.decl.as(MacroExpansionDeclSyntax.self) {
                switch macro.macroName.text {
                case "Unique": model.uniqueConstraints += Self.keyPathLists(macro.arguments)
                case "Index": model.indexes += Self.keyPathLists(macro.arguments)
                default: break
                }
            }
        }
        classes.append(model)
        return .visitChildren
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        var stored: [ModelClass.Property] = []
        for member in node.memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) { stored += properties(of: variable) }
        }
        valueTypes.append((node.name.text, .structure(properties: stored)))
        return .visitChildren
    }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        let inherited = node.inheritanceClause?.inheritedTypes.map { PropertyType($0.type).base } ?? []
        containerStack.append(node.name.text)
        readSchemaFacts(name: node.name.text, members: node.memberBlock, inherited: inherited, at: node.name)
        if inherited.contains("VersionedSchema") || inherited.contains("SchemaMigrationPlan") { return .visitChildren }
        let rawTypes = ["String", "Character", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16",
                        "UInt32", "UInt64", "Double", "Float"]
        let rawType = inherited.first { rawTypes.contains($0) }
        var cases: [ValueType.EnumCase] = []
        var next = 0
        for member in node.memberBlock.members {
            guard let declaration = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in declaration.elements {
                var raw: String?
                if let written = element.rawValue?.value {
                    raw = Self.literal(written)?.displayText
                    if let number = raw.flatMap({ Int($0) }) { next = number + 1 }
                } else if let rawType {
                    if rawType == "String" || rawType == "Character" {
                        raw = element.name.text
                    } else {
                        raw = String(next)
                        next += 1
                    }
                }
                cases.append(.init(name: element.name.text, rawValue: raw, hasPayload: element.parameterClause != nil))
            }
        }
        valueTypes.append((node.name.text, .enumeration(rawType: rawType, cases: cases, location: location(node.name))))
        return .visitChildren
    }

    override func visitPost(_ node: EnumDeclSyntax) {
        _ = containerStack.popLast()
    }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = PropertyType(node.extendedType).base
        containerStack.append(name)
        let inherited = node.inheritanceClause?.inheritedTypes.map { PropertyType($0.type).base } ?? []
        readSchemaFacts(name: name, members: node.memberBlock, inherited: inherited, at: node.extendedType)
        return .visitChildren
    }

    override func visitPost(_ node: ExtensionDeclSyntax) {
        _ = containerStack.popLast()
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        // `Schema([A.self, B.self])`, `Schema(versionedSchema: V2.self)`, `ModelContainer(for: A.self, B.self)`,
        // `.modelContainer(for: [A.self])`.
        let callee: String? = if let reference = node.calledExpression.as(DeclReferenceExprSyntax.self) {
            reference.baseName.text
        } else if let member = node.calledExpression.as(MemberAccessExprSyntax.self) {
            member.declName.baseName.text
        } else {
            nil
        }
        let kind: ModelTypeList.Kind? = switch callee {
        case "Schema": .schema
        case "ModelContainer", "modelContainer": .container
        default: nil
        }
        guard let kind else { return .visitChildren }
        var names: [(qualifier: String?, name: String)] = []
        var versioned: String?
        for argument in node.arguments {
            let label = argument.label?.text
            if kind == .schema, label == "versionedSchema" {
                versioned = Self.typeNames(in: argument.expression).first
            } else if label == nil || label == "for" {
                names += Self.qualifiedTypeNames(in: argument.expression)
            }
        }
        if !names.isEmpty || versioned != nil {
            // At the callee's name: `.modelContainer(` may end a long chain of modifiers.
            let place = node.calledExpression.as(MemberAccessExprSyntax.self).map { location($0.declName) } ?? location(node)
            typeLists.append(ModelTypeList(kind: kind, names: names.map(\.name), location: place, versionedSchema: versioned,
                                           qualifiers: names.map(\.qualifier)))
        }
        return .visitChildren
    }

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        let target = node.initializer.value
        if let member = target.as(MemberTypeSyntax.self) {
            typeAliases.append(TypeAlias(name: node.name.text, qualifier: PropertyType(member.baseType).base,
                                         target: member.name.text, location: location(node.name)))
        } else if let named = target.as(IdentifierTypeSyntax.self) {
            typeAliases.append(TypeAlias(name: node.name.text, qualifier: nil, target: named.name.text, location: location(node.name)))
        }
        return .skipChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        // `let schemaTypes: [any PersistentModel.Type] = [Store.self, Aisle.self]`, handed to
        // `Schema(schemaTypes)`: a list of the app's models held in a variable. (A schema's
        // `static var models` is read with the schema.)
        guard !node.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) else { return .visitChildren }
        for binding in node.bindings {
            guard let annotation = binding.typeAnnotation?.type.trimmedDescription,
                  annotation.replacingOccurrences(of: " ", with: "").contains("PersistentModel.Type]"),
                  let value = binding.initializer?.value else { continue }
            let names = Self.qualifiedTypeNames(in: value)
            if !names.isEmpty {
                typeLists.append(ModelTypeList(kind: .schema, names: names.map(\.name), location: location(binding.pattern),
                                               qualifiers: names.map(\.qualifier)))
            }
        }
        return .visitChildren
    }

    /// `static var versionIdentifier = Schema.Version(2, 0, 0)` (or `: Schema.Version { .init(2, 0, 0) }`),
    /// `static var models: [any PersistentModel.Type] { [Recipe.self, Tag.self] }`, and a migration
    /// plan's `static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }`.
    private func readSchemaFacts(name: String, members: MemberBlockSyntax, inherited: [String], at node: some SyntaxProtocol) {
        var declaration = VersionedSchemaDeclaration(name: name, version: nil, models: [], location: location(node))
        var stated = false
        for member in members.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                  variable.modifiers.contains(where: { $0.name.text == "static" }) else { continue }
            for binding in variable.bindings {
                switch binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
                case "versionIdentifier":
                    let finder = VersionFinder(viewMode: .sourceAccurate)
                    finder.walk(binding)
                    if let version = finder.version { declaration.version = version; stated = true }
                case "models":
                    declaration.models = Self.typeNames(in: binding)
                    stated = true
                case "schemas" where inherited.contains("SchemaMigrationPlan"):
                    typeLists.append(ModelTypeList(kind: .migrationPlan, names: Self.typeNames(in: binding), location: location(binding)))
                default:
                    break
                }
            }
        }
        if inherited.contains("VersionedSchema") {
            schemas.append(declaration)
        } else if stated {
            schemaParts.append(declaration)
        }
    }

    /// The `T.self` of the first array in `node`, or of `node` itself (`A.self, B.self` arguments).
    static func typeNames(in node: some SyntaxProtocol) -> [String] {
        qualifiedTypeNames(in: node).map(\.name)
    }

    /// As `typeNames`, each with the type it is written in (`SchemaV2` for `SchemaV2.Recipe.self`).
    static func qualifiedTypeNames(in node: some SyntaxProtocol) -> [(qualifier: String?, name: String)] {
        let found = ArrayFinder(viewMode: .sourceAccurate)
        found.walk(node)
        if !found.typeNames.isEmpty { return found.typeNames }
        if let expression = Syntax(node).as(ExprSyntax.self), let name = ArrayFinder.typeName(expression) { return [name] }
        return []
    }

    /// The stored properties a `var` or `let` declares: not static, not computed, not `@Transient`.
    private func properties(of variable: VariableDeclSyntax) -> [ModelClass.Property] {
        if variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { return [] }
        let attributes = variable.attributes.compactMap { $0.as(AttributeSyntax.self) }
        if attributes.contains(where: { Self.attributeName(.attribute($0)) == "Transient" }) { return [] }
        var out: [ModelClass.Property] = []
        for binding in variable.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
            // Computed: a getter block (`var x: Int { ... }` or `{ get ... }`); observers keep it stored.
            if let accessors = binding.accessorBlock {
                if case .getter = accessors.accessors { continue }
                if case .accessors(let list) = accessors.accessors,
                   list.contains(where: { ["get", "_read", "unsafeAddress"].contains($0.accessorSpecifier.text) }) { continue }
            }
            let initial = binding.initializer?.value
            let type: PropertyType? = binding.typeAnnotation.map { PropertyType($0.type) }
                ?? initial.flatMap { PropertyType(initialValue: $0) }
            var property = ModelClass.Property(
                name: name, type: type ?? PropertyType(written: "(no type written)", base: ""),
                location: location(binding.pattern), defaultValue: initial.flatMap(Self.literal))
            property.hasInitialValue = initial != nil
            if let array = initial?.as(ArrayExprSyntax.self), array.elements.isEmpty { property.isEmptyArray = true }
            if let member = initial?.as(MemberAccessExprSyntax.self) { property.initialCase = member.declName.baseName.text }
            for attribute in attributes { read(attribute, into: &property) }
            out.append(property)
        }
        return out
    }

    /// `@Attribute(.unique, .externalStorage, .preserveValueOnDeletion, hashModifier: "2")` and
    /// `@Relationship(deleteRule: .cascade, inverse: \Tag.recipes, minimumModelCount: 1, maximumModelCount: 3)`.
    private func read(_ attribute: AttributeSyntax, into property: inout ModelClass.Property) {
        guard let arguments = attribute.arguments?.as(LabeledExprListSyntax.self) else { return }
        switch Self.attributeName(.attribute(attribute)) {
        case "Attribute":
            for argument in arguments {
                if let label = argument.label?.text {
                    if label == "hashModifier" { property.hashModifier = Self.literal(argument.expression)?.displayText }
                    continue
                }
                switch argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text {
                case "unique": property.isUnique = true
                case "externalStorage": property.externalStorage = true
                case "preserveValueOnDeletion": property.preserveOnDeletion = true
                case "ephemeral": property.isEphemeral = true
                default: break
                }
            }
        case "Relationship":
            for argument in arguments {
                switch argument.label?.text {
                case "inverse":
                    property.inverse = argument.expression.as(KeyPathExprSyntax.self)?.components.last?
                        .component.as(KeyPathPropertyComponentSyntax.self)?.declName.baseName.text
                case "deleteRule":
                    let rule = argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text ?? ""
                    property.deleteRule = Relationship.DeleteRule(rawValue: rule) ?? .nullify
                case "minimumModelCount":
                    property.minCount = Self.literal(argument.expression).flatMap { Int($0.displayText) }
                case "maximumModelCount":
                    property.maxCount = Self.literal(argument.expression).flatMap { Int($0.displayText) }
                default:
                    break
                }
            }
        default:
            break
        }
    }

    static func attributeName(_ element: AttributeListSyntax.Element) -> String? {
        guard case .attribute(let attribute) = element else { return nil }
        return attribute.attributeName.as(IdentifierTypeSyntax.self)?.name.text
    }

    /// `#Unique<Recipe>([\.name], [\.a, \.b])`: one constraint per array.
    static func keyPathLists(_ arguments: LabeledExprListSyntax) -> [[String]] {
        arguments.compactMap { argument -> [String]? in
            guard let array = argument.expression.as(ArrayExprSyntax.self) else { return nil }
            let names = array.elements.compactMap { element in
                element.expression.as(KeyPathExprSyntax.self)?.components.last?
                    .component.as(KeyPathPropertyComponentSyntax.self)?.declName.baseName.text
            }
            return names.isEmpty ? nil : names
        }
    }

    /// The value of an initial value the source states, as Swift evaluates it: literals (strings
    /// with their escapes, integers in any radix, floats, booleans, a minus before a number) and the
    /// constant forms of Date, UUID, URL and Data. Nil for anything computed when the app makes the
    /// object (`Date()`, `UUID()`, `.now`, a function call): it is no default the store can hold.
    /// A float is kept as its digits, so that a Decimal attribute takes it exactly.
    static func literal(_ expression: ExprSyntax) -> Value? {
        if let string = expression.as(StringLiteralExprSyntax.self) {
            return string.representedLiteralValue.map(Value.text)
        }
        if let integer = expression.as(IntegerLiteralExprSyntax.self) {
            return integer.representedLiteralValue.map { .integer(Int64($0)) }
        }
        if let float = expression.as(FloatLiteralExprSyntax.self) {
            let digits = float.literal.text.replacingOccurrences(of: "_", with: "")
            if !digits.lowercased().hasPrefix("0x") { return .text(digits) }
            return float.representedLiteralValue.map(Value.double)
        }
        if let boolean = expression.as(BooleanLiteralExprSyntax.self) {
            return .bool(boolean.literal.tokenKind == .keyword(.true))
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            switch literal(prefix.expression) {
            case .integer(let value)?: return .integer(-value)
            case .double(let value)?: return .double(-value)
            case .text(let digits)? where prefix.expression.is(FloatLiteralExprSyntax.self): return .text("-" + digits)
            default: return nil
            }
        }
        return constant(expression)
    }

    /// `Date(timeIntervalSinceReferenceDate: 0)`, `Date(timeIntervalSince1970: 0)`, `.distantPast`,
    /// `UUID(uuidString: "...")!`, `URL(string: "...")!`, `Data()`.
    private static func constant(_ expression: ExprSyntax) -> Value? {
        var expression = expression
        if let forced = expression.as(ForceUnwrapExprSyntax.self) { expression = forced.expression }
        if let member = expression.as(MemberAccessExprSyntax.self) {
            let base = member.base?.as(DeclReferenceExprSyntax.self)?.baseName.text
            guard base == nil || base == "Date" else { return nil }
            switch member.declName.baseName.text {
            // Foundation's values, as seconds since 2001.
            case "distantPast": return .date(-63_114_076_800)
            case "distantFuture": return .date(63_113_904_000)
            default: return nil
            }
        }
        guard let call = expression.as(FunctionCallExprSyntax.self),
              let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text else { return nil }
        let arguments = Array(call.arguments)
        if arguments.isEmpty { return type == "Data" ? .binary([]) : nil }
        guard arguments.count == 1, let label = arguments[0].label?.text, let value = literal(arguments[0].expression) else { return nil }
        let seconds: Double? = switch value {
        case .integer(let number): Double(number)
        case .double(let number): number
        case .text(let digits): Double(digits)
        default: nil
        }
        switch (type, label) {
        case ("Date", "timeIntervalSinceReferenceDate"): return seconds.map(Value.date)
        case ("Date", "timeIntervalSince1970"): return seconds.map { .date($0 - 978_307_200) }
        case ("UUID", "uuidString"), ("URL", "string"):
            guard case .text = value else { return nil }
            return value
        default: return nil
        }
    }
}

/// The type names of the first array of `T.self` in a declaration (`[Recipe.self, Tag.self]`).
private final class ArrayFinder: SyntaxVisitor {
    var typeNames: [(qualifier: String?, name: String)] = []

    override func visit(_ node: ArrayExprSyntax) -> SyntaxVisitorContinueKind {
        guard typeNames.isEmpty else { return .skipChildren }
        typeNames = node.elements.compactMap { Self.typeName($0.expression) }
        return .skipChildren
    }

    /// `Recipe` for `Recipe.self`; `Recipe` in `SchemaV2` for `SchemaV2.Recipe.self`.
    static func typeName(_ expression: ExprSyntax) -> (qualifier: String?, name: String)? {
        guard let access = expression.as(MemberAccessExprSyntax.self), access.declName.baseName.text == "self",
              let base = access.base else { return nil }
        if let member = base.as(MemberAccessExprSyntax.self) {
            let qualifier = member.base?.as(DeclReferenceExprSyntax.self)?.baseName.text
                ?? member.base?.as(MemberAccessExprSyntax.self)?.declName.baseName.text
            return (qualifier, member.declName.baseName.text)
        }
        return base.as(DeclReferenceExprSyntax.self).map { (nil, $0.baseName.text) }
    }
}

/// The first `Schema.Version(1, 2, 3)`, `Version(1, 2, 3)` or `.init(1, 2, 3)` in a declaration,
/// written as a stored value or returned by a getter.
private final class VersionFinder: SyntaxVisitor {
    var version: [Int]?

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard version == nil else { return .skipChildren }
        let callee = node.calledExpression.trimmedDescription
        guard callee.hasSuffix("Version") || callee.hasSuffix("init") else { return .visitChildren }
        let numbers = node.arguments.compactMap { $0.expression.as(IntegerLiteralExprSyntax.self)?.representedLiteralValue }
        if numbers.count == 3, node.arguments.count == 3 { version = numbers }
        return .skipChildren
    }
}
