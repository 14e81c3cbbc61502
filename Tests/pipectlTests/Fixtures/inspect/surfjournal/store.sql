-- The SurfJournal sample's seed store as Core Data wrote it (framework 519), restated: its
-- settings, schema and Z_PRIMARYKEY, and its 5000 journal entries (values made up). It was
-- committed in journal mode WAL. The test adds Z_METADATA's row, whose plist it builds.
PRAGMA auto_vacuum = 2;
PRAGMA page_size = 4096;
CREATE TABLE ZJOURNALENTRY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZRATING INTEGER, ZDATE TIMESTAMP, ZHEIGHT VARCHAR, ZLOCATION VARCHAR, ZPERIOD VARCHAR, ZWIND VARCHAR );
CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);

INSERT INTO Z_PRIMARYKEY VALUES (1, 'JournalEntry', 0, 5000);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
INSERT INTO ZJOURNALENTRY SELECT i, 1, 1, i % 5 + 1, 120000000.0 + i * 53711.5, (i % 90) / 10.0,
    'beach ' || (i % 7), i % 15, (i % 140) / 10.0 FROM n;
PRAGMA journal_mode = WAL;
