extension ComponentRegistry {
    /// The transforms every pipeline may use, in the order the docs list them.
    public static let standardTransforms: [any TransformKind] = [
        TrimTransform(),
        NumberTransform(),
        DateTransform(),
        DefaultTransform(),
        SetTransform(),
        RenameTransform(),
    ]
}
