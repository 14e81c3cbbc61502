import Diagnostics
import ArgumentParser
import Pipeline
import PipelineRun

/// The documented exit codes (README, `pipectl --help`); sysexits.h values where one fits.
enum ExitCodes {
    static let ok: Int32 = 0
    static let usage: Int32 = 64
    static let invalidPipeline: Int32 = 65
    static let invalidInput: Int32 = 66
    static let rejected: Int32 = 67
    static let checksFailed: Int32 = 69
    static let internalError: Int32 = 70
    static let io: Int32 = 74
    static let busy: Int32 = 75

    static func code(for kind: PipelineError.Kind) -> Int32 {
        switch kind {
        case .invalidPipeline: return invalidPipeline
        case .invalidInput: return invalidInput
        case .rejected: return rejected
        case .io: return io
        case .busy: return busy
        case .checksFailed: return checksFailed
        case .storeCheckFailed: return internalError
        }
    }
}

/// Prints a pipeline error the way compilers do and exits with its code.
func fail(with error: PipelineError) -> ExitCode {
    Terminal.standardError.tell(error.description + "\n")
    return ExitCode(ExitCodes.code(for: error.kind))
}

/// Any failure of a command as the exit it documents: a pipeline error with its code, an exit
/// chosen on purpose as it is, anything else as an input/output error (74). Never
/// ArgumentParser's 1 for an unknown error, which `diff` keeps for "the stores differ".
func fail(with error: any Error) -> any Error {
    if error is ExitCode { return error }
    return fail(with: userFacing(error))
}

/// `error` as a `PipelineError`: SQLite's as the sink words it, any other as an I/O error.
func userFacing(_ error: any Error) -> PipelineError {
    PipelineRun.userFacing(error)
}
