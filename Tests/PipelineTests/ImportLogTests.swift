import Foundation
import Diagnostics
import Pipeline
import Testing

@Suite("ImportLog: duplicates kept in a temporary file")
struct ImportLogTests {
    @Test("duplicates read back exactly as they were logged, in order, however many")
    func duplicatesRoundTrip() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipectl-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = ImportLog(sourceNames: ["items", "extra"], entityNames: ["Item"], temporaryDirectory: folder)
        #expect(log.duplicates.isEmpty)

        func duplicate(_ k: Int) -> ImportLog.Duplicate {
            ImportLog.Duplicate(
                entity: "Item", key: k % 3 == 0 ? "name=Crème \(k)" : "name=\"\(k)\"",
                first: Location(file: "items.csv", line: k + 2, column: 1),
                again: k % 2 == 0 ? Location(file: "items.json", path: "data.items[\(k)]")
                    : Location(file: "dir/ä items.xml", line: Int(Int32.max) + k, column: nil, path: ""),
                differences: (0..<(k % 4)).map { ("attribute \($0)", "\(k)", $0 == 1 ? "" : "→ \(k + 1)") },
                updated: k % 5 == 0)
        }
        let count = 25_000
        for k in 0..<count {
            log.currentSource = k % 2
            try log.duplicate(duplicate(k))
        }
        let snapshot = log.duplicates
        log.currentSource = count % 2
        try log.duplicate(duplicate(count))
        #expect(snapshot.count == count && log.duplicates.count == count + 1)

        for (k, read) in log.duplicates.enumerated() {
            let written = duplicate(k)
            #expect(read.source == (k % 2 == 0 ? "items" : "extra"))
            #expect(read.entity == written.entity && read.key == written.key && read.updated == written.updated)
            #expect(read.first == written.first && read.again == written.again)
            #expect(read.differences.map { [$0.attribute, $0.first, $0.again] } == written.differences.map { [$0.attribute, $0.first, $0.again] })
            if read.key != written.key { break }  // one failure says enough
        }
        #expect(log.duplicates.last?.key == duplicate(count).key)
        // Counted as they were logged: those with differences (k % 4 != 0) conflict.
        #expect(log.conflictingDuplicates == (0...count).filter { $0 % 4 != 0 }.count)
        #expect(log.conflictingDuplicates == log.duplicates.filter { !$0.differences.isEmpty }.count)
        // The file was unlinked when it was created: nothing is left in the folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("a log that keeps a few conflicting duplicates describes those, counts every one, and keeps no identical one")
    func describedConflicts() throws {
        let log = ImportLog(sourceNames: ["items"], entityNames: ["Item"])
        log.describedConflicts = 3
        func duplicate(_ k: Int, differing: Bool) -> ImportLog.Duplicate {
            ImportLog.Duplicate(entity: "Item", key: "name=\(k)", first: Location(file: "a.csv", line: 2),
                                again: Location(file: "a.csv", line: k + 3),
                                differences: differing ? [("quantity", "1", "\(k)")] : [], updated: false)
        }
        var described: [Int] = []
        for k in 0..<10 {
            let differing = k % 3 != 0  // 1, 2, 4, 5, 7, 8 differ
            if log.describesDuplicates {
                described.append(k)
                try log.duplicate(duplicate(k, differing: differing))
            } else {
                log.countDuplicate(differing: differing)
            }
        }
        // Described until three with other values were kept: 0 and 3 are identical, not kept.
        #expect(described == [0, 1, 2, 3, 4])
        #expect(log.duplicates.map(\.key) == ["name=1", "name=2", "name=4"])
        #expect(log.conflictingDuplicates == 6)
        #expect(!log.describesDuplicates)
    }

    @Test("a folder that cannot take the file is an error at the first duplicate, not a crash")
    func unwritableFolder() throws {
        let log = ImportLog(sourceNames: ["items"], entityNames: ["Item"],
                            temporaryDirectory: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"))
        let duplicate = ImportLog.Duplicate(entity: "Item", key: "name=Milk", first: Location(file: "a.csv", line: 2),
                                            again: Location(file: "a.csv", line: 3), differences: [], updated: false)
        let error = #expect(throws: PipelineError.self) { try log.duplicate(duplicate) }
        #expect(error?.code == .tempCannotCreate)
        #expect(log.duplicates.isEmpty)
    }
}
