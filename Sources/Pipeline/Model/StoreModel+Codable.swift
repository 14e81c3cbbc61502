import Diagnostics

// A model travels between processes as JSON: the `@Model` reader (pipectl-swiftdata, which
// carries swift-syntax) answers pipectl with the model it read.

extension StoreModel: Codable {
    private enum CodingKeys: String, CodingKey { case entities, versionIdentifiers, frameworkVersion, origin, configurations }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(entities: try container.decode([Entity].self, forKey: .entities),
                  versionIdentifiers: try container.decode([String].self, forKey: .versionIdentifiers))
        frameworkVersion = try container.decodeIfPresent(Int.self, forKey: .frameworkVersion)
        origin = try container.decodeIfPresent(String.self, forKey: .origin)
        configurations = try container.decodeIfPresent([ModelConfiguration].self, forKey: .configurations) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entities, forKey: .entities)
        try container.encode(versionIdentifiers, forKey: .versionIdentifiers)
        try container.encodeIfPresent(frameworkVersion, forKey: .frameworkVersion)
        try container.encodeIfPresent(origin, forKey: .origin)
        if !configurations.isEmpty { try container.encode(configurations, forKey: .configurations) }
    }
}

/// What the `@Model` reader (`pipectl-swiftdata`) writes to its standard output: the model it read,
/// or why it could not.
public enum ModelReaderAnswer: Codable, Sendable {
    case model(StoreModel)
    case failure(PipelineError)
}
