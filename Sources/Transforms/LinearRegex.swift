import Diagnostics

/// The regular expressions of `matches:`, run without backtracking: the pattern is compiled to a
/// Thompson automaton whose states are followed together, one step per character of the value,
/// so a match costs at most the value's length times the pattern's size, whatever the pattern.
///
/// Swift's `Regex` backtracks: `^(\w+\s?)*$` took 11 s on an 18-character value that does not
/// match, doubling with each character more. The syntax here is what filters use: literals and
/// escapes, `.`, classes (`[a-z_]`, `[^,]`, `\d \w \s \D \W \S`), groups (`(...)`, `(?:...)`,
/// `(?<name>...)`), `|`, `* + ? {n} {n,} {n,m}` (lazy forms too: only whether a match exists
/// counts), anchors `^ $ \A \z \b \B`, and `(?i)` at the start for any case. Backreferences and
/// lookaround need backtracking and are refused when the pipeline loads. Characters are Unicode
/// scalars (an accent written as a combining mark is a character of its own).
struct LinearRegex: Sendable {
    /// The pattern's size once counted repeats are written out: bounds a match's cost per character.
    static let maxStates = 10_000
    /// The largest count in `{n,m}`.
    static let maxCount = 1_000

    enum Assertion: Sendable { case start, end, wordBoundary, notWordBoundary }

    enum Instruction: Sendable {
        case scalar(Unicode.Scalar)
        case set(CharacterSet)
        case any
        case split(Int, Int)
        case jump(Int)
        case assert(Assertion)
        case match
    }

    /// A class: ranges and named classes, possibly negated.
    struct CharacterSet: Sendable {
        enum Item: Sendable { case range(UInt32, UInt32), digit(Bool), word(Bool), space(Bool) }
        var items: [Item] = []
        var negated = false

        func contains(_ scalar: Unicode.Scalar, ignoringCase: Bool) -> Bool {
            var found = matches(scalar)
            if !found, ignoringCase {
                found = LinearRegex.caseVariants(of: scalar).contains(where: matches)
            }
            return found != negated
        }

        private func matches(_ scalar: Unicode.Scalar) -> Bool {
            items.contains { item in
                switch item {
                case .range(let low, let high): return (low...high).contains(scalar.value)
                case .digit(let negated): return LinearRegex.isDigit(scalar) != negated
                case .word(let negated): return LinearRegex.isWord(scalar) != negated
                case .space(let negated): return scalar.properties.isWhitespace != negated
                }
            }
        }
    }

    struct SyntaxError: Error, CustomStringConvertible {
        var description: String
    }

    let program: [Instruction]
    let ignoresCase: Bool

    /// Compiles `pattern`; throws `SyntaxError` (in words for the user) for what is not valid or not supported.
    init(_ pattern: String) throws(SyntaxError) {
        var parser = Parser(scalars: Array(pattern.unicodeScalars))
        if parser.scalars.starts(with: Array("(?i)".unicodeScalars)) {
            parser.position = 4
            ignoresCase = true
        } else {
            ignoresCase = false
        }
        let tree = try parser.alternation()
        if parser.position < parser.scalars.count {
            throw SyntaxError(description: "')' at character \(parser.position + 1) closes no group")
        }
        var program: [Instruction] = []
        try Self.compile(tree, into: &program)
        program.append(.match)
        self.program = program
    }

    // MARK: Matching

    /// Whether the pattern matches somewhere in `text`.
    func firstMatch(in text: String) -> Bool {
        let scalars = text.unicodeScalars
        var current = Threads(count: program.count), next = Threads(count: program.count)
        var stack: [Int] = []
        var previous: Unicode.Scalar? = nil
        var index = scalars.startIndex
        while true {
            let scalar = index < scalars.endIndex ? scalars[index] : nil
            // A match may begin at every position: the first instruction joins the threads.
            if add(0, to: &current, previous: previous, next: scalar, stack: &stack) { return true }
            guard let scalar else { return false }
            next.clear()
            let after = scalars.index(after: index)
            let following = after < scalars.endIndex ? scalars[after] : nil
            for pc in current.list {
                let moves: Bool
                switch program[pc] {
                case .scalar(let wanted): moves = wanted == scalar || (ignoresCase && Self.caseVariants(of: scalar).contains(wanted))
                case .set(let set): moves = set.contains(scalar, ignoringCase: ignoresCase)
                case .any: moves = scalar != "\n"
                default: moves = false
                }
                if moves, add(pc + 1, to: &next, previous: scalar, next: following, stack: &stack) { return true }
            }
            swap(&current, &next)
            previous = scalar
            index = after
        }
    }

    /// The threads at one position: each instruction once (a sparse set, cleared in constant time).
    private struct Threads {
        var list: [Int] = []
        var slot: [Int]

        init(count: Int) { slot = Array(repeating: -1, count: count) }

        func contains(_ pc: Int) -> Bool { slot[pc] >= 0 && slot[pc] < list.count && list[slot[pc]] == pc }

        mutating func insert(_ pc: Int) {
            slot[pc] = list.count
            list.append(pc)
        }

        mutating func clear() { list.removeAll(keepingCapacity: true) }
    }

    /// Adds the thread at `pc` and those its jumps, splits and assertions reach; true at a match.
    private func add(_ pc: Int, to threads: inout Threads, previous: Unicode.Scalar?, next: Unicode.Scalar?, stack: inout [Int]) -> Bool {
        stack.append(pc)
        while let pc = stack.popLast() {
            guard !threads.contains(pc) else { continue }
            threads.insert(pc)
            switch program[pc] {
            case .match: return true
            case .jump(let target): stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                let holds: Bool
                switch assertion {
                case .start: holds = previous == nil
                case .end: holds = next == nil
                case .wordBoundary, .notWordBoundary:
                    let boundary = (previous.map(Self.isWord) ?? false) != (next.map(Self.isWord) ?? false)
                    holds = boundary == (assertion == .wordBoundary)
                }
                if holds { stack.append(pc + 1) }
            default:
                break
            }
        }
        return false
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.numericType == .decimal }

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "_" || scalar.properties.isAlphabetic || isDigit(scalar) { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation: return true
        default: return false
        }
    }

    /// The scalar's other cases, where each is one scalar.
    static func caseVariants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        [scalar.properties.lowercaseMapping, scalar.properties.uppercaseMapping].compactMap { mapped in
            let scalars = mapped.unicodeScalars
            return scalars.count == 1 && scalars.first != scalar ? scalars.first : nil
        }
    }
}

extension LinearRegex {
    indirect enum Node {
        case empty
        case scalar(Unicode.Scalar)
        case set(CharacterSet)
        case any
        case sequence([Node])
        case alternatives([Node])
        case repeated(Node, min: Int, max: Int?)
        case assert(Assertion)
    }

    static func compile(_ node: Node, into program: inout [Instruction]) throws(SyntaxError) {
        guard program.count < maxStates else {
            throw SyntaxError(description: "the pattern is too large once its counted repeats are written out (more than "
                              + "\(maxStates.grouped) steps)")
        }
        switch node {
        case .empty: break
        case .scalar(let scalar): program.append(.scalar(scalar))
        case .set(let set): program.append(.set(set))
        case .any: program.append(.any)
        case .assert(let assertion): program.append(.assert(assertion))
        case .sequence(let nodes):
            for node in nodes { try compile(node, into: &program) }
        case .alternatives(let nodes):
            // split a, rest; a; jump end; rest: split b, rest2; ...
            var jumps: [Int] = []
            for (offset, node) in nodes.enumerated() {
                if offset < nodes.count - 1 {
                    let split = program.count
                    program.append(.split(split + 1, -1))
                    try compile(node, into: &program)
                    jumps.append(program.count)
                    program.append(.jump(-1))
                    program[split] = .split(split + 1, program.count)
                } else {
                    try compile(node, into: &program)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repeated(let body, let min, let max):
            for _ in 0..<min { try compile(body, into: &program) }
            if let max {
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    program.append(.split(program.count + 1, -1))
                    try compile(body, into: &program)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                let loop = program.count
                program.append(.split(loop + 1, -1))
                try compile(body, into: &program)
                program.append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
            }
        }
        guard program.count <= maxStates else {
            throw SyntaxError(description: "the pattern is too large once its counted repeats are written out (more than "
                              + "\(maxStates.grouped) steps)")
        }
    }

    /// A recursive descent over the pattern's scalars.
    struct Parser {
        let scalars: [Unicode.Scalar]
        var position = 0
        var depth = 0

        init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        func error(_ what: String) -> SyntaxError {
            SyntaxError(description: "\(what) at character \(min(position, scalars.count) + 1)")
        }

        mutating func alternation() throws(SyntaxError) -> Node {
            var branches = [try sequence()]
            while peek == "|" {
                position += 1
                branches.append(try sequence())
            }
            return branches.count == 1 ? branches[0] : .alternatives(branches)
        }

        mutating func sequence() throws(SyntaxError) -> Node {
            var nodes: [Node] = []
            while let scalar = peek, scalar != "|", scalar != ")" {
                var atom = try self.atom()
                while let quantifier = peek, "*+?{".unicodeScalars.contains(quantifier) {
                    guard let (min, max) = try counts() else { break }
                    if case .assert = atom { throw error("an anchor cannot repeat") }
                    atom = .repeated(atom, min: min, max: max)
                    if peek == "?" { position += 1 }  // lazy: whether a match exists is the same
                    if peek == "+" { throw error("possessive repeats ('*+', '++') are not supported") }
                }
                nodes.append(atom)
            }
            return nodes.count == 1 ? nodes[0] : (nodes.isEmpty ? .empty : .sequence(nodes))
        }

        /// The counts of the quantifier here; nil for a `{` that is a literal (`a{`, `{x}`).
        mutating func counts() throws(SyntaxError) -> (Int, Int?)? {
            let start = position
            switch scalars[position] {
            case "*": position += 1; return (0, nil)
            case "+": position += 1; return (1, nil)
            case "?": position += 1; return (0, 1)
            default:
                position += 1
                guard let min = number() else { position = start; return nil }
                var max: Int? = min
                if peek == "," {
                    position += 1
                    max = number()
                }
                guard peek == "}" else { position = start; return nil }
                position += 1
                guard min <= LinearRegex.maxCount, (max ?? 0) <= LinearRegex.maxCount else {
                    throw error("a count above \(LinearRegex.maxCount.grouped)")
                }
                if let max, max < min { throw error("{\(min),\(max)} counts down") }
                return (min, max)
            }
        }

        mutating func number() -> Int? {
            var value: Int?
            while let scalar = peek, ("0"..."9").contains(scalar) {
                value = min((value ?? 0) * 10 + Int(scalar.value - 48), 1_000_000)
                position += 1
            }
            return value
        }

        mutating func atom() throws(SyntaxError) -> Node {
            let scalar = scalars[position]
            position += 1
            switch scalar {
            case ".": return .any
            case "^": return .assert(.start)
            case "$": return .assert(.end)
            case "[": return .set(try characterClass())
            case "\\": return try escape(inClass: false)
            case "*", "+", "?": throw error("'\(scalar)' repeats nothing")
            case "(":
                if peek == "?" {
                    position += 1
                    switch peek {
                    case ":": position += 1
                    case "<" where position + 1 < scalars.count && scalars[position + 1] != "=" && scalars[position + 1] != "!":
                        // A named group: the name is no concern of a filter.
                        while let c = peek, c != ">" { position += 1 }
                        guard peek == ">" else { throw error("a group name is not closed") }
                        position += 1
                    case "=", "!", "<":
                        throw error("lookaround ('(?=', '(?!', '(?<=', '(?<!') is not supported: it needs backtracking")
                    default:
                        throw error("'(?\(peek.map(String.init) ?? "")' is not supported (only '(?:', '(?<name>' and a leading '(?i)' are)")
                    }
                }
                depth += 1
                guard depth <= 100 else { throw error("groups nested more than 100 deep") }
                let inner = try alternation()
                depth -= 1
                guard peek == ")" else { throw error("'(' is not closed") }
                position += 1
                return inner
            default: return .scalar(scalar)
            }
        }

        mutating func escape(inClass: Bool) throws(SyntaxError) -> Node {
            guard let scalar = peek else { throw error("'\\' ends the pattern") }
            position += 1
            switch scalar {
            case "d": return .set(CharacterSet(items: [.digit(false)]))
            case "D": return .set(CharacterSet(items: [.digit(true)]))
            case "w": return .set(CharacterSet(items: [.word(false)]))
            case "W": return .set(CharacterSet(items: [.word(true)]))
            case "s": return .set(CharacterSet(items: [.space(false)]))
            case "S": return .set(CharacterSet(items: [.space(true)]))
            case "t": return .scalar("\t")
            case "n": return .scalar("\n")
            case "r": return .scalar("\r")
            case "b" where !inClass: return .assert(.wordBoundary)
            case "B" where !inClass: return .assert(.notWordBoundary)
            case "A" where !inClass: return .assert(.start)
            case "z" where !inClass: return .assert(.end)
            case "1"..."9":
                throw error("backreferences ('\\\(scalar)') are not supported: they need backtracking")
            default:
                if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                    throw error("'\\\(scalar)' is not supported")
                }
                return .scalar(scalar)
            }
        }

        mutating func characterClass() throws(SyntaxError) -> CharacterSet {
            var set = CharacterSet()
            if peek == "^" {
                set.negated = true
                position += 1
            }
            var first = true
            while true {
                guard let scalar = peek else { throw error("'[' is not closed") }
                if scalar == "]", !first { position += 1; return set }
                first = false
                position += 1
                var low: Unicode.Scalar
                if scalar == "\\" {
                    switch try escape(inClass: true) {
                    case .scalar(let escaped): low = escaped
                    case .set(let named): set.items += named.items; continue
                    default: throw error("that escape is not allowed in a class")
                    }
                } else if scalar == "[" {
                    throw error("'[' inside a class (a nested class or [:alpha:]) is not supported; escape it as '\\['")
                } else {
                    low = scalar
                }
                if peek == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                    position += 1
                    var high = scalars[position]
                    position += 1
                    if high == "\\" {
                        guard case .scalar(let escaped) = try escape(inClass: true) else { throw error("a range ends in a class") }
                        high = escaped
                    }
                    guard low <= high else { throw error("the range \(low)-\(high) runs backwards") }
                    set.items.append(.range(low.value, high.value))
                } else {
                    set.items.append(.range(low.value, low.value))
                }
            }
        }
    }
}
