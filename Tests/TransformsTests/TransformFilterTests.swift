import Diagnostics
import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

@Suite("keep and drop transforms")
struct TransformFilterTests {
    func outcome(_ step: any Transform, _ values: [String]) -> String {
        var record = TransformFixture.record(values.map(Value.text))
        do {
            try step.apply(&record)
            return "loaded"
        } catch let filtered as Filtered {
            return "\(filtered.stage): \(filtered.reason)"
        } catch {
            return "error: \(error)"
        }
    }

    @Test("keep: every condition must hold; values compare trimmed; lists, regexes and emptiness")
    func keep() throws {
        let (step, _) = try TransformFixture.bind("keep", #"{ status: [active, new], name: { matches: "^[A-Z]" }, notes: { empty: true } }"#,
                                                  fields: ["name", "status", "notes"])
        #expect(outcome(step, ["Milk", " active ", ""]) == "loaded")
        #expect(outcome(step, ["Milk", "draft", ""]) == #"keep: status "draft" is none of active, new"#)
        #expect(outcome(step, ["milk", "new", ""]) == #"keep: name "milk" does not match /^[A-Z]/"#)
        #expect(outcome(step, ["Milk", "new", "todo"]) == "keep: notes is not empty")
    }

    @Test("drop: a record goes only when all its conditions hold, and the reason says which")
    func drop() throws {
        let (step, _) = try TransformFixture.bind("drop", #"{ name: "", status: draft }"#, fields: ["name", "status"])
        #expect(outcome(step, ["", "draft"]) == #"drop: name is empty and status "draft" is "draft""#)
        #expect(outcome(step, ["Milk", "draft"]) == "loaded")
        #expect(outcome(step, ["", "active"]) == "loaded")
    }

    @Test("a field that does not reach the step, a bad regex and an unknown condition are errors in the pipeline file")
    func badConditions() throws {
        let field = #expect(throws: PipelineError.self) { try TransformFixture.bind("keep", "{ stauts: active }", fields: ["status"]) }
        #expect(field?.code == .pipelineUnknownField)
        let regex = #expect(throws: PipelineError.self) { try TransformFixture.make("keep", #"{ status: { matches: "(" } }"#) }
        #expect(regex?.code == .filterInvalidRegex)
        let unknown = try #require(throws: PipelineError.self) { try TransformFixture.make("drop", "{ status: { matchs: x } }") }
        #expect(unknown.code == .pipelineUnknownKey)
        #expect(unknown.message.hasPrefix("'matchs' is no condition") && unknown.message.contains("did you mean 'matches'?"), "\(unknown)")
    }

    /// `^(\w+\s?)*$` on 18 characters that do not match took Swift's Regex 11 s (doubling with
    /// each character): the automaton takes one step per character. Not timed: 10,000 characters
    /// would take a backtracking engine longer than the universe has existed.
    @Test("matches runs without backtracking")
    func catastrophicPatterns() throws {
        let words = try LinearRegex(#"^(\w+\s?)*$"#)
        let long = String(repeating: "a", count: 10_000) + "!"
        #expect(words.firstMatch(in: "Fresh parsley"))
        #expect(!words.firstMatch(in: long))
        let nested = try LinearRegex("(a|aa)+$|(a*)*b")
        #expect(!nested.firstMatch(in: long))
        #expect(nested.firstMatch(in: String(repeating: "a", count: 10_000)))
        // Through the step, as a pipeline file writes it.
        let (step, _) = try TransformFixture.bind("keep", #"{ name: { matches: "^([a-z]+ ?)*$" } }"#, fields: ["name"])
        #expect(outcome(step, ["fresh parsley"]) == "loaded")
        #expect(outcome(step, [long]).hasPrefix(#"keep: name "aaaa"#))
    }

    @Test("the syntax filters use, as Swift's Regex reads it", arguments: [
        ("^DRAFT", "DRAFT 2", true), ("^DRAFT", "a DRAFT", false), ("draft$", "my draft", true), ("(?i)^draft", "DRAFT", true),
        ("^[A-Z]{2,3}-\\d+$", "AB-12", true), ("^[A-Z]{2,3}-\\d+$", "ABCD-12", false), ("^[^,]+$", "a,b", false),
        ("\\bkg\\b", "5 kg", true), ("\\bkg\\b", "5kgs", false), ("colou?r", "color", true), ("a.c", "a\nc", false),
        ("^(?:ab|cd)*$", "abcdab", true), ("^(?<unit>kg|g)$", "g", true), ("[\\d.]+", "v1.2", true), ("^\\s*$", " \t", true),
        ("^a{3}$", "aaa", true), ("^a{3}$", "aaaa", false), ("^a{2,}$", "aaaa", true), ("x*", "", true), ("^é+$", "éé", true),
        ("[a-c]+?z", "bbz", true), ("\\.", "a.b", true), ("\\.", "ab", false), ("^\\W+$", "-- ", true), ("\\Bx", "ax", true),
    ] as [(String, String, Bool)])
    func syntax(pattern: String, value: String, matches: Bool) throws {
        let regex = try LinearRegex(pattern)
        #expect(regex.firstMatch(in: value) == matches)
        #expect((try Regex(pattern).firstMatch(in: value) != nil) == matches, "Swift's Regex agrees")
    }

    @Test("backreferences, lookaround and bad syntax are refused when the pipeline loads")
    func refusedPatterns() throws {
        for (pattern, reason) in [
            (#"(a)\1"#, #"backreferences ('\1') are not supported: they need backtracking at character 6"#),
            ("a(?=b)", "lookaround ('(?=', '(?!', '(?<=', '(?<!') is not supported: it needs backtracking at character 4"),
            ("(", "'(' is not closed at character 2"),
            ("a)", "')' at character 2 closes no group"),
            ("*a", "'*' repeats nothing at character 2"),
            ("[z-a]", "the range z-a runs backwards at character 5"),
            ("a{2000}", "a count above 1,000 at character 8"),
            ("(a{1000}){1000}", "the pattern is too large once its counted repeats are written out (more than 10,000 steps)"),
        ] {
            let error = #expect(throws: LinearRegex.SyntaxError.self) { try LinearRegex(pattern) }
            #expect(error?.description == reason, "\(pattern)")
        }
        let error = try #require(throws: PipelineError.self) { try TransformFixture.make("keep", #"{ status: { matches: "a(?=b)" } }"#) }
        #expect(error.code == .filterInvalidRegex)
        #expect(error.message == "'a(?=b)' is not a regular expression pipectl runs: lookaround ('(?=', '(?!', '(?<=', '(?<!') "
            + "is not supported: it needs backtracking at character 4")
    }
}
