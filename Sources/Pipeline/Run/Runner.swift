import Foundation
import Diagnostics

/// Runs a pipeline: streams each source's records through its transforms into the sink, and logs
/// what happened to each. Reading and transforming run on a thread of their own (`RecordFeed`)
/// beside the writing, in the same order.
public final class Runner {
    public let pipeline: PipelineDefinition
    /// Counts and details of the run so far; complete once `run` returns (or throws).
    public let log: ImportLog
    /// Wall-clock seconds spent per source (reading, transforming and writing), then finishing.
    /// While the sink finishes, `finish` is the time so far: reports written then, before the
    /// store is put in place, show the finish up to that moment.
    public var durations: [(stage: String, seconds: Double)] {
        guard let finishStarted else { return done }
        return done + [("finish", Runner.seconds(since: finishStarted))]
    }
    private var done: [(stage: String, seconds: Double)] = []
    private var finishStarted: DispatchTime?
    /// Called now and then with the source index and the bytes it has read, for progress lines.
    public var progress: ((_ source: Int, _ bytesRead: Int64) -> Void)?
    /// Called once every record is written, as the sink finishes the store: its indexes and
    /// checks take about as long again as the writing, for progress lines to say so.
    public var finishing: (() -> Void)?

    public init(pipeline: PipelineDefinition) {
        self.pipeline = pipeline
        // The store's folder has room for what the store holds; before the first run (or in a
        // dry run, which creates nothing) it may not exist yet.
        let folder = pipeline.store.path.deletingLastPathComponent()
        self.log = ImportLog(sourceNames: pipeline.sources.map(\.name),
                             entityNames: pipeline.model.entities.map(\.name),
                             temporaryDirectory: FileManager.default.fileExists(atPath: folder.path) ? folder : FileManager.default.temporaryDirectory)
    }

    /// Runs every source into `sink` and finishes it; with `dryRun`, everything is read, written
    /// aside and checked, then thrown away.
    ///
    /// A fatal error (or rejected records under `on_reject: fail`) discards the sink's work and
    /// throws: whatever was in place before stays untouched.
    public func run(into sink: any RecordSink, dryRun: Bool = false) throws {
        do {
            for (index, source) in pipeline.sources.enumerated() {
                let started = DispatchTime.now()
                log.currentSource = index
                try runSource(source, into: sink)
                done.append((source.name, Runner.seconds(since: started)))
            }
            if pipeline.onReject == .fail, !log.rejections.isEmpty {
                let first = log.rejections[0]
                throw PipelineError(.rejected, code: .runRejected, at: first.location, stage: first.stage,
                                    "\(log.rejections.count) record(s) rejected and the pipeline says on_reject: fail; first: "
                                        + first.description.dropPrefix("\(first.location): rejected: \(first.stage): "))
            }
            // After the rejections: records rejected whole may be why a field never came.
            if pipeline.onReject == .fail, let missing = log.missingFields.first {
                throw PipelineError(.invalidPipeline, code: .runMissingField, at: missing.location, stage: "pipeline",
                                    missing.message + ", and the pipeline says on_reject: fail")
            }
            try checkEverySourceGaveRecords(into: sink)
            let started = DispatchTime.now()
            finishStarted = started
            defer { finishStarted = nil }
            finishing?()
            try sink.finish(log: log, publish: !dryRun)
            done.append(("finish", Runner.seconds(since: started)))
        } catch {
            sink.discard()
            throw error
        }
    }

    /// A source that gave the store nothing (every record rejected, skipped or filtered: an
    /// export with the wrong columns, a broken transform, a filter with a typo) would replace a
    /// store that holds its records with one that silently lacks them; on a first run, one whose
    /// records were all rejected would write an empty store that looks like success.
    private func checkEverySourceGaveRecords(into sink: any RecordSink) throws {
        guard !pipeline.allowEmpty else { return }
        var previousHasRecords: Bool?
        for (index, counts) in log.sources.enumerated()
        where counts.loaded == 0 && counts.rejected + counts.skipped + counts.filtered > 0 {
            if previousHasRecords == nil { previousHasRecords = try sink.previousOutputHasRecords() }
            let replacing = previousHasRecords == true
            guard replacing || counts.rejected > 0 else { continue }
            let source = pipeline.sources[index]
            let lost = [counts.rejected > 0 ? "\(counts.rejected) rejected" : nil, counts.skipped > 0 ? "\(counts.skipped) skipped" : nil,
                        counts.filtered > 0 ? "\(counts.filtered) filtered" : nil]
                .compactMap { $0 }.joined(separator: ", ")
            throw PipelineError(counts.rejected > 0 ? .rejected : .invalidInput, code: .runSourceGaveNoRecords,
                                at: source.location, stage: "pipeline",
                                "source '\(source.name)' gave the store no record (\(counts.read) read: \(lost))"
                                    + (replacing ? ", and the store it would replace holds records: the store was left as it was. "
                                                   + "Fix the input, or say allow_empty: true in the pipeline to let such a run replace it"
                                               : ": no store was written, as one without them would look like a success. Fix the input "
                                                   + "(the warnings name each rejection), or say allow_empty: true in the pipeline to write it"))
        }
    }

    /// How many records ahead the sink is told of one (`PrefetchingSink.prefetch`): a record takes
    /// microseconds to write, a cache miss a fraction of one, so a few ahead is soon enough.
    static let prefetchDistance = 4

    private func runSource(_ source: SourceDefinition, into sink: any RecordSink) throws {
        let (neededFields, expected) = Runner.fieldsNeeded(by: source)
        let reader = try source.reader.kind.makeReader(input: source.reader.input, options: source.reader.options,
                                                       fields: neededFields)
        if pipeline.onReject == .fail, let rejecting = reader as? any RejectingReader { rejecting.rejectInsteadOfWarning() }
        var fields = reader.fieldNames
        var steps = try source.transforms.map { try $0.make() }
        for step in steps { fields = try step.bind(fields: fields) }
        // A leading trim is done by the reader where it can: as it makes the values, not after.
        if let trim = steps.first as? any TrimmingStep, let trimming = reader as? any TrimmingReader,
           trimming.trimWhileReading(fields: trim.fieldIndexes) {
            steps.removeFirst()
        }
        var fieldIndex: [String: Int] = [:]
        for (i, name) in fields.enumerated() where fieldIndex[name] == nil { fieldIndex[name] = i }
        let loads = try source.loads.map {
            try LoadBinding($0, model: pipeline.model, fields: fields, fieldIndex: fieldIndex, source: source.name)
        }

        // A field of a tree input that no record has: a typo (`prep_minutes` for `prepMinutes`)
        // would load the default into every record, without a word.
        let watched = source.reader.kind.picksFieldsByName
            ? reader.fieldNames.indices.filter { expected[reader.fieldNames[$0]] != nil } : []
        let emptyInput = reader.whereRecordsBegin ?? Location(file: source.reader.input.displayPath, line: 1)
        let feed = RecordFeed(reader: reader, steps: steps, loads: loads,
                              location: Location(file: source.reader.input.displayPath), watch: watched)
        feed.start()
        defer { feed.stop() }
        let prefetching = sink as? any PrefetchingSink
        // Only a source that loads files weighs its records: the others pay nothing.
        let binaries: [[(slot: Int, name: String)]] = steps.contains(where: { $0 is any ByteLoadingStep })
            ? pipeline.model.entities.map { entity in
                pipeline.model.allAttributes(of: entity.name).enumerated()
                    .filter { $0.element.type == .binary }.map { ($0.offset, "\(entity.name).\($0.element.name)") }
            }
            : []
        var weighed: [(name: String, bytes: Int)] = []
        var read = 0, reported = 0
        while true {
            var batch = feed.take()
            for i in 0..<batch.count {
                let ahead = i + Runner.prefetchDistance
                if let prefetching, ahead < batch.count, batch.items[ahead].isLoadable, !batch.items[ahead].records.isEmpty {
                    prefetching.prefetch(&batch.items[ahead].records[0])
                }
                read += 1
                log.recordRead()
                if let filtered = batch.items[i].filtered {
                    log.filter(filtered)
                    continue
                }
                if let rejection = batch.items[i].rejection {
                    if let entity = batch.items[i].rejectedEntity { log.countRejected(entity: entity) }
                    log.reject(rejection)
                    continue
                }
                // Several entities of one source record: all checked before the first is written,
                // so that a rejection leaves nothing of the record behind.
                if batch.items[i].records.count > 1, let (k, rejection) = check(&batch.items[i].records, in: sink) {
                    log.countRejected(entity: batch.items[i].records[k].entity)
                    log.reject(rejection)
                    continue
                }
                var loaded = false
                if !binaries.isEmpty { weighed = Runner.binaryValues(in: batch.items[i].records, slots: binaries) }
                for k in batch.items[i].records.indices {
                    do {
                        // In place (see RecordSink.write): no copy of the record.
                        if try sink.write(&batch.items[i].records[k], onDuplicate: source.onDuplicate, log: log) { loaded = true }
                    } catch let rejection as Rejection {
                        log.countRejected(entity: batch.items[i].records[k].entity)
                        log.reject(rejection)
                        loaded = false
                        break
                    }
                }
                if loaded {
                    log.recordLoaded()
                    for (name, bytes) in weighed { log.countBytes(bytes, into: name) }
                }
            }
            if let error = batch.error { throw error }
            if batch.isLast || read - reported >= 0x4000 {
                progress?(log.currentSource, batch.bytesRead)
                reported = read
            }
            if batch.isLast {
                let candidates = batch.neverSeen.isEmpty ? []
                    : source.reader.kind.namesInInput(source.reader.input, options: source.reader.options)
                for index in batch.neverSeen {
                    // `unit.nmae`: the closest name for its last part, under the same path.
                    let name = reader.fieldNames[index]
                    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
                    let last = String(parts.last ?? "")
                    let prefix = parts.dropLast().map { $0 + "." }.joined()
                    let suggestion = Suggestion.closest(to: last, in: candidates.filter { $0 != last }).map { prefix + $0 }
                    log.fieldNeverCame(ImportLog.MissingField(source: source.name, field: name, location: expected[name] ?? nil,
                                                              suggestion: suggestion))
                }
                break
            }
            feed.giveBack(batch)
        }
        for case let step as any ByteLoadingStep in steps where !step.loadedDigest.isEmpty { log.loadedDigests.append(step.loadedDigest) }
        // A header-only export, an empty array: most likely a wrong file or a failed export, and
        // the new store would silently lose every record of this source.
        if read == 0 {
            throw PipelineError(.invalidInput, code: .inputNoRecords, at: emptyInput, stage: source.reader.kind.name,
                                "the file holds no records; the new store would have none from source '\(source.name)' "
                                    + "(is it the right file, or did the export fail?)")
        }
    }

    /// The Binary values of `records` (weighed before the sink takes them): attribute and size.
    static func binaryValues(in records: [EntityRecord], slots: [[(slot: Int, name: String)]]) -> [(name: String, bytes: Int)] {
        var found: [(name: String, bytes: Int)] = []
        for record in records {
            for (slot, name) in slots[record.entity] where slot < record.values.count {
                if case .binary(let bytes)? = record.values[slot] { found.append((name, bytes.count)) }
            }
        }
        return found
    }

    /// The first of `records` the sink would reject, with why; nil when none would.
    private func check(_ records: inout [EntityRecord], in sink: any RecordSink) -> (Int, Rejection)? {
        for k in records.indices {
            do {
                try sink.check(&records, at: k)
            } catch let rejection as Rejection {
                return (k, rejection)
            } catch {
                continue  // not a rejection: writing the record throws it where it belongs
            }
        }
        return nil
    }

    /// The fields a source's reader must give, in first-use order (the steps', then the loads'),
    /// less those a step makes before they are read; and, of these, the ones the input itself
    /// must provide, with where the pipeline file names each.
    static func fieldsNeeded(by source: SourceDefinition) -> (fields: [String], expected: [String: Location?]) {
        var fields: [String] = [], made = Set<String>(), seen = Set<String>()
        var expected: [String: Location?] = [:]
        for step in source.transforms {
            for name in step.kind.fieldsRead(step.node) where !made.contains(name) && seen.insert(name).inserted {
                fields.append(name)
                expected[name] = step.node.location
            }
            made.formUnion(step.kind.fieldsMade(step.node))
        }
        // Inside an `each:` link, names are read from the list's elements first: the record need not
        // give them, so none is expected of the input (the elements' own fields are not checked yet).
        func visit(_ load: LoadSpec, inElements: Bool) {
            // A link's position is the element's place in its list, which no input gives.
            for a in load.assignments where a.constant == nil && !made.contains(a.field) && a.field != LoadSpec.Link.positionField {
                if seen.insert(a.field).inserted { fields.append(a.field) }
                if !inElements, expected[a.field] == nil { expected[a.field] = a.location }
            }
            for link in load.links {
                if let each = link.each, !made.contains(each), seen.insert(each).inserted {
                    fields.append(each)
                    if !inElements { expected[each] = link.location }
                }
                visit(link.target, inElements: inElements || link.each != nil)
            }
        }
        for load in source.loads { visit(load, inElements: false) }
        // What a step reads but also makes where missing (`default`) is no one's to provide.
        for name in made { expected[name] = nil }
        return (fields, expected)
    }

    /// Field names the loads read, in first-use order.
    static func fieldsUsed(by loads: [LoadSpec]) -> [String] {
        var seen = Set<String>(), ordered: [String] = []
        func visit(_ load: LoadSpec) {
            for a in load.assignments where a.constant == nil && seen.insert(a.field).inserted { ordered.append(a.field) }
            for link in load.links {
                if let each = link.each, seen.insert(each).inserted { ordered.append(each) }
                visit(link.target)
            }
        }
        loads.forEach(visit)
        return ordered
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

extension String {
    func dropPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
