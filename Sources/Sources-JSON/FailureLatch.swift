import Diagnostics
import Pipeline

/// Remembers the fatal error a parser stopped on, so that every later `next()` fails the same way
/// instead of parsing on from the middle of a value.
struct FailureLatch {
    private var failure: PipelineError?

    mutating func run(_ read: () throws -> Record?) throws -> Record? {
        if let failure { throw failure }
        do {
            return try read()
        } catch let error as PipelineError {
            failure = error
            throw error
        }
    }
}
