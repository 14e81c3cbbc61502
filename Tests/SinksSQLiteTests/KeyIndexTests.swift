import Foundation
import Diagnostics
import Pipeline
@testable import SinksSQLite
import Testing
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("KeyIndex: unique keys in memory, and on disk past a limit")
struct KeyIndexTests {
    /// An index whose keys stay in memory (the tests here have far fewer than the standard limit).
    func KeyIndex() -> SinksSQLite.KeyIndex {
        SinksSQLite.KeyIndex(spillDirectory: FileManager.default.temporaryDirectory)
    }

    @Test("text keys are found as String compares them: canonically equivalent text is the same key")
    func canonicalEquivalence() throws {
        let index = KeyIndex()
        let at = Location(file: "items.csv", line: 2, column: 1)
        try index.insert(.text("Crème"), rowID: 1, first: at)  // è as one scalar
        try index.insert(.text("K-9"), rowID: 2, first: at)
        try index.insert(.text("a;b"), rowID: 3, first: at)
        #expect(try index.lookup(.text("Cre\u{300}me"))?.rowID == 1)  // e and a combining grave accent
        #expect(try index.lookup(.text("\u{212A}-9"))?.rowID == 2)  // KELVIN SIGN
        #expect(try index.lookup(.text("a\u{37E}b"))?.rowID == 3)  // GREEK QUESTION MARK
        #expect(try index.lookup(.text("Creme")) == nil)
        #expect(try index.lookup(.text("k-9")) == nil)

        try index.insert(.text("\u{1FEF}x"), rowID: 4, first: at)  // GREEK VARIA, stored as "`x"
        #expect(try index.lookup(.text("`x"))?.rowID == 4)
        try index.insert(.text("Cafe\u{301}"), rowID: 5, first: at)
        #expect(try index.lookup(.text("Café"))?.rowID == 5)
        #expect(try index.lookup(.text("Cafe")) == nil)
    }

    @Test("a hash given with a key (a load's) finds what the hash computed here finds")
    func givenHashes() throws {
        let index = KeyIndex()
        let at = Location(file: "items.csv", line: 2, column: 1)
        var scratch: [UInt8] = []
        func hash(_ text: String) -> TextKeyHash { TextKeyHash(of: text, scratch: &scratch) }
        try index.insert(.text("Crème"), hash: hash("Crème"), rowID: 1, first: at)
        try index.insert(.text("Milk"), hash: hash("Milk"), rowID: 2, first: at)
        try index.insert(.text("Café"), rowID: 3, first: at)
        #expect(try index.lookup(.text("Cre\u{300}me"))?.rowID == 1)
        #expect(try index.lookup(.text("Cre\u{300}me"), hash: hash("Cre\u{300}me"))?.rowID == 1)
        #expect(try index.lookup(.text("Milk"))?.rowID == 2)
        #expect(try index.lookup(.text("Milk"), hash: hash("Milk"))?.rowID == 2)
        #expect(try index.lookup(.text("Cafe\u{301}"), hash: hash("Cafe\u{301}"))?.rowID == 3)
        #expect(try index.lookup(.text("Milk "), hash: hash("Milk ")) == nil)
        #expect(hash("Crème") == hash("Cre\u{300}me") && hash("Crème").isCanonical && !hash("Cre\u{300}me").isCanonical && hash("Milk").isCanonical)
    }

    @Test("a key not found is inserted from its lookup's canonical bytes, or from its text when a later key took them")
    func absentKeys() throws {
        try withScratchFolder { folder in
            // The second index spills from its third key on: the same path to disk.
            for limits in [SinksSQLite.KeyIndex.Limits.standard, .init(memoryKeys: 2, runKeys: 300)] {
                let index = SinksSQLite.KeyIndex(spillDirectory: folder, limits: limits)
                let at = Location(file: "items.csv", line: 2, column: 1)
                var scratch: [UInt8] = []
                func hash(_ text: String) -> TextKeyHash { TextKeyHash(of: text, scratch: &scratch) }
                let names = ["Crème fraîche, demi-écrémée, 30 cl", "Crème anglaise à la vanille de Madagascar",
                             "Plain ASCII name of more than 24 bytes", "Pâté de campagne aux cèpes et au poivre"]
                // Right after its own lookup.
                var first = SinksSQLite.KeyIndex.Key.text(names[0])
                #expect(try index.lookup(insertingIfAbsent: &first, hash: hash(names[0])) == nil)
                guard case .absent = first else { Issue.record("a key not found comes back as .absent"); return }
                try index.insert(first, hash: hash(names[0]), rowID: 1, first: at)
                // After the lookup of another key, which takes the scratch bytes: made again.
                var second = SinksSQLite.KeyIndex.Key.text(names[1])
                var third = SinksSQLite.KeyIndex.Key.text(names[3])
                #expect(try index.lookup(insertingIfAbsent: &second) == nil)
                #expect(try index.lookup(insertingIfAbsent: &third, hash: hash(names[3])) == nil)
                try index.insert(second, rowID: 2, first: at)
                var ascii = SinksSQLite.KeyIndex.Key.text(names[2])
                #expect(try index.lookup(insertingIfAbsent: &ascii, hash: hash(names[2])) == nil)
                try index.insert(ascii, hash: hash(names[2]), rowID: 3, first: at)
                try index.insert(third, rowID: 4, first: at)
                // Found as String compares them: each by its decomposed form too.
                for (k, name) in names.enumerated() {
                    let decomposed = String(name.decomposedStringWithCanonicalMapping)
                    #expect(try index.lookup(.text(decomposed))?.rowID == Int64(k + 1), "\(name)")
                }
                var again = SinksSQLite.KeyIndex.Key.text(names[1])
                #expect(try index.lookup(insertingIfAbsent: &again)?.rowID == 2)
                guard case .text = again else { Issue.record("a key found is left as it was"); return }
            }
        }
    }

    @Test("a short key given by the bytes its hash carries is the same key as its text")
    func canonicalKeys() throws {
        let index = KeyIndex()
        let at = Location(file: "items.csv", line: 2, column: 1)
        var scratch: [UInt8] = []
        func hash(_ text: String) -> TextKeyHash { TextKeyHash(of: text, scratch: &scratch) }
        let long = String(repeating: "x", count: TextKeyHash.inlineCapacity + 1)
        #expect(hash("Cre\u{300}me").hasInlineBytes && hash(String(long.dropLast())).hasInlineBytes && !hash(long).hasInlineBytes)
        #expect(hash("Cre\u{300}me").withInlineBytes { Array($0) } == Array("Crème".utf8))

        try index.insert(.canonical(hash("Cre\u{300}me")), rowID: 1, first: at)
        try index.insert(.text("Milk"), rowID: 2, first: at)
        try index.insert(.canonical(hash("")), rowID: 3, first: at)
        #expect(try index.lookup(.text("Crème"))?.rowID == 1)
        #expect(try index.lookup(.canonical(hash("Crème")))?.rowID == 1)
        #expect(try index.lookup(.canonical(hash("Milk")))?.rowID == 2)
        #expect(try index.lookup(.text(""))?.rowID == 3)
        #expect(try index.lookup(.canonical(hash("Milk "))) == nil)
    }

    @Test("200,000 keys (the table grows many times): every one found with its row, none that was not inserted")
    func manyKeys() throws {
        let index = KeyIndex()
        let count = 200_000
        for k in 0..<count {
            try index.insert(.text("Item number \(k)"), rowID: Int64(k + 1), first: Location(file: "items.csv", line: k + 2, column: 1))
        }
        for k in stride(from: 0, to: count, by: 997) {
            let entry = try #require(try index.lookup(.text("Item number \(k)")))
            #expect(entry.rowID == Int64(k + 1))
            #expect(index.firstLocation(of: entry) == Location(file: "items.csv", line: k + 2, column: 1))
        }
        #expect(try index.lookup(.text("Item number \(count)")) == nil)
        #expect(try index.lookup(.text("Item number")) == nil)
        #expect(try index.lookup(.text("")) == nil)
    }

    @Test("other keys: single values and composite keys")
    func valueKeys() throws {
        let index = KeyIndex()
        try index.insert(.value(.integer(7)), rowID: 1, first: Location(file: "a.json", path: "[0]"))
        try index.insert(.values([.text("North"), .integer(3)]), rowID: 2, first: Location(file: "a.json", path: "[1]"))
        #expect(try index.lookup(.value(.integer(7)))?.rowID == 1)
        #expect(try index.lookup(.values([.text("North"), .integer(3)]))?.rowID == 2)
        #expect(try index.lookup(.values([.text("North"), .integer(4)])) == nil)
        #expect(try index.lookup(.text("7")) == nil)
    }

    @Test("keys of two rows in any order: grouped by a growing first row, past a group's limit, out of order, on disk",
          arguments: [SinksSQLite.KeyIndex.Limits.standard, .init(memoryKeys: 150, runKeys: 64)])
    func pairKeysInAnyOrder(limits: SinksSQLite.KeyIndex.Limits) throws {
        try withScratchFolder { folder in
            let index = SinksSQLite.KeyIndex(spillDirectory: folder, limits: limits)
            var stored: [[Int64]: Int64] = [:]
            var generator = SeededGenerator(seed: 36)
            func put(_ a: Int64, _ b: Int64, asValues: Bool = false) throws {
                let key: SinksSQLite.KeyIndex.Key = asValues ? .values([.integer(a), .integer(b)]) : .pair(a, b)
                let found = try index.lookup(key)
                #expect(found?.rowID == stored[[a, b]], "(\(a), \(b))")
                guard found == nil else { return }
                let row = Int64(stored.count + 1)
                try index.insert(key, rowID: row, first: Location(file: "recipes.json", path: "[\(row)]"))
                stored[[a, b]] = row
            }
            // Lists as the nested job gives them: a new first row each, some longer than a group
            // holds (the rest go to the text table), an element given twice.
            for a in Int64(10)..<Int64(60) {
                let length = a % 5 == 0 ? PairRuns.groupLimit + 7 : Int(a % 6)
                for b in 0..<length { try put(a, Int64(b * 3 % 23)) }
                if length > 1 { try put(a, 0) }
                // Between lists, another source's keys: an older first row, and one below all.
                if a % 7 == 0 { try put(a - 5, 99) }
                if a % 11 == 0 { try put(-a, 1, asValues: true) }
            }
            // Then keys in no order at all, some of them given again.
            for _ in 0..<400 {
                try put(Int64.random(in: 0..<80, using: &generator), Int64.random(in: 0..<30, using: &generator),
                        asValues: Bool.random(using: &generator))
            }
            // A last group after all of that.
            try put(200, 1)
            for b in Int64(2)..<Int64(5) { try put(200, b) }
            for (key, row) in stored {
                let entry = try #require(try index.lookup(.pair(key[0], key[1])))
                #expect(entry.rowID == row)
                #expect(index.firstLocation(of: entry) == Location(file: "recipes.json", path: "[\(row)]"))
                #expect(try index.lookup(.values([.integer(key[0]), .integer(key[1])]))?.rowID == row)
            }
            for (a, b) in [(Int64(10), Int64(30)), (35, 100), (60, 100), (200, 0), (-1, 1), (201, 1), (Int64.max, 0), (Int64.min, 0)] {
                #expect(try index.lookup(.pair(a, b)) == nil, "(\(a), \(b))")
            }
        }
    }

    @Test("keys of integers (the rows a key over relationships names) in memory and on disk, apart from text keys")
    func integerTupleKeys() throws {
        try withScratchFolder { folder in
            let index = SinksSQLite.KeyIndex(spillDirectory: folder, limits: .init(memoryKeys: 1000, runKeys: 300))
            func pair(_ k: Int) -> SinksSQLite.KeyIndex.Key { .values([.integer(Int64(k / 7)), .integer(Int64(k % 7 - 3))]) }
            for k in 0..<5000 {
                #expect(try index.lookup(pair(k)) == nil)
                try index.insert(pair(k), rowID: Int64(k + 1), first: Location(file: "recipes.json", path: "[\(k)]"))
            }
            for k in 0..<5000 {
                let entry = try #require(try index.lookup(pair(k)))
                #expect(entry.rowID == Int64(k + 1))
                #expect(index.firstLocation(of: entry) == Location(file: "recipes.json", path: "[\(k)]"))
            }
            // The order of the parts matters; the same integers as text, or as one value, are other keys.
            #expect(try index.lookup(.values([.integer(-3), .integer(0)])) == nil)
            #expect(try index.lookup(.values([.integer(0), .integer(-3), .integer(0)])) == nil)
            #expect(try index.lookup(.values([.text("0"), .integer(-3)])) == nil)
            #expect(try index.lookup(.value(.integer(0))) == nil)
        }
    }

    @Test("first locations read back as they were given, whatever their shape")
    func locations() throws {
        let index = KeyIndex()
        let locations = [
            Location(file: "items.csv", line: 2, column: 1),
            Location(file: "items.xml", line: 4, path: "items/item[0]"),
            Location(file: "items.xml", line: 70_000, path: "items/item[12345]"),
            Location(file: "items.json", line: 3, column: 5, path: "[17]"),
            Location(file: "items.json", line: 3, column: 5, path: "data.items[2147483647]"),
            Location(file: "items.json", path: "data.items[2147483648]"),  // too large for 32 bits
            Location(file: "items.json", path: "data.items[007]"),  // would not read back the same
            Location(file: "items.json", path: "data.items[-1]"),
            Location(file: "items.plist", path: "root"),
            Location(file: "items.csv", line: Int(Int32.max) + 1, column: 1),
            Location(file: "items.csv"),
        ]
        for (k, location) in locations.enumerated() {
            try index.insert(.value(.integer(Int64(k))), rowID: Int64(k), first: location)
        }
        for (k, location) in locations.enumerated() {
            let entry = try #require(try index.lookup(.value(.integer(Int64(k)))))
            #expect(index.firstLocation(of: entry) == location)
            #expect(index.firstLocation(of: entry).description == location.description)
        }
    }

    @Test("past the memory limit, keys go to runs on disk: every key found with its row and first location, in memory or not")
    func spilledKeys() throws {
        try withScratchFolder { folder in
            let index = SinksSQLite.KeyIndex(spillDirectory: folder, limits: .init(memoryKeys: 1000, runKeys: 300))
            let count = 20_000
            // Non-ASCII keys too, and locations of every shape, some too unusual to compact.
            func key(_ k: Int) -> String { k % 7 == 0 ? "Crème \(k)" : "Item number \(k)" }
            func location(_ k: Int) -> Location {
                switch k % 5 {
                case 0: Location(file: "items.xml", line: k + 2, path: "items/item[\(k)]")
                case 1: Location(file: "items.json", path: "data.items[00\(k)]")  // kept whole
                default: Location(file: "items.csv", line: k + 2, column: 1)
                }
            }
            // Every third key given as a load gives it: by the bytes its hash carries.
            var scratch: [UInt8] = []
            func given(_ k: Int) -> SinksSQLite.KeyIndex.Key {
                k % 3 == 0 ? .canonical(TextKeyHash(of: key(k), scratch: &scratch)) : .text(key(k))
            }
            for k in 0..<count {
                #expect(try index.lookup(given(k)) == nil)
                try index.insert(given(k), rowID: Int64(k + 1), first: location(k))
            }
            for k in 0..<count {
                let entry = try #require(try index.lookup(k % 2 == 0 ? .text(key(k)) : given(k)))
                #expect(entry.rowID == Int64(k + 1))
                #expect(index.firstLocation(of: entry) == location(k))
            }
            // Canonically equivalent text is the same key on disk too.
            #expect(try index.lookup(.text("Cre\u{300}me 19999"))?.rowID == 20_000)
            #expect(try index.lookup(.text("Creme 19999")) == nil)
            for k in count..<(count + 2000) { #expect(try index.lookup(.text(key(k))) == nil) }
            #expect(try index.lookup(.text("")) == nil)
            #expect(try index.lookup(.text("Item number")) == nil)
            // The runs' file was unlinked when it was created.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test("long keys spill once the keys in memory hold a limit of bytes, before the count of keys says so")
    func spilledByBytes() throws {
        try withScratchFolder { folder in
            let index = SinksSQLite.KeyIndex(spillDirectory: folder, limits: .init(memoryKeys: 1 << 20, runKeys: 64, memoryBytes: 64 << 10))
            // 2,000 keys of 500 to 1,000 bytes: about 1.5 MB, past 64 KB after 87 of them.
            func key(_ k: Int) -> String { "\(k) " + String(repeating: k % 2 == 0 ? "é" : "e", count: 500) }
            for k in 0..<2000 {
                #expect(try index.lookup(.text(key(k))) == nil)
                try index.insert(.text(key(k)), rowID: Int64(k + 1), first: Location(file: "long.csv", line: k + 2, column: 1))
            }
            for k in 0..<2000 {
                let entry = try #require(try index.lookup(.text(key(k))))
                #expect(entry.rowID == Int64(k + 1))
                #expect(index.firstLocation(of: entry) == Location(file: "long.csv", line: k + 2, column: 1))
            }
            #expect(try index.lookup(.text(key(2000))) == nil)
            // Keys stayed in memory until they held 64 KB; the rest went to the runs on disk.
            var held = 0, bytes = 0
            while bytes < 64 << 10 { bytes += key(held).utf8.count; held += 1 }
            #expect(index.keysInMemory == held)
        }
    }

    @Test("spilled keys: a new key never matches one with the same bytes up to its length, or a prefix")
    func spilledPrefixes() throws {
        try withScratchFolder { folder in
            let index = SinksSQLite.KeyIndex(spillDirectory: folder, limits: .init(memoryKeys: 0, runKeys: 2))
            // The last is larger than the file's write buffer: written out past it.
            let keys = ["a", "ab", "abc", "abcd", "b", "ba", "bab", String(repeating: "x", count: 5000),
                        String(repeating: "y", count: 3 << 20)]
            for (k, key) in keys.enumerated() {
                try index.insert(.text(key), rowID: Int64(k + 1), first: Location(file: "f.csv", line: k + 1))
            }
            for (k, key) in keys.enumerated() {
                #expect(try index.lookup(.text(key))?.rowID == Int64(k + 1))
            }
            for missing in ["abcde", "abd", "bb", "", String(repeating: "x", count: 4999), String(repeating: "x", count: 5001),
                            String(repeating: "y", count: (3 << 20) - 1)] {
                #expect(try index.lookup(.text(missing)) == nil)
            }
        }
    }

    @Test("spilled keys with the same hash: each is found by its bytes, in whichever run it went to")
    func spilledHashCollisions() throws {
        try withScratchFolder { folder in
            var spill = try KeySpill(directory: folder, runKeys: 2)
            func bytes<R>(_ key: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
                var key = key
                return try key.withUTF8(body)
            }
            // Five keys, one hash: two runs of two and one pending, several candidates in one bucket.
            let keys = ["apple", "pear", "plum", "fig", "kiwi"]
            for (k, key) in keys.enumerated() {
                try bytes(key) { try spill.insert($0, hash: 42, rowID: Int64(k + 1), first: Location(file: "f.csv", line: k + 2)) }
            }
            for (k, key) in keys.enumerated() {
                let found = try bytes(key) { try spill.find($0, hash: 42) }
                #expect(found?.rowID == Int64(k + 1))
                #expect(found?.first == Location(file: "f.csv", line: k + 2))
            }
            #expect(try bytes("grape") { try spill.find($0, hash: 42) } == nil)
            #expect(try bytes("apple") { try spill.find($0, hash: 43) } == nil)
        }
    }

    @Test("a folder that cannot take the keys' file is an error when the first key would go there")
    func unwritableSpillFolder() throws {
        let folder = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        let index = SinksSQLite.KeyIndex(spillDirectory: folder, limits: .init(memoryKeys: 2, runKeys: 2))
        let at = Location(file: "items.csv", line: 2)
        try index.insert(.text("a"), rowID: 1, first: at)
        try index.insert(.text("b"), rowID: 2, first: at)
        let error = #expect(throws: PipelineError.self) { try index.insert(.text("c"), rowID: 3, first: at) }
        #expect(error?.code == .tempCannotCreate)
        #expect(try index.lookup(.text("b"))?.rowID == 2)
    }

    @Test("a run's index holds every entry once, in the bucket of its hash's top bits, in the order they came")
    func runIndexBuckets() {
        var generator = SystemRandomNumberGenerator()
        var hashes = (0..<50_000).map { _ in UInt64.random(in: .min ... .max, using: &generator) }
        // Equal hashes, hashes that differ in low bits only, and many with the same top bits.
        hashes += [7, 7, 7, 1 << 16, 1 << 32, 1 << 48, 1 << 48 | 1, .max, .max, 0, 0]
        hashes += (0..<500).map { _ in 0xABCD << 48 | UInt64.random(in: 0...0xFFFF_FFFF, using: &generator) }
        hashes.shuffle(using: &generator)
        let (index, buckets) = IndexEntry.bucketed(hashes, offset: { Int64(1000 + $0) }, bucketSize: 64)
        #expect(index.count == hashes.count)
        #expect(buckets.starts.count == (1 << buckets.bits) + 1)
        #expect(hashes.count >> buckets.bits <= 64 && hashes.count >> (buckets.bits - 1) > 64)
        #expect(buckets.starts.first == 0 && buckets.starts.last == UInt32(hashes.count))
        var seen = Set<Int64>()
        for b in 0..<(1 << buckets.bits) {
            let entries = index[Int(buckets.starts[b])..<Int(buckets.starts[b + 1])]
            #expect(entries.allSatisfy { buckets.bucket(of: $0.hash) == b && hashes[Int($0.offset - 1000)] == $0.hash })
            #expect(entries.map(\.offset) == entries.map(\.offset).sorted())
            seen.formUnion(entries.map(\.offset))
        }
        #expect(seen.count == hashes.count)
        for hash in hashes.prefix(100) {
            let (start, end) = buckets.range(of: hash)
            #expect(index[start..<end].contains { $0.hash == hash })
        }
        let (one, single) = IndexEntry.bucketed([3], offset: { Int64(9 + $0) }, bucketSize: 64)
        #expect(single.bits == 0 && single.starts == [0, 1] && one.map(\.offset) == [9])
    }
}
