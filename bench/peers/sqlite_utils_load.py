#!/usr/bin/env python3
"""Peer: the grocery job with sqlite-utils, as its documentation suggests: `Table.lookup()` finds
or creates each unit and location, `Table.insert()` adds each item:
python sqlite_utils_load.py INPUT.csv OUTPUT.sqlite   (needs `pip install sqlite-utils`)

The values are cleaned as in python_sqlite3.py (the same rules as pipectl); the first row of a
name wins and a later one creates nothing (checked before the lookups, so that it does not). Each
call is its own transaction, as the library does it; that is what makes it slow, so compare.sh
runs it on 100k rows only. The plain layout, as bench/floor.c writes it.
"""
import csv
import sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import sqlite_utils

BERLIN = ZoneInfo("Europe/Berlin")
EPOCH_2001 = datetime(2001, 1, 1, tzinfo=timezone.utc).timestamp()
WHITESPACE = " \t\r\n\u00a0"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: sqlite_utils_load.py INPUT.csv OUTPUT.sqlite")
    db = sqlite_utils.Database(sys.argv[2])
    # No journal and no sync per commit: a store that can be rebuilt needs neither (and with a sync per
    # row, it takes minutes).
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    units, homes, shops = db["Unit"], db["LocationAtHome"], db["LocationAtShop"]
    for table, column in ((units, "name"), (homes, "storedIn"), (shops, "aisle")):
        table.create({"id": int, column: str}, pk="id")
        table.create_index([column], unique=True)
    items = db["Item"]
    items.create({"id": int, "added": float, "collected": int, "listed": int, "name": str, "quantity": float,
                  "locationAtHome_id": int, "locationAtShop_id": int, "unit_id": int}, pk="id",
                 foreign_keys=[("locationAtHome_id", "LocationAtHome", "id"),
                               ("locationAtShop_id", "LocationAtShop", "id"), ("unit_id", "Unit", "id")])
    seen = set()
    with open(sys.argv[1], encoding="utf-8-sig", newline="") as f:
        header = f.readline()
        delimiter = ";" if header.count(";") > header.count(",") else ","
        for row in csv.reader(f, delimiter=delimiter):
            if len(row) != 6:
                continue
            name, quantity, unit, home, shop, added = (v.strip(WHITESPACE) for v in row)
            quantity = float(quantity.replace(".", "").replace(",", ".")) if quantity else 1.0
            if added:
                day, month, year = map(int, added.split("/"))
                added = datetime(year, month, day, tzinfo=BERLIN).timestamp() - EPOCH_2001
            if not name or name in seen:
                continue
            seen.add(name)
            items.insert({"added": added if added != "" else None, "collected": 0, "listed": 1, "name": name,
                          "quantity": quantity,
                          "locationAtHome_id": homes.lookup({"storedIn": home}) if home else None,
                          "locationAtShop_id": shops.lookup({"aisle": shop}) if shop else None,
                          "unit_id": units.lookup({"name": unit}) if unit else None})
    items.create_index(["name"], unique=True)
    for column in ("locationAtHome_id", "locationAtShop_id", "unit_id"):
        items.create_index([column])


if __name__ == "__main__":
    main()
