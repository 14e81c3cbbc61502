/// A location travels between processes (the `@Model` reader's answer) as what it names: the
/// table of names it is kept in belongs to one process.
extension Location: Codable {
    private enum CodingKeys: String, CodingKey { case file, line, column, path }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(file: try container.decode(String.self, forKey: .file),
                  line: try container.decodeIfPresent(Int.self, forKey: .line),
                  column: try container.decodeIfPresent(Int.self, forKey: .column),
                  path: try container.decodeIfPresent(String.self, forKey: .path))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encodeIfPresent(line, forKey: .line)
        try container.encodeIfPresent(column, forKey: .column)
        try container.encodeIfPresent(path, forKey: .path)
    }
}

extension PipelineError.Kind: Codable {}

extension PipelineError: Codable {
    private enum CodingKeys: String, CodingKey { case kind, code, location, stage, message, sourceLine }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode(Kind.self, forKey: .kind), code: try container.decode(Code.self, forKey: .code),
                  at: try container.decodeIfPresent(Location.self, forKey: .location),
                  stage: try container.decode(String.self, forKey: .stage), try container.decode(String.self, forKey: .message),
                  sourceLine: try container.decodeIfPresent(String.self, forKey: .sourceLine))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(code, forKey: .code)
        try container.encodeIfPresent(location, forKey: .location)
        try container.encode(stage, forKey: .stage)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(sourceLine, forKey: .sourceLine)
    }
}
