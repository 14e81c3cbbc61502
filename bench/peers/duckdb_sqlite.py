#!/usr/bin/env python3
"""Peer: the grocery job with DuckDB: read_csv, normalization in SQL, the rows into SQLite:
python duckdb_sqlite.py INPUT.csv OUTPUT.sqlite   (needs `pip install duckdb`)

The SQL trims (space, tab, CR, LF, no-break space), reads decimal commas, turns dd/MM/yyyy at
midnight in Europe/Berlin into seconds since 2001 (the EU summer-time rule written out: from the
last Sunday of March to the last Sunday of October), keeps the first row of each name and numbers
the units and locations those rows name. DuckDB writes them into the SQLite store through its
sqlite extension when it can load it (it is downloaded on first use); without it (offline), the
sqlite3 module inserts DuckDB's result in batches. Prints which way it went to stderr. The plain
layout, as bench/floor.c writes it.
"""
import sqlite3
import sys

import duckdb

WHITESPACE = "' ' || chr(9) || chr(13) || chr(10) || chr(160)"
SCHEMA = """
CREATE TABLE Unit (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE LocationAtHome (id INTEGER PRIMARY KEY, storedIn TEXT);
CREATE TABLE LocationAtShop (id INTEGER PRIMARY KEY, aisle TEXT);
CREATE TABLE Item (id INTEGER PRIMARY KEY, added REAL, collected INTEGER, listed INTEGER, name TEXT, quantity REAL,
    locationAtHome_id INTEGER REFERENCES LocationAtHome(id), locationAtShop_id INTEGER REFERENCES LocationAtShop(id),
    unit_id INTEGER REFERENCES Unit(id));
"""
INDEXES = """
CREATE UNIQUE INDEX Item_name_unique ON Item (name);
CREATE UNIQUE INDEX Unit_name_unique ON Unit (name);
CREATE UNIQUE INDEX LocationAtHome_storedIn_unique ON LocationAtHome (storedIn);
CREATE UNIQUE INDEX LocationAtShop_aisle_unique ON LocationAtShop (aisle);
CREATE INDEX Item_locationAtHome_id_index ON Item (locationAtHome_id);
CREATE INDEX Item_locationAtShop_id_index ON Item (locationAtShop_id);
CREATE INDEX Item_unit_id_index ON Item (unit_id);
"""


def normalize(con, path, delimiter):
    con.execute("""
        CREATE TABLE raw AS SELECT * FROM read_csv(?, delim = ?, quote = '"', escape = '"', header = true,
            all_varchar = true, names = ['name', 'quantity', 'unit', 'home', 'shop', 'added'])""", [path, delimiter])
    trim = lambda column: f"nullif(trim({column}, {WHITESPACE}), '')"
    con.execute(f"""
        CREATE TABLE clean AS
        SELECT rowid AS r, {trim('name')} AS name, trim(quantity, {WHITESPACE}) AS quantity, {trim('unit')} AS unit,
               {trim('home')} AS home, {trim('shop')} AS shop, strptime({trim('added')}, '%d/%m/%Y')::DATE AS day
        FROM raw""")
    # The first row of each name; a later one creates nothing.
    con.execute("""CREATE TABLE kept AS SELECT * FROM clean WHERE name IS NOT NULL
                   QUALIFY row_number() OVER (PARTITION BY name ORDER BY r) = 1""")
    for table, column, key in (("Unit", "name", "unit"), ("LocationAtHome", "storedIn", "home"),
                               ("LocationAtShop", "aisle", "shop")):
        con.execute(f"""CREATE TABLE "{table}" AS SELECT row_number() OVER (ORDER BY min(r)) AS id, {key} AS {column}
                        FROM kept WHERE {key} IS NOT NULL GROUP BY {key}""")
    con.execute("""
        CREATE VIEW items AS
        SELECT row_number() OVER (ORDER BY r) AS id,
               (day - DATE '2001-01-01') * 86400
                 - CASE WHEN day > make_date(year(day), 3, 31) - dayofweek(make_date(year(day), 3, 31))::INTEGER
                         AND day <= make_date(year(day), 10, 31) - dayofweek(make_date(year(day), 10, 31))::INTEGER
                        THEN 7200 ELSE 3600 END AS added,
               0 AS collected, 1 AS listed, kept.name,
               CASE WHEN quantity = '' THEN 1.0 ELSE replace(replace(quantity, '.', ''), ',', '.')::DOUBLE END AS quantity,
               h.id AS locationAtHome_id, s.id AS locationAtShop_id, u.id AS unit_id
        FROM kept LEFT JOIN Unit u ON u.name = kept.unit LEFT JOIN LocationAtHome h ON h.storedIn = kept.home
                  LEFT JOIN LocationAtShop s ON s.aisle = kept.shop
        ORDER BY r""")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: duckdb_sqlite.py INPUT.csv OUTPUT.sqlite")
    path, output = sys.argv[1:]
    with open(path, encoding="utf-8-sig") as f:
        header = f.readline()
    delimiter = ";" if header.count(";") > header.count(",") else ","
    store = sqlite3.connect(output, isolation_level=None)
    store.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = NORMAL;" + SCHEMA)

    con = duckdb.connect()
    try:
        con.execute("LOAD sqlite")  # installed beforehand (compare.sh tries once): no download in the timing
        extension = True
    except duckdb.Error:
        extension = False
    normalize(con, path, delimiter)
    tables = {"Unit": "Unit", "LocationAtHome": "LocationAtHome", "LocationAtShop": "LocationAtShop", "items": "Item"}
    if extension:
        print("duckdb_sqlite.py: DuckDB writes the store (sqlite extension)", file=sys.stderr)
        store.close()
        con.execute("ATTACH ? AS store (TYPE sqlite)", [output])
        con.execute("BEGIN")
        for source, target in tables.items():
            con.execute(f'INSERT INTO store."{target}" SELECT * FROM "{source}"')
        con.execute("COMMIT")
        con.close()
        store = sqlite3.connect(output, isolation_level=None)
        store.executescript("BEGIN;" + INDEXES + "COMMIT;")
    else:
        print("duckdb_sqlite.py: DuckDB's sqlite extension is not installed (offline?): "
              "the sqlite3 module writes DuckDB's result", file=sys.stderr)
        store.execute("BEGIN")
        for source, target in tables.items():
            result = con.execute(f'SELECT * FROM "{source}"')
            insert = f'INSERT INTO "{target}" VALUES ({", ".join("?" * len(result.description))})'
            while batch := result.fetchmany(50000):
                store.executemany(insert, batch)
        store.execute("COMMIT")
        store.executescript("BEGIN;" + INDEXES + "COMMIT;")
    store.close()


if __name__ == "__main__":
    main()
