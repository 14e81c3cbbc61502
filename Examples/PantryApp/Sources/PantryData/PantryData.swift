import Foundation

/// The default data the app ships: `pipelines/pantry.yaml` writes it, the plugin runs it.
public enum PantryData {
    /// The store's file name in the app's bundle.
    public static let storeName = "Pantry.sqlite"
}
