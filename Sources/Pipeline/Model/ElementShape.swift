/// An array property's element as the app's Codable conformance encodes it (a SwiftData array is
/// stored as the JSON `JSONEncoder` writes, archived): what a loaded element must be, and how it
/// is written, so that the app's decoder reads every element back.
///
/// ```swift
/// let gear = ElementShape.enumeration(.rawValue(cases: [.init("barbell", rawValue: "barbell")]), rawType: .string, typeName: "Gear")
/// gear.encode(.text("barbell"))   // .success(.text("barbell"))
/// gear.encode(.text("rope"))      // .failure("is 'rope', none of Gear's cases (barbell)")
/// ```
public indirect enum ElementShape: Sendable, Hashable, Codable {
    /// A value of a plain type, converted to it.
    case plain(AttributeType)
    /// An enum: with raw values of `rawType` (the raw value is written; a case's name is taken
    /// too), or without (written `{"case":{}}`, as Swift's synthesized Codable does).
    case enumeration(CompositeAttribute.Kind, rawType: AttributeType?, typeName: String)
    /// A struct: an object with its stored properties; one the struct requires must be there.
    case structure([Member], typeName: String)
    /// An array inside an element (a struct's `[String]`, say).
    case array(ElementShape)
    /// A type pipectl cannot tell the encoding of: written as given.
    case asGiven

    public struct Member: Sendable, Hashable, Codable {
        public var name: String
        public var shape: ElementShape
        public var isOptional: Bool

        public init(name: String, shape: ElementShape, isOptional: Bool) {
            self.name = name
            self.shape = shape
            self.isOptional = isOptional
        }
    }

    /// The element as it is to be written, or why the app could not decode it (a reason that
    /// reads after "an element of the list").
    public func encode(_ value: Value) -> Result<Value, ConversionFailure> {
        do throws(ConversionFailure) {
            return .success(try encoded(value))
        } catch {
            return .failure(error)
        }
    }

    private func encoded(_ value: Value) throws(ConversionFailure) -> Value {
        if case .null = value { return value }
        switch self {
        case .asGiven:
            return value
        case .plain(let type):
            switch type.convert(value) {
            case .success(let converted): return converted
            case .failure(let failure): throw ConversionFailure("is '\(value.displayText)': \(failure.reason)")
            }
        case .enumeration(let kind, let rawType, let typeName):
            let given = value.displayText
            switch kind {
            case .rawValue(let cases):
                guard let match = cases.first(where: { $0.rawValue == given }) ?? cases.first(where: { $0.name == given }) else {
                    throw ConversionFailure("is '\(given)', none of \(typeName)'s cases (\(cases.map(\.rawValue).joined(separator: ", ")))")
                }
                // The raw value as its type is written in JSON: `3`, not `"3"`.
                return (try? (rawType ?? .string).convert(.text(match.rawValue)).get()) ?? .text(match.rawValue)
            case .caseName(let cases):
                guard cases.contains(given) else {
                    throw ConversionFailure("is '\(given)', none of \(typeName)'s cases (\(cases.joined(separator: ", ")))")
                }
                return .object(Fields(names: [given], values: [.object(Fields(names: [], values: []))]))
            case .structure:
                return value
            }
        case .structure(let members, let typeName):
            guard case .object(let fields) = value else {
                throw ConversionFailure("is '\(value.displayText)', not an object with \(typeName)'s properties")
            }
            var names: [String] = [], values: [Value] = []
            for member in members {
                guard let given = fields[member.name], given != .null else {
                    if member.isOptional { continue }
                    throw ConversionFailure("has no '\(member.name)', which \(typeName) requires")
                }
                do throws(ConversionFailure) {
                    names.append(member.name)
                    values.append(try member.shape.encoded(given))
                } catch {
                    throw ConversionFailure("has a '\(member.name)' that \(error.reason)")
                }
            }
            // Keys the struct does not declare are ignored by its decoder: kept as given.
            for (name, given) in zip(fields.names, fields.values) where !members.contains(where: { $0.name == name }) {
                names.append(name)
                values.append(given)
            }
            return .object(Fields(names: names, values: values))
        case .array(let element):
            guard case .list(let items) = value else { return .list([try element.encoded(value)]) }
            var out: [Value] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try element.encoded(item)) }
            return .list(out)
        }
    }
}
