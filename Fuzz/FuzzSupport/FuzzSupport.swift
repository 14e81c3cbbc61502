import Foundation
import Diagnostics
import Pipeline

/// What every fuzz target shares: the input written to a scratch file (the readers read files, as
/// pipectl does), every record drained, and a replay mode for builds without libFuzzer.
public enum Fuzz {
    /// Writes `bytes` to a scratch file (named with `suffix`, which some readers look at) and
    /// hands it to `body` as an input; any error `body` throws is the reader doing its job. The
    /// file is removed as soon as `body` returns: kept for the process, one was left behind in the
    /// temporary folder by every fuzzing process (libFuzzer ends a process with `_Exit` on a
    /// timeout or a crash, past any cleanup), and the files of dead processes are swept once.
    public static func withInput(_ data: UnsafePointer<UInt8>?, _ size: Int, suffix: String,
                                 _ body: (Input) throws -> Void) -> Int32 {
        sweepOnce()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)\(getpid()).\(suffix)")
        let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
        defer { unlink(url.path) }
        guard (try? bytes.write(to: url)) != nil else { return 0 }
        _ = try? body(Input(url: url, displayPath: "fuzz.\(suffix)"))
        return 0
    }

    private static let prefix = "pipectl-fuzz-"
    nonisolated(unsafe) private static var swept = false

    /// Removes the scratch files of fuzzing processes no longer alive (a crash or a timeout ends
    /// one before its `defer` runs).
    private static func sweepOnce() {
        guard !swept else { return }
        swept = true
        let folder = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix(prefix) {
            let digits = name.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let pid = pid_t(digits), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(folder.appendingPathComponent(name).path)
        }
    }

    /// Reads every record, as the runner does; rejections are skipped over like the runner does.
    public static func drain(_ reader: any RecordReader) throws {
        while true {
            do {
                guard try reader.next() != nil else { return }
            } catch is Rejection {
                continue
            }
        }
    }

    /// A fuzz target's `main`: with `-DFUZZING` (scripts/fuzz, linked with libFuzzer) it hands
    /// the command line to libFuzzer's driver; SwiftPM renames every executable's entry point, so
    /// libFuzzer's own `main` cannot be the one that runs. Otherwise it replays files.
    public static func main(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, target))
        #else
        replay(target)
        exit(0)
        #endif
    }

    /// Without libFuzzer: feeds each file named on the command line to `target`, so that a kept
    /// crash file can be replayed under a debugger or a sanitizer.
    static func replay(_ target: (UnsafePointer<UInt8>?, Int) -> Int32) {
        let files = CommandLine.arguments.dropFirst()
        if files.isEmpty {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) FILE...: runs each file through the target once\n".utf8))
        }
        for path in files {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("\(path): cannot read the file\n".utf8))
                continue
            }
            _ = data.withUnsafeBytes { target($0.bindMemory(to: UInt8.self).baseAddress, data.count) }
            print("\(path): ok")
        }
    }
}

#if FUZZING
/// libFuzzer's driver (compiler-rt, `FuzzerDriver.cpp`), linked in by `-sanitize=fuzzer`.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif
