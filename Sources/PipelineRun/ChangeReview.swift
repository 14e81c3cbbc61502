import Foundation
import Diagnostics
import Pipeline
import ReportsXLSX
import SinksSQLite
import CoreDataFormat
import StoreTools

/// The comparison of a run's new store with the one at its target, for the report's Changes sheet.
/// Taken while both exist: after the new store is complete and checked, before it replaces the old.
enum ChangeReview {
    /// Compares the store at the target (if there is one) with `newStore`. A previous store that
    /// cannot be compared is said in the report; it does not fail the run.
    static func compare(pipeline: PipelineDefinition, newStore: URL) -> Result<StoreChanges, ImportReport.ChangesUnavailable> {
        let target = pipeline.store.path
        let name = DisplayPath.of(target)
        guard FileManager.default.fileExists(atPath: target.path) else {
            return .failure(.init("there was no store at \(name) before this run: every record is new"))
        }
        do {
            let comparison = try StoreComparison(pipeline: pipeline)
            return .success(try comparison.compare(old: target, new: newStore, oldName: name, newName: "the new store"))
        } catch let error as PipelineError {
            return .failure(.init("the store at \(name) could not be compared: \(error.message)"))
        } catch {
            return .failure(.init("the store at \(name) could not be compared: \(error)"))
        }
    }
}
