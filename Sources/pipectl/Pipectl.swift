import ArgumentParser
import CHeap

@main
struct Pipectl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipectl",
        abstract: "Turns spreadsheet exports into the SQLite store an app ships.",
        discussion: """
            A pipeline file (YAML) names the store, its entities, and the sources to load: CSV \
            exported from Numbers or Excel, XML, JSON, JSON Lines and property lists, with \
            transforms such as trim, number and date. The store is plain SQLite or the Core Data \
            layout an app opens as its own.

            Exit codes: 0 ok, 64 usage error, 65 invalid pipeline file, 66 invalid input file, \
            67 records rejected under 'on_reject: fail', 68 store does not match the model \
            ('inspect --model', also a row that breaks it), 69 a data check failed, 70 the store built breaks \
            pipectl's own row checks (a bug of pipectl; the old store stays), 74 input/output error, 75 another run is building the store, \
            129/130/143 interrupted (SIGHUP/SIGINT/SIGTERM); 'diff' exits 1 when the stores differ.
            """,
        version: "0.1.0",
        subcommands: [RunCommand.self, ValidateCommand.self, InspectCommand.self, DiffCommand.self, ModelCommand.self, CheckCommand.self, SchemaCommand.self, InitCommand.self])

    /// glibc's malloc serves a block of 128 KB or more from a mapping of its own, and raises that
    /// threshold to the size of each such block freed (up to 32 MB). The key index's arrays grow
    /// by doubling: each old one freed raised it, the next ones came from the heap, and the heap
    /// keeps the holes they leave. How many depended on the order allocations happened to take:
    /// the distinct job at 1M peaked at 143 MB or 157 MB from run to run. With a fixed 4 MB
    /// threshold, every larger block is mapped and given back when freed: 137-139 MB, no slower
    /// (docs/benchmarks.md). A setting of the command's own process, on Linux only.
    static func main() {
        pipectl_fixed_mmap_threshold(4 << 20)
        main(nil)
    }
}
