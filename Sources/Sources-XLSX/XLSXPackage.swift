import Foundation
import Diagnostics
import Pipeline
import ZIPFoundation

/// The workbook's zip archive as the Open Packaging Conventions read it: parts found by name
/// without regard to case, and through relationships rather than at fixed paths.
///
/// Excel writes `xl/workbook.xml`, `xl/sharedStrings.xml` and `xl/styles.xml`, but the format
/// only promises what `_rels/.rels` and the workbook's relationships say; other writers put the
/// workbook at the root, spell `SharedStrings.xml` with a capital, or (Windows tools) separate
/// folders with `\`. Excel opens all of those, so pipectl reads them too.
struct XLSXPackage {
    let archive: Archive
    let url: URL
    let displayPath: String
    /// Where each part's local header starts (`ZipPart`), by the name the archive stores.
    let headers: [String: UInt64]
    /// The stored name of each part, by its name as OPC compares them (`key(_:)`).
    let names: [String: String]

    static let officeDocument = "/officeDocument"
    static let worksheet = "/worksheet"
    static let sharedStrings = "/sharedStrings"
    static let styles = "/styles"

    init(archive: Archive, url: URL, displayPath: String) {
        self.archive = archive
        self.url = url
        self.displayPath = displayPath
        headers = (try? ZipPart.localHeaders(of: url)) ?? [:]
        var names: [String: String] = [:]
        for entry in archive where names[Self.key(entry.path)] == nil {
            names[Self.key(entry.path)] = entry.path
        }
        self.names = names
    }

    /// A part name as OPC compares them: without case, `\` as `/`, no leading `/`.
    static func key(_ name: String) -> String {
        var key = name.replacingOccurrences(of: "\\", with: "/").lowercased()
        while key.hasPrefix("/") { key.removeFirst() }
        return key
    }

    func contains(_ path: String) -> Bool {
        names[Self.key(path)] != nil
    }

    /// A part, ready to be unpacked on any thread.
    func part(_ path: String) throws -> ZipPart {
        guard let stored = names[Self.key(path)], let entry = archive[stored] else {
            throw XLSXWorkbook.failure(displayPath, .xlsxMissingPart, "the workbook has no part '\(path)'")
        }
        guard let header = headers[stored] else {
            throw XLSXWorkbook.failure(displayPath, .xlsxMissingPart,
                                       "the part '\(path)' is missing from the archive's directory: is the workbook damaged?")
        }
        return try ZipPart(entry: entry, headerOffset: header, in: url, displayPath: displayPath)
    }

    /// A small part's bytes, within the limits.
    func read(_ path: String) throws -> Data {
        var data = Data()
        try part(path).unpack(from: url, displayPath: displayPath) { data.append($0) }
        return data
    }

    struct Element {
        var name: String
        var attributes: [String: String]
    }

    /// The elements of a small part (the workbook, its relationships, the styles), in document
    /// order, with their attributes (`PartParser`: no DOCTYPE, within the budget).
    func parse(_ path: String, countingSheets: Bool = false) throws -> [Element] {
        try PartParser.elements(of: read(path), part: path, displayPath: displayPath, countingSheets: countingSheets)
    }

    struct Relationship {
        var id: String
        var type: String
        /// The part it names, resolved against the folder of the part that names it.
        var path: String
    }

    /// The relationships of `source` (`""`: the package's own), from `<folder>/_rels/<name>.rels`;
    /// none when it has no such part. External targets (hyperlinks) are left out; a target that
    /// leaves the archive is an error.
    func relationships(of source: String) throws -> [Relationship] {
        let slash = source.lastIndex(of: "/")
        let folder = slash.map { String(source[..<$0]) } ?? ""
        let name = slash.map { String(source[source.index(after: $0)...]) } ?? source
        let rels = (folder.isEmpty ? "" : folder + "/") + "_rels/" + name + ".rels"
        guard contains(rels) else { return [] }
        return try parse(rels).compactMap { element in
            guard element.name == "Relationship", element.attributes["TargetMode"] != "External",
                  let id = element.attributes["Id"], let type = element.attributes["Type"],
                  let target = element.attributes["Target"] else { return nil }
            return Relationship(id: id, type: type, path: try resolve(target, in: folder))
        }
    }

    /// `target` as a part name: from the root when it starts with `/`, else from `folder`.
    func resolve(_ target: String, in folder: String) throws -> String {
        let target = target.replacingOccurrences(of: "\\", with: "/")
        let joined = target.hasPrefix("/") ? String(target.drop { $0 == "/" }) : (folder.isEmpty ? target : folder + "/" + target)
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                guard !parts.isEmpty else {
                    throw XLSXWorkbook.failure(displayPath, .xlsxPartOutsideArchive, "the part '\(joined)' points outside the archive")
                }
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }
}
