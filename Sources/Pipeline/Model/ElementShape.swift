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
        /// The Swift type as written (`String?`), for messages.
        public var written: String

        public init(name: String, shape: ElementShape, isOptional: Bool, written: String) {
            self.name = name
            self.shape = shape
            self.isOptional = isOptional
            self.written = written
        }
    }

    /// Why an element cannot be written: about `value` where it is set ("is 'rope', none of ..."),
    /// else already phrased ("has a field 'name', ...").
    private struct Failure: Error {
        var value: Value?
        var reason: String

        var phrased: String { value.map { "is '\($0.displayText)', \(reason)" } ?? reason }
    }

    /// The element as it is to be written, or why the app could not decode it (a reason that
    /// reads after "an element of the list").
    public func encode(_ value: Value) -> Result<Value, ConversionFailure> {
        do throws(Failure) {
            return .success(try encoded(value))
        } catch {
            return .failure(ConversionFailure(error.phrased))
        }
    }

    private func encoded(_ value: Value) throws(Failure) -> Value {
        if case .null = value { return value }
        switch self {
        case .asGiven:
            return value
        case .plain(let type):
            switch type.convert(value) {
            case .success(let converted): return converted
            case .failure(let failure): throw Failure(value: value, reason: failure.reason)
            }
        case .enumeration(let kind, let rawType, let typeName):
            let given = value.displayText
            switch kind {
            case .rawValue(let cases):
                guard let match = cases.first(where: { $0.rawValue == given }) ?? cases.first(where: { $0.name == given }) else {
                    throw Failure(value: value, reason: "none of \(typeName)'s cases (\(cases.map(\.rawValue).joined(separator: ", ")))")
                }
                // The raw value as its type is written in JSON: `3`, not `"3"`.
                return (try? (rawType ?? .string).convert(.text(match.rawValue)).get()) ?? .text(match.rawValue)
            case .caseName(let cases):
                guard cases.contains(given) else {
                    throw Failure(value: value, reason: "none of \(typeName)'s cases (\(cases.joined(separator: ", ")))")
                }
                return .object(Fields(names: [given], values: [.object(Fields(names: [], values: []))]))
            case .structure:
                return value
            }
        case .structure(let members, let typeName):
            let properties = members.map(\.name).joined(separator: ", ")
            guard case .object(let fields) = value else {
                throw Failure(value: value, reason: "no object with the properties of \(typeName) (\(properties))")
            }
            // The decoder would ignore a key the struct lacks, and lose its value: an input's own
            // key names (`type` for `workType`) are refused, not dropped.
            if let stray = fields.names.first(where: { name in !members.contains { $0.name == name } }) {
                throw Failure(reason: "has a field '\(stray)', which is no property of \(typeName) (its properties: \(properties))")
            }
            // In declaration order, each as its type, a nil optional left out: as JSONEncoder writes the struct.
            var names: [String] = [], values: [Value] = []
            for member in members {
                let given = fields[member.name] ?? .null
                let isString = if case .plain(.string) = member.shape { true } else { false }
                if given == .null || (given == .text("") && !isString) {
                    guard member.isOptional else {
                        throw Failure(reason: "gives no value for '\(member.name)', which \(typeName) requires (\(member.written))")
                    }
                    continue
                }
                do throws(Failure) {
                    values.append(try member.shape.encoded(given))
                    names.append(member.name)
                } catch {
                    throw Failure(reason: error.value.map { "gives '\($0.displayText)' for '\(member.name)' (\(member.written) in \(typeName)): \(error.reason)" }
                                      ?? "gives for '\(member.name)' (\(member.written) in \(typeName)) an element that \(error.reason)")
                }
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
