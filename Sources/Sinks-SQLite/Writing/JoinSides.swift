/// Which side of a many-to-many gave each pair of its join table, once both sides have given
/// some: an update replacing the links of one side's record leaves the pairs the other side gave.
///
/// Until the second side gives its first pair, every row is the first side's: only the last
/// row id then is kept, and pairs are remembered only from that point on.
final class JoinSides {
    /// A pair as the side that gave it sees it: its own row, and the row it links.
    struct Pair: Hashable {
        var own: Int64
        var other: Int64
    }

    private var first: Int?
    /// Join rows up to this id were all given by `first`.
    private var mixedAt: Int64?
    private var given: [Int: Set<Pair>] = [:]
    /// The side numbers, by the join table column holding a side's own rows.
    private var sides: [String: Int] = [:]

    /// The number of the side whose rows the join table keeps in `ownColumn`.
    func side(ownColumn: String) -> Int {
        if let side = sides[ownColumn] { return side }
        sides[ownColumn] = sides.count
        return sides.count - 1
    }

    /// Notes that `side` gave the pair (`own`, `other`). `lastJoinRow` is asked once, when the
    /// second side gives its first pair.
    @inline(__always)
    func note(side: Int, own: Int64, other: Int64, lastJoinRow: () throws -> Int64) rethrows {
        guard let first else { return self.first = side }
        if mixedAt == nil {
            if side == first { return }
            mixedAt = try lastJoinRow()
        }
        given[side, default: []].insert(Pair(own: own, other: other))
    }

    /// Forgets that `side` gave the pair (`own`, `other`), which its update took away.
    func forget(side: Int, own: Int64, other: Int64) {
        given[side]?.remove(Pair(own: own, other: other))
    }

    /// Whether the side other than `side` gave the pair that `side` sees as (`own`, `other`),
    /// stored in join row `joinRow`.
    func otherSideGave(side: Int, own: Int64, other: Int64, joinRow: Int64) -> Bool {
        guard let first else { return false }
        guard let mixedAt else { return side != first }
        let mirrored = Pair(own: other, other: own)
        if side == first { return given.contains { $0.key != side && $0.value.contains(mirrored) } }
        return joinRow <= mixedAt || given[first]?.contains(mirrored) == true
    }
}
