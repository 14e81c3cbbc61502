/// "did you mean ...?" for misspelled keys and names.
public enum Suggestion {
    /// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo.
    public static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let lower = word.lowercased()
        let length = lower.count
        let limit = max(1, min(3, (length + 1) / 3))
        var best: (String, Int)?
        for candidate in candidates {
            // The distance is at least the difference in length: a name that far off is no typo,
            // and measuring it costs their lengths multiplied (a 2 MB key took 15 s).
            let other = candidate.lowercased()
            guard abs(other.count - length) <= limit else { continue }
            let d = distance(lower, other)
            if d < (best?.1 ?? Int.max) { best = (candidate, d) }
        }
        guard let (name, d) = best else { return nil }
        return d <= limit ? name : nil
    }

    /// `; did you mean 'x'?` or an empty string.
    public static func hint(for word: String, in candidates: some Sequence<String>) -> String {
        closest(to: word, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Edit distance over characters, where swapping two neighbours counts as one edit
    /// (optimal string alignment), since `cvs` for `csv` is the commonest typo of all.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
