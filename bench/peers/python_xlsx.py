#!/usr/bin/env python3
"""The xlsx benchmark's Python peers: the grocery sheet read into SQLite, the rows as they are
(plain tables, no keys or links: a floor for reading, not the whole job pipectl does).

  python3 bench/peers/python_xlsx.py openpyxl|fastexcel INPUT.xlsx STORE.sqlite

openpyxl in read-only mode (streaming, pure Python); fastexcel (Rust's calamine, from PyPI),
which reads the sheet whole into Arrow columns.
"""
import os
import sqlite3
import sys


def rows_openpyxl(path):
    import openpyxl
    workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    sheet = workbook.worksheets[0]
    rows = sheet.iter_rows(values_only=True)
    next(rows)
    for row in rows:
        yield row[:6]
    workbook.close()


def rows_fastexcel(path):
    import fastexcel
    sheet = fastexcel.read_excel(path).load_sheet(0)
    columns = [sheet.to_arrow().column(i).to_pylist() for i in range(6)]
    yield from zip(*columns)


def main() -> None:
    library, source, target = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = rows_openpyxl(source) if library == "openpyxl" else rows_fastexcel(source)
    if os.path.exists(target):
        os.remove(target)
    db = sqlite3.connect(target)
    db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
                     "CREATE TABLE Item (id INTEGER PRIMARY KEY, name TEXT, quantity REAL, unit TEXT, home TEXT, shop TEXT, added TEXT)")
    with db:
        db.executemany("INSERT INTO Item (name, quantity, unit, home, shop, added) VALUES (?, ?, ?, ?, ?, ?)",
                       ((r[0], r[1], r[2], r[3], r[4], str(r[5]) if r[5] is not None else None) for r in rows))
    db.close()


if __name__ == "__main__":
    main()
