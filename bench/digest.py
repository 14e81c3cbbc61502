#!/usr/bin/env python3
"""The digest of a grocery store's content, the same for every tool that did the same job:
python3 bench/digest.py STORE.sqlite

Reads the store through its own tables: the Core Data layout pipectl writes (ZITEM, ZUNIT,
ZLOCATION with Z_ENT for LocationAtHome and LocationAtShop) or the plain layout (Item, Unit,
LocationAtHome, LocationAtShop, `<relationship>_id` columns) that pipectl's `layout: sqlite` and
the peers write. For each item, sorted by name, one line:
    name, quantity (3 decimals), unit name, home location, shop location,
    added (whole seconds since 2001-01-01 UTC), listed, collected
joined with tabs (a missing value is empty), then SHA-256 over the lines. Quantities are rounded
because Core Data keeps a Float attribute in 32 bits; dates to the second.

Prints one line: `items=N units=N home=N shop=N sha256=HEX` (row counts per table, then the
digest); exits 1 when the store has neither layout.
"""
import hashlib
import sqlite3
import sys

COREDATA = """
SELECT i.ZNAME, i.ZQUANTITY, u.ZNAME, h.ZSTOREDIN, s.ZAISLE, i.ZADDED, i.ZLISTED, i.ZCOLLECTED
FROM ZITEM i LEFT JOIN ZUNIT u ON u.Z_PK = i.ZUNIT
LEFT JOIN ZLOCATION h ON h.Z_PK = i.ZLOCATIONATHOME LEFT JOIN ZLOCATION s ON s.Z_PK = i.ZLOCATIONATSHOP
"""
COREDATA_COUNTS = """
SELECT (SELECT count(*) FROM ZITEM), (SELECT count(*) FROM ZUNIT),
       (SELECT count(*) FROM ZLOCATION WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'LocationAtHome')),
       (SELECT count(*) FROM ZLOCATION WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'LocationAtShop'))
"""
PLAIN = """
SELECT i.name, i.quantity, u.name, h.storedIn, s.aisle, i.added, i.listed, i.collected
FROM Item i LEFT JOIN Unit u ON u.id = i.unit_id
LEFT JOIN LocationAtHome h ON h.id = i.locationAtHome_id LEFT JOIN LocationAtShop s ON s.id = i.locationAtShop_id
"""
PLAIN_COUNTS = """
SELECT (SELECT count(*) FROM Item), (SELECT count(*) FROM Unit),
       (SELECT count(*) FROM LocationAtHome), (SELECT count(*) FROM LocationAtShop)
"""


def text(value):
    return "" if value is None else str(value)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: digest.py STORE.sqlite")
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "ZITEM" in tables:
        rows, counts = db.execute(COREDATA), db.execute(COREDATA_COUNTS).fetchone()
    elif "Item" in tables:
        rows, counts = db.execute(PLAIN), db.execute(PLAIN_COUNTS).fetchone()
    else:
        print(f"digest.py: {sys.argv[1]} has neither the Core Data tables (ZITEM) nor the plain ones (Item)",
              file=sys.stderr)
        sys.exit(1)
    lines = sorted(
        "\t".join((text(name), "" if quantity is None else f"{quantity:.3f}", text(unit), text(home), text(shop),
                   "" if added is None else str(round(added)), text(listed), text(collected)))
        for name, quantity, unit, home, shop, added, listed, collected in rows)
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8") + b"\n")
    print("items={} units={} home={} shop={} sha256={}".format(*counts, digest.hexdigest()))


if __name__ == "__main__":
    main()
