import Pipeline

/// The transforms every pipeline may use, in the order the docs list them.
public enum StandardTransforms {
    public static let all: [any TransformKind] = [
        TrimTransform(),
        NumberTransform(),
        DateTransform(),
        DefaultTransform(),
        SetTransform(),
        RenameTransform(),
        SplitTransform(),
        MapTransform(),
        UUIDTransform(),
        TemplateTransform(),
        FileTransform(),
        FilterTransform.keep,
        FilterTransform.drop,
    ]
}
