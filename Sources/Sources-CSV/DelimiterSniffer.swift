/// Picks the delimiter of a file from its first lines, for `delimiter: auto`.
///
/// The rule: on each of the first 20 non-blank lines (rows, really: a newline inside quotes does
/// not end one; a last line cut by the end of the chunk is left out), count `,` `;` tab and `|`
/// outside quotes.
/// 1. A candidate that appears on the first line and equally often on every line is consistent;
///    of the consistent ones, the one that appears most often wins (a tab-separated file whose
///    values hold commas has more tabs per line than commas, and as many on each line).
/// 2. If none is consistent (ragged rows), the candidate on the first line whose count there is
///    matched by the most other lines wins; a tie goes to the one that appears more often.
/// 3. If no candidate is on the first line, the file has one column and the comma is as good as any.
/// Remaining ties go to the earlier of `,` `;` tab `|`.
enum DelimiterSniffer {
    static let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: "|")]
    static let maxLines = 20

    static func sniff(_ bytes: UnsafeRawBufferPointer, atEOF: Bool) -> UInt8 {
        var lines: [[Int]] = []
        var counts = [Int](repeating: 0, count: candidates.count)
        var inQuotes = false, lineHasText = false
        var i = 0
        while i < bytes.count, lines.count < maxLines {
            let byte = bytes[i]
            i += 1
            if byte == UInt8(ascii: "\"") {
                inQuotes.toggle()
                lineHasText = true
            } else if inQuotes {
                continue
            } else if byte == 0x0A || byte == 0x0D {
                if lineHasText { lines.append(counts) }
                counts = [Int](repeating: 0, count: candidates.count)
                lineHasText = false
            } else {
                lineHasText = true
                if let k = candidates.firstIndex(of: byte) { counts[k] += 1 }
            }
        }
        if lineHasText, atEOF || lines.isEmpty { lines.append(counts) }
        guard let first = lines.first else { return candidates[0] }

        var best: (index: Int, agreeing: Int, count: Int)?
        for k in candidates.indices where first[k] > 0 {
            let agreeing = lines.count(where: { $0[k] == first[k] })
            if let b = best, (b.agreeing, b.count) >= (agreeing, first[k]) { continue }
            best = (k, agreeing, first[k])
        }
        return candidates[best?.index ?? 0]
    }
}
