/// The Core Data SQLite store format as pipectl writes it, and how sure we are of each rule.
///
/// The rules come from stores Core Data itself wrote (the test cases in
/// `Tests/SinksSQLiteTests/CoreData/CoreDataCaseFixtures.swift`: Grocery Dude, SurfJournal,
/// CoreDataPlus v1 and v2, BookMigration, CoreDataMigration, Recipes), from Xcode's compiled
/// models, and for a few from Core Data stores seen elsewhere. Where a rule is unconfirmed, the
/// code says so in a comment at the place that relies on it.
///
/// ## Confirmed by the cases
/// - Entity numbers (`Z_ENT`): pre-order over the inheritance forest, roots by name, sub-entities
///   by name (`CoreDataEntityTree`).
/// - Entity version hashes (`CoreDataVersionHashes`): attributes of every type but ObjectID,
///   transient attributes (skipped), external binary storage, preserve-after-deletion, to-one and
///   to-many with inverses, explicit and absent minCount, uniqueness constraints, three-level
///   inheritance. Many-to-many hashes match Xcode's compiled model (no store).
/// - Tables, column types and order, FK, `Z_ENT`, indexed-attribute, fetch and uniqueness indexes,
///   the bookkeeping tables and Z_PRIMARYKEY rows (`CoreDataSchema`), for stores written by
///   frameworks 519 to 1044. Older frameworks (241, 419) created the same statements in another
///   order, and 241 ordered one table's VARCHAR columns differently; Core Data reads by name, so
///   both open.
/// - Z_METADATA's plist keys and types (`CoreDataMetadata`).
///
/// ## Seen in Core Data stores outside the cases (not confirmed by them)
/// - Columns of sibling sub-entities sharing a property name: the later one is numbered
///   (`ZCONTAINER`, `ZCONTAINER1`), and within the INTEGER class each entity's own integer
///   attributes come before its foreign keys (Contacts' and Bear's stores).
/// - The extra `Z<n>_<REL>` column of a to-one into a hierarchy uses the destination's **own**
///   entity number (`Z22_CONTACT` for ABCDContact=22 under ABCDRecord=17). The format notes said
///   "the destination's root number"; both agree when the destination is a root.
/// - Many-to-many join table: `Z_<nA><RELA> ( Z_<nA><RELB> INTEGER, Z_<nB><RELA> INTEGER,
///   PRIMARY KEY (...) )` and `CREATE INDEX <table>_<second>_INDEX ON <table> (second, first)`,
///   where A is the side whose entity name sorts first (Bear's `Z_5TAGS ( Z_5NOTES, Z_13TAGS )`,
///   Photos' `Z_34ASSETS ( Z_34ALBUMS, Z_3ASSETS, Z_FOK_3ASSETS )`): each column pairs one
///   side's entity number with the other side's relationship name. The format notes' shorter
///   description (`Z_<nA><RELA>`, `Z_<nB><RELB>`) pairs them the other way; the stores decide.
///
/// ## Confirmed by the turn-2 cases (bookmarks-ddg, onetoone-wibosco, swiftdata-metacocktails)
/// - Ordered relationships: the to-one side's `Z_FOK_<REL>` column after the foreign keys, order
///   keys 2048, 3072, ... per parent; an ordered many-to-many side's `Z_FOK_<column>` in the join
///   table, the same keys (a test loads bookmarks-ddg's tree and gets its rows).
/// - Many-to-many join tables: between two entities the side whose name sorts first names it
///   (Z_1GARNISH); in a self-referencing pair the relationship whose name sorts last (Z_1FAVORITES).
/// - One-to-one: a foreign key on both sides.
/// - Persistent history (SwiftData turns it on): entities 16001 CHANGE, 16002 TRANSACTION, 16003
///   TRANSACTIONSTRING in Z_PRIMARYKEY, tables `A` + name, not in the version hashes
///   (`historyEntityNumbers`); the same DDL in a second SwiftData store, framework 1345
///   (github.com/sergd2005/ResourcesManager, default.store at bc3d34e).
///
/// ## Unconfirmed: the format's rule is followed
/// - Version hash modifiers on entities, appended to the hashed bytes.
/// - `DECIMAL` and `URI` columns (typed DECIMAL and VARCHAR, in the REAL and VARCHAR classes).
/// - Fetch indexes of several entities: each entity's fetch indexes, then its uniqueness
///   constraints, entity by entity, after every table's own indexes.
///
/// ## Refused
/// - Derived attributes: Core Data maintains them with triggers calling functions only it
///   defines, so a generated store could not keep them right.
/// - To-many relationships without an inverse, and R-tree fetch index elements.
public enum CoreDataStoreFormat {
    /// Entity numbers Core Data keeps for its own entities (persistent history), above any a
    /// model's entities get.
    public static let historyEntityNumbers: ClosedRange<Int64> = 16001...16999
}
