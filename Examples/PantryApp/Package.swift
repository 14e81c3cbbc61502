// swift-tools-version:6.0
// An app's package that ships a default store made by pipectl, as the plugin runs it:
//   swift package --allow-writing-to-package-directory pipectl run pipelines/pantry.yaml
import PackageDescription

let package = Package(
    name: "PantryApp",
    dependencies: [
        // An app names pipectl's repository and a version; this example uses the checkout it is in.
        .package(name: "pipectl", path: "../.."),
    ],
    targets: [
        // Where the app keeps the store pipectl writes, as a bundled resource.
        .target(name: "PantryData", path: "Sources/PantryData"),
    ]
)
