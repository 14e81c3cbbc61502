import Diagnostics
import Testing

/// Checks a thrown `PipelineError` by what code decides on: its code and where it points
/// (`nil` for an error that points nowhere). The wording is the bad-input corpus's to check.
func expectError(_ error: PipelineError?, _ code: PipelineError.Code, at location: String?,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error != nil, "no error thrown", sourceLocation: sourceLocation)
    #expect(error?.code == code, sourceLocation: sourceLocation)
    #expect(error?.location?.description == location, sourceLocation: sourceLocation)
}
