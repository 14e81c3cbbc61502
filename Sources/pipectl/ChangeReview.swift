import Foundation
import Diagnostics
import Pipeline
import ReportsXLSX
import SinksSQLite
import CoreDataFormat
import StoreTools

/// The comparison of a run's new store with the one at its target, for the report's Changes sheet.
/// Taken while both exist: after the new store is complete and checked, before it replaces the old.
final class ChangeReview {
    private(set) var result: Result<StoreChanges, ImportReport.ChangesUnavailable> =
        .failure(.init("the run failed before its new store was complete"))
    private let pipeline: PipelineDefinition

    init(pipeline: PipelineDefinition) {
        self.pipeline = pipeline
    }

    /// Compares the store at the target (if there is one) with `newStore`. A previous store that
    /// cannot be compared is said in the report; it does not fail the run.
    func review(_ newStore: URL) {
        let target = pipeline.store.path
        let name = Terminal.display(target)
        guard FileManager.default.fileExists(atPath: target.path) else {
            result = .failure(.init("there was no store at \(name) before this run: every record is new"))
            return
        }
        do {
            let comparison = try StoreComparison(model: pipeline.model, settings: pipeline.store)
            result = .success(try comparison.compare(old: target, new: newStore, oldName: name, newName: "the new store"))
        } catch let error as PipelineError {
            result = .failure(.init("the store at \(name) could not be compared: \(error.message)"))
        } catch {
            result = .failure(.init("the store at \(name) could not be compared: \(error)"))
        }
    }
}
