import ArgumentParser
import Pipeline

/// The documented exit codes (README, `pipectl --help`); sysexits.h values where one fits.
enum ExitCodes {
    static let ok: Int32 = 0
    static let usage: Int32 = 64
    static let invalidPipeline: Int32 = 65
    static let invalidInput: Int32 = 66
    static let rejected: Int32 = 67
    static let io: Int32 = 74

    static func code(for kind: PipelineError.Kind) -> Int32 {
        switch kind {
        case .invalidPipeline: return invalidPipeline
        case .invalidInput: return invalidInput
        case .rejected: return rejected
        case .io: return io
        }
    }
}

/// Prints a pipeline error the way compilers do and exits with its code.
func fail(with error: PipelineError) -> ExitCode {
    Terminal.standardError.write(error.description + "\n")
    return ExitCode(ExitCodes.code(for: error.kind))
}
