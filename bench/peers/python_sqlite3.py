#!/usr/bin/env python3
"""Peer: the grocery job as a Python script with the standard library's sqlite3, the way one
would write it by hand: python3 python_sqlite3.py FORMAT INPUT OUTPUT.sqlite

FORMAT: csv (the csv module; ';' or ',' between fields, found from the header line), xml (lxml's
iterparse, clearing each element: streamed), json (json.load of the whole array: the usual way,
and its memory). Writes the plain layout (see bench/floor.c) with pipectl's rules: trim, decimal
comma, dd/MM/yyyy in Europe/Berlin as seconds since 2001, the first row of a name wins and a
later one creates nothing, an empty link key leaves the link NULL.
"""
import sqlite3
import sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

BERLIN = ZoneInfo("Europe/Berlin")
EPOCH_2001 = datetime(2001, 1, 1, tzinfo=timezone.utc).timestamp()
FIELDS = ("name", "quantity", "unit", "locationathome", "locationatshop", "added")
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
WHITESPACE = " \t\r\n\u00a0"


def rows_csv(path):
    import csv
    with open(path, encoding="utf-8-sig", newline="") as f:
        header = f.readline()
        delimiter = ";" if header.count(";") > header.count(",") else ","
        for row in csv.reader(f, delimiter=delimiter):
            yield row


def rows_xml(path):
    from lxml import etree
    for _, element in etree.iterparse(path, tag="item"):
        yield [element.get(k, "") for k in FIELDS]
        element.clear(keep_tail=False)
        while element.getprevious() is not None:
            del element.getparent()[0]


def rows_json(path):
    import json
    with open(path, encoding="utf-8") as f:
        for record in json.load(f):
            yield [record.get(k, "") for k in FIELDS]


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("csv", "xml", "json"):
        sys.exit("usage: python_sqlite3.py csv|xml|json INPUT OUTPUT.sqlite")
    read = {"csv": rows_csv, "xml": rows_xml, "json": rows_json}[sys.argv[1]]
    db = sqlite3.connect(sys.argv[3], isolation_level=None)
    db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = NORMAL; BEGIN;" + SCHEMA)
    items, links = set(), {"Unit": {}, "LocationAtHome": {}, "LocationAtShop": {}}
    insert_link = {table: f"INSERT INTO {table} VALUES (?, ?)" for table in links}

    def find_or_create(table, key):
        if not key:
            return None
        ids = links[table]
        found = ids.get(key)
        if found is None:
            found = ids[key] = len(ids) + 1
            db.execute(insert_link[table], (found, key))
        return found

    dates = {}  # a few thousand distinct days: convert each once
    insert_item = db.cursor()
    next_id = 0
    for row in read(sys.argv[2]):
        if len(row) != 6:
            continue
        name, quantity, unit, home, shop, added = (v.strip(WHITESPACE) for v in row)
        quantity = float(quantity.replace(".", "").replace(",", ".")) if quantity else 1.0
        if added and added not in dates:
            day, month, year = map(int, added.split("/"))
            dates[added] = datetime(year, month, day, tzinfo=BERLIN).timestamp() - EPOCH_2001
        if not name or name in items:
            continue
        items.add(name)
        next_id += 1
        insert_item.execute("INSERT INTO Item VALUES (?, ?, 0, 1, ?, ?, ?, ?, ?)",
                            (next_id, dates.get(added), name, quantity, find_or_create("LocationAtHome", home),
                             find_or_create("LocationAtShop", shop), find_or_create("Unit", unit)))
    db.execute("COMMIT")
    db.executescript("BEGIN;" + INDEXES + "COMMIT;")
    db.close()


if __name__ == "__main__":
    main()
