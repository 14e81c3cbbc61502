import Pipeline

extension CSVReader {
    /// How a CSV file is read: its text encoding, delimiter, and where the field names come from.
    ///
    /// ```swift
    /// let reader = try CSVReader(input: input, options: .init(delimiter: .semicolon))
    /// ```
    public struct Options: Sendable, Hashable {
        public var encoding: Encoding
        public var delimiter: Delimiter
        /// `true` when the first row names the fields.
        public var header: Bool
        /// The field names when the file has no header row.
        public var columns: [String]?

        public init(encoding: Encoding = .auto, delimiter: Delimiter = .auto, header: Bool = true, columns: [String]? = nil) {
            self.encoding = encoding
            self.delimiter = delimiter
            self.header = header
            self.columns = columns
        }

        /// The options of a pipeline file's `read: { csv: ... }`, checked beyond their kinds:
        /// `header: false` needs `columns`, and `columns` with a header row is a contradiction.
        public init(_ options: Pipeline.Options) throws {
            self.init()
            if let node = options.node("encoding") {
                // The spec's oneOf list has already refused unknown names; this only converts.
                guard let value = node.scalar.flatMap(Encoding.init(rawValue:)) else {
                    throw node.error(.pipelineValueNotAllowed,
                                     "'encoding' must be one of \(Encoding.allCases.map(\.rawValue).joined(separator: ", "))",
                                     stage: options.stage)
                }
                encoding = value
            }
            if let node = options.node("delimiter") {
                guard let value = node.scalar.flatMap(Delimiter.init(name:)) else {
                    throw node.error(.pipelineValueNotAllowed, "'delimiter' must be auto, \",\", \";\", tab (or \"\\t\") or \"|\", not "
                                                               + (node.scalar.map { "'\($0)'" } ?? node.kindDescription), stage: options.stage)
                }
                delimiter = value
            }
            header = options.bool("header") ?? true
            if let node = options.node("columns") {
                if header {
                    throw node.error(.pipelineConflictingOptions,
                                     "'columns' names the fields of a file without a header row, but this file's first row "
                                     + "is its header (remove 'columns', or set header: false if the file has no header row)",
                                     stage: options.stage)
                }
                let items = node.sequence ?? []
                guard !items.isEmpty else {
                    throw node.error(.pipelineEmptyValue, "'columns' needs at least one field name", stage: options.stage)
                }
                var seen: Set<String> = []
                for item in items {
                    let name = item.scalar ?? ""
                    if name.isEmpty { throw item.error(.pipelineEmptyValue, "a field name in 'columns' is empty", stage: options.stage) }
                    if !seen.insert(name).inserted {
                        throw item.error(.pipelineDuplicateName, "'\(name)' appears twice in 'columns' (field names must be unique)",
                                         stage: options.stage)
                    }
                }
                columns = items.compactMap(\.scalar)
            } else if !header {
                throw (options.node("header") ?? options.node).error(.pipelineMissingKey,
                    "header: false needs 'columns' to name the fields, e.g. columns: [name, quantity, unit]",
                    stage: options.stage)
            }
        }
    }

    /// The text encoding of a CSV file, as named in `encoding:`.
    public enum Encoding: String, Sendable, Hashable, CaseIterable {
        /// A byte order mark decides; else valid UTF-8 is UTF-8; else Windows-1252 or Mac Roman by
        /// which one makes more sense of the accented letters (see `EncodingDetector`).
        case auto
        /// UTF-8, with or without a byte order mark.
        case utf8 = "utf-8"
        /// UTF-16 whose byte order mark gives the byte order (Excel's "Unicode text").
        case utf16 = "utf-16"
        case utf16LittleEndian = "utf-16le"
        case utf16BigEndian = "utf-16be"
        /// Excel on Windows before UTF-8 export ("CSV (Comma delimited)").
        case windows1252 = "windows-1252"
        /// Excel on classic Mac OS and old Mac exports ("CSV (Macintosh)").
        case macRoman = "macroman"
    }

    /// The character between fields.
    public enum Delimiter: Sendable, Hashable {
        /// Sniffed from the first lines (see `DelimiterSniffer`).
        case auto
        case comma
        case semicolon
        case tab
        case pipe

        /// The delimiter a pipeline file names: `auto`, `","`, `";"`, `"\t"` or `tab`, `"|"`.
        public init?(name: String) {
            switch name {
            case "auto": self = .auto
            case ",": self = .comma
            case ";": self = .semicolon
            case "\t", "\\t", "tab": self = .tab
            case "|": self = .pipe
            default: return nil
            }
        }

        /// Every delimiter but `.auto`.
        static let characters: [Delimiter] = [.comma, .semicolon, .tab, .pipe]

        /// The delimiter byte, or nil for `.auto`.
        var byte: UInt8? {
            switch self {
            case .auto: return nil
            case .comma: return UInt8(ascii: ",")
            case .semicolon: return UInt8(ascii: ";")
            case .tab: return UInt8(ascii: "\t")
            case .pipe: return UInt8(ascii: "|")
            }
        }
    }
}
