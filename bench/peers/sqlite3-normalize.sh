#!/usr/bin/env bash
# Peer: the grocery job with the sqlite3 shell alone: `.import` into a scratch database, then SQL
# that trims (space, tab, CR, LF, no-break space), reads decimal commas, turns dd/MM/yyyy at
# midnight in Europe/Berlin into seconds since 2001 (the EU summer-time rule written out in SQL:
# from the last Sunday of March to the last Sunday of October), keeps the first row of each name,
# creates the units and locations those rows name and writes the plain layout (see bench/floor.c).
# Usage: sqlite3-normalize.sh INPUT.csv OUTPUT.sqlite
set -euo pipefail
input=$1 output=$2
delimiter=';'; head -1 "$input" | grep -q ';' || delimiter=','
rm -f "$output"
sqlite3 -bail "$output" >/dev/null <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = NORMAL;
ATTACH '' AS work;  -- a scratch database in a temporary file, gone on close
CREATE TABLE work.raw (name TEXT, quantity TEXT, unit TEXT, home TEXT, shop TEXT, added TEXT);
.mode csv
.separator "$delimiter"
.import --skip 1 --schema work '$input' raw
BEGIN;
CREATE TABLE Unit (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE LocationAtHome (id INTEGER PRIMARY KEY, storedIn TEXT);
CREATE TABLE LocationAtShop (id INTEGER PRIMARY KEY, aisle TEXT);
CREATE TABLE Item (id INTEGER PRIMARY KEY, added REAL, collected INTEGER, listed INTEGER, name TEXT, quantity REAL,
    locationAtHome_id INTEGER REFERENCES LocationAtHome(id), locationAtShop_id INTEGER REFERENCES LocationAtShop(id),
    unit_id INTEGER REFERENCES Unit(id));
CREATE TABLE work.clean AS
    SELECT rowid AS r, nullif(trim(name, char(32, 9, 13, 10, 160)), '') AS name,
           trim(quantity, char(32, 9, 13, 10, 160)) AS quantity,
           nullif(trim(unit, char(32, 9, 13, 10, 160)), '') AS unit,
           nullif(trim(home, char(32, 9, 13, 10, 160)), '') AS home,
           nullif(trim(shop, char(32, 9, 13, 10, 160)), '') AS shop,
           nullif(trim(added, char(32, 9, 13, 10, 160)), '') AS added
    FROM work.raw;
-- The first row of each name; a later one creates nothing.
CREATE TABLE work.kept AS
    SELECT * FROM work.clean WHERE r IN (SELECT min(r) FROM work.clean WHERE name IS NOT NULL GROUP BY name);
INSERT INTO Unit (name) SELECT unit FROM work.kept WHERE unit IS NOT NULL GROUP BY unit ORDER BY min(r);
INSERT INTO LocationAtHome (storedIn) SELECT home FROM work.kept WHERE home IS NOT NULL GROUP BY home ORDER BY min(r);
INSERT INTO LocationAtShop (aisle) SELECT shop FROM work.kept WHERE shop IS NOT NULL GROUP BY shop ORDER BY min(r);
CREATE UNIQUE INDEX Unit_name_unique ON Unit (name);
CREATE UNIQUE INDEX LocationAtHome_storedIn_unique ON LocationAtHome (storedIn);
CREATE UNIQUE INDEX LocationAtShop_aisle_unique ON LocationAtShop (aisle);
INSERT INTO Item (added, collected, listed, name, quantity, locationAtHome_id, locationAtShop_id, unit_id)
    SELECT CASE WHEN iso IS NULL THEN NULL
                ELSE round((julianday(iso) - julianday('2001-01-01')) * 86400)
                     - CASE WHEN iso > date(substr(iso, 1, 4) || '-03-31', '-6 days', 'weekday 0')
                             AND iso <= date(substr(iso, 1, 4) || '-10-31', '-6 days', 'weekday 0')
                            THEN 7200 ELSE 3600 END
           END,
           0, 1, name,
           CASE WHEN quantity = '' THEN 1.0 ELSE CAST(replace(replace(quantity, '.', ''), ',', '.') AS REAL) END,
           (SELECT id FROM LocationAtHome WHERE storedIn = home), (SELECT id FROM LocationAtShop WHERE aisle = shop),
           (SELECT id FROM Unit WHERE Unit.name = kept.unit)
    FROM (SELECT *, substr(added, 7, 4) || '-' || substr(added, 4, 2) || '-' || substr(added, 1, 2) AS iso
          FROM work.kept ORDER BY r) AS kept;
CREATE UNIQUE INDEX Item_name_unique ON Item (name);
CREATE INDEX Item_locationAtHome_id_index ON Item (locationAtHome_id);
CREATE INDEX Item_locationAtShop_id_index ON Item (locationAtShop_id);
CREATE INDEX Item_unit_id_index ON Item (unit_id);
COMMIT;
SQL
