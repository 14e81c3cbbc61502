import ArgumentParser

@main
struct Pipectl: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Turns spreadsheet exports into SQLite stores.")
}
