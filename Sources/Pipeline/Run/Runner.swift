import Foundation

/// Runs a pipeline: streams each source's records through its transforms into the sink, one at a
/// time, and logs what happened to each.
public final class Runner {
    public let pipeline: PipelineDefinition
    /// Counts and details of the run so far; complete once `run` returns (or throws).
    public let log: ImportLog
    /// Wall-clock seconds spent per source (reading, transforming and writing), then finishing.
    public private(set) var durations: [(stage: String, seconds: Double)] = []
    /// Called now and then with the source index and the bytes it has read, for progress lines.
    public var progress: ((_ source: Int, _ bytesRead: Int64) -> Void)?

    public init(pipeline: PipelineDefinition) {
        self.pipeline = pipeline
        self.log = ImportLog(sourceNames: pipeline.sources.map(\.name),
                             entityNames: pipeline.model.entities.map(\.name))
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
                durations.append((source.name, Runner.seconds(since: started)))
            }
            if pipeline.onReject == .fail, !log.rejections.isEmpty {
                let first = log.rejections[0]
                throw PipelineError(.rejected, at: first.location, stage: first.stage,
                                    "\(log.rejections.count) record(s) rejected and the pipeline says on_reject: fail; first: "
                                        + first.description.dropPrefix("\(first.location): rejected: \(first.stage): "))
            }
            let started = DispatchTime.now()
            try sink.finish(log: log, publish: !dryRun)
            durations.append(("finish", Runner.seconds(since: started)))
        } catch {
            sink.discard()
            throw error
        }
    }

    private func runSource(_ source: SourceDefinition, into sink: any RecordSink) throws {
        let neededFields = Runner.fieldsUsed(by: source.loads)
        let reader = try source.reader.kind.makeReader(input: source.reader.input, options: source.reader.options,
                                                       fields: neededFields)
        var fields = reader.fieldNames
        let steps = try source.transforms.map { try $0.make() }
        for step in steps { fields = try step.bind(fields: fields) }
        var fieldIndex: [String: Int] = [:]
        for (i, name) in fields.enumerated() where fieldIndex[name] == nil { fieldIndex[name] = i }
        let loads = try source.loads.map {
            try LoadBinding($0, model: pipeline.model, fields: fields, fieldIndex: fieldIndex, source: source.name)
        }

        // Filled again for every record: the sink reads them and keeps none.
        var entityRecords = loads.map { $0.emptyRecord(at: Location(file: source.reader.input.displayPath)) }
        var count = 0, read = 0
        while true {
            var next: Record?
            do {
                next = try reader.next()
            } catch let rejection as Rejection {
                log.recordRead()
                log.reject(rejection)
                read += 1
                continue
            }
            // Moved out, not copied: the transforms then change the values array in place.
            guard var record = next.take() else { break }
            read += 1
            log.recordRead()
            count += 1
            if count & 0x3FFF == 0 { progress?(log.currentSource, reader.bytesRead) }
            do {
                for step in steps { try step.apply(&record) }
                // Convert every entity's values before writing any, so a record is loaded whole or not at all.
                for k in loads.indices {
                    do { try loads[k].fill(&entityRecords[k], from: record) } catch let rejection as Rejection {
                        log.countRejected(entity: loads[k].entity)
                        throw rejection
                    }
                }
                for entityRecord in entityRecords {
                    do { try sink.write(entityRecord, onDuplicate: source.onDuplicate, log: log) } catch let rejection as Rejection {
                        log.countRejected(entity: entityRecord.entity)
                        throw rejection
                    }
                }
            } catch let rejection as Rejection {
                log.reject(rejection)
            }
        }
        progress?(log.currentSource, reader.bytesRead)
        // A header-only export, an empty array: most likely a wrong file or a failed export, and
        // the new store would silently lose every record of this source.
        if read == 0 {
            throw PipelineError(.invalidInput, at: Location(file: source.reader.input.displayPath, line: 1),
                                stage: source.reader.kind.name,
                                "the file holds no records; the new store would have none from source '\(source.name)' "
                                    + "(is it the right file, or did the export fail?)")
        }
    }

    /// Field names the loads read, in first-use order.
    static func fieldsUsed(by loads: [LoadSpec]) -> [String] {
        var seen = Set<String>(), ordered: [String] = []
        func visit(_ load: LoadSpec) {
            for a in load.assignments where seen.insert(a.field).inserted { ordered.append(a.field) }
            for link in load.links { visit(link.target) }
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
