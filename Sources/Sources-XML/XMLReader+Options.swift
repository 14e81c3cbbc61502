import Pipeline

extension XMLReader {
    /// Which elements are records and which of their attributes and children are fields.
    ///
    /// ```swift
    /// let reader = try XMLReader(input: input, options: .init(record: "items/item", fields: ["name", "unit"]))
    /// ```
    public struct Options: Sendable, Hashable {
        /// The record element: a name (`item`, matched at any depth) or a path from the root (`items/item`).
        public var record: String
        /// The field names, in order: attribute names, child element names or `child/grandchild` paths.
        public var fields: [String]

        public init(record: String, fields: [String]) {
            self.record = record
            self.fields = fields
        }

        /// The options of a pipeline file's `read: { xml: ... }`; `fields` are the names the loads
        /// use, taken when the pipeline gives no `fields:` of its own.
        public init(_ options: Pipeline.Options, fields: [String]) throws {
            let recordNode = options.node("record") ?? options.node
            let record = options.string("record") ?? ""
            if XMLReader.steps(of: record) == nil {
                throw recordNode.error(.xmlInvalidPath, "'record' must name an element (item) or a path of elements from the root "
                                                        + "(items/item), not '\(record)'", stage: options.stage)
            }
            self.init(record: record, fields: fields)
            if let node = options.node("fields") {
                let items = node.sequence ?? []
                guard !items.isEmpty else { throw node.error(.pipelineEmptyValue, "'fields' needs at least one field name", stage: options.stage) }
                var seen: Set<String> = []
                for item in items {
                    let name = item.scalar ?? ""
                    if XMLReader.steps(of: name) == nil {
                        throw item.error(.xmlInvalidPath, "'\(name)' is not a field name: use an attribute or element name, or a path "
                                                          + "of child elements such as 'details/price'", stage: options.stage)
                    }
                    if !seen.insert(name).inserted {
                        throw item.error(.pipelineDuplicateName, "'\(name)' appears twice in 'fields' (field names must be unique)",
                                         stage: options.stage)
                    }
                }
                self.fields = items.compactMap(\.scalar)
            }
        }
    }

    /// The local names of a `/`-separated path (a prefix such as `g:` dropped), or nil when a step is empty.
    static func steps(of path: String) -> [String]? {
        let steps = path.split(separator: "/", omittingEmptySubsequences: false).map { step -> String in
            let local = step.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).last ?? step
            return String(local)
        }
        return steps.contains(where: \.isEmpty) ? nil : steps
    }
}
