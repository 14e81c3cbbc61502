import Foundation
import Pipeline

/// The bytes SwiftData stores in a Transformable attribute for a Swift array of values: the
/// array as JSON, wrapped as the root `NSData` of an `NSKeyedArchiver` binary property list.
///
/// Laid out object for object as Foundation's archiver lays it out: swiftdata-cheftime holds
/// `[]` in every one of its 109 `[Data]` values as exactly `archive(json: "[]")`. Non-empty
/// arrays follow the same layout; no real store confirms one yet.
public enum KeyedArchive {
    /// A list of values as SwiftData archives a Swift array of `element` (as `JSONEncoder` writes
    /// it: no spaces, `/` escaped, dates as seconds since 2001, data as base64, UUIDs upper case);
    /// `element` `.transformable` takes objects as they are, unless `structure` says which struct
    /// the elements are: each is then an object whose fields are the struct's properties, each
    /// written as its type (a number as a number, never the text it came as), in declaration
    /// order, a nil optional left out, as the struct's synthesized `Codable` writes them.
    public static func archive(_ values: [Value], element: AttributeType, structure: ArrayStruct? = nil) -> Result<[UInt8], ConversionFailure> {
        var json: [UInt8] = []
        do throws(ConversionFailure) {
            if let structure {
                json.append(UInt8(ascii: "["))
                for (i, item) in values.enumerated() {
                    if i > 0 { json.append(UInt8(ascii: ",")) }
                    try append(item, as: structure, to: &json)
                }
                json.append(UInt8(ascii: "]"))
            } else {
                try append(.list(values), as: element, to: &json)
            }
        } catch {
            return .failure(error)
        }
        return .success(archive(json: json))
    }

    private static func append(_ value: Value, as element: AttributeType, to json: inout [UInt8]) throws(ConversionFailure) {
        switch value {
        case .list(let values):
            json.append(UInt8(ascii: "["))
            for (i, item) in values.enumerated() {
                if i > 0 { json.append(UInt8(ascii: ",")) }
                try append(item, as: element, to: &json)
            }
            json.append(UInt8(ascii: "]"))
            return
        case .object(let fields):
            json.append(UInt8(ascii: "{"))
            for (i, (name, item)) in zip(fields.names, fields.values).enumerated() {
                if i > 0 { json.append(UInt8(ascii: ",")) }
                appendString(name, to: &json)
                json.append(UInt8(ascii: ":"))
                try append(item, as: .transformable, to: &json)
            }
            json.append(UInt8(ascii: "}"))
            return
        case .null:
            json += Array("null".utf8)
            return
        default:
            break
        }
        // Elements of a struct keep the type they came with; others take the array's.
        let converted = element == .transformable ? value : try element.convert(value).get()
        switch converted {
        case .text(let text): appendString(element == .uuid ? text.uppercased() : text, to: &json)
        case .integer(let number): json += Array(String(number).utf8)
        case .double(let number), .date(let number): json += Array(number.description.utf8)
        case .decimal(let number): json += Array(number.description.utf8)
        case .bool(let flag): json += Array((flag ? "true" : "false").utf8)
        case .binary(let bytes): appendString(Data(bytes).base64EncodedString(), to: &json)
        case .null: json += Array("null".utf8)
        case .list, .object: try append(converted, as: element, to: &json)
        }
    }

    /// One element of an array of `structure`: an object with its properties' values.
    private static func append(_ value: Value, as structure: ArrayStruct, to json: inout [UInt8]) throws(ConversionFailure) {
        guard case .object(let fields) = value else {
            throw ConversionFailure("\(value.displayText.isEmpty ? "(empty)" : "'\(value.displayText)'") is no object with the properties of "
                                    + "\(structure.name) (\(structure.fields.map(\.name).joined(separator: ", ")))")
        }
        if let stray = fields.names.first(where: { name in !structure.fields.contains { $0.name == name } }) {
            throw ConversionFailure("has a field '\(stray)', which is no property of \(structure.name) (its properties: "
                                    + "\(structure.fields.map(\.name).joined(separator: ", ")))")
        }
        json.append(UInt8(ascii: "{"))
        var first = true
        for field in structure.fields {
            let item = fields[field.name] ?? .null
            if item == .null || item == .text("") && field.type != .string {
                guard field.isOptional else {
                    throw ConversionFailure("gives no value for '\(field.name)', which \(structure.name) requires (\(field.written))")
                }
                continue
            }
            guard let type = field.type else {
                throw ConversionFailure("gives '\(field.name)', a \(field.written) inside \(structure.name), which pipectl cannot archive yet")
            }
            let converted: Value
            switch type.convert(item) {
            case .success(let value): converted = value
            case .failure(let failure):
                throw ConversionFailure("gives '\(item.displayText)' for '\(field.name)' (\(field.written) in \(structure.name)): \(failure.reason)")
            }
            if !first { json.append(UInt8(ascii: ",")) }
            first = false
            appendString(field.name, to: &json)
            json.append(UInt8(ascii: ":"))
            try append(converted == .null ? .text("") : converted, as: type, to: &json)
        }
        json.append(UInt8(ascii: "}"))
    }

    private static func appendString(_ text: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): json += [UInt8(ascii: "\\"), byte]
            case 0x0A: json += Array("\\n".utf8)
            case 0x0D: json += Array("\\r".utf8)
            case 0x09: json += Array("\\t".utf8)
            case 0x08: json += Array("\\b".utf8)
            case 0x0C: json += Array("\\f".utf8)
            case ..<0x20: json += Array(String(format: "\\u%04x", byte).utf8)
            default: json.append(byte)
            }
        }
        json.append(UInt8(ascii: "\""))
    }

    public static func archive(json: [UInt8]) -> [UInt8] {
        var data: [UInt8] = []
        appendMarker(0x40, count: json.count, to: &data)
        data += json
        // Objects 0-12: the top dictionary, its four keys and values, the root UID, `$null`, the data.
        let objects: [[UInt8]] = [
            [0xD4, 1, 2, 3, 4, 5, 6, 7, 10],
            [0x58] + Array("$version".utf8),
            [0x59] + Array("$archiver".utf8),
            [0x54] + Array("$top".utf8),
            [0x58] + Array("$objects".utf8),
            [0x12, 0x00, 0x01, 0x86, 0xA0],  // 100000
            [0x5F, 0x10, 0x0F] + Array("NSKeyedArchiver".utf8),
            [0xD1, 8, 9],
            [0x54] + Array("root".utf8),
            [0x80, 0x01],  // UID 1
            [0xA2, 11, 12],
            [0x55] + Array("$null".utf8),
            data,
        ]
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let table = out.count
        let width = table <= 0xFF ? 1 : table <= 0xFFFF ? 2 : table <= 0xFFFF_FFFF ? 4 : 8
        for offset in offsets { appendBigEndian(UInt64(offset), width: width, to: &out) }
        out += [0, 0, 0, 0, 0, 0, UInt8(width), 1]
        appendBigEndian(UInt64(objects.count), width: 8, to: &out)
        appendBigEndian(0, width: 8, to: &out)
        appendBigEndian(UInt64(table), width: 8, to: &out)
        return out
    }

    private static func appendMarker(_ marker: UInt8, count: Int, to bytes: inout [UInt8]) {
        guard count >= 15 else { bytes.append(marker | UInt8(count)); return }
        bytes.append(marker | 0x0F)
        let width = count <= 0xFF ? 1 : count <= 0xFFFF ? 2 : count <= 0xFFFF_FFFF ? 4 : 8
        bytes.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(UInt64(count), width: width, to: &bytes)
    }

    private static func appendBigEndian(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
