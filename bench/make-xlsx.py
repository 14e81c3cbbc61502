#!/usr/bin/env python3
"""The grocery benchmark's rows as an Excel workbook, for the xlsx reader (bench/compare.sh --data xlsx):
bench/data/grocery-N.csv's rows with quantities as numbers and dates as real dates, as a workbook
saved by Excel holds them. Needs xlsxwriter (pip install xlsxwriter); written in constant-memory
mode (inline strings, as large exports from other tools are), so a million rows fit.

  python3 bench/make-xlsx.py N                    # bench/data/grocery-N.xlsx
  python3 bench/make-xlsx.py N --shared-strings   # bench/data/grocery-N-shared.xlsx

--shared-strings writes the strings as Excel itself does, once each in the shared-strings part that
a reader holds in memory (xlsxwriter's default mode, which holds the workbook in memory: about
3 GB of Python for a million rows).
"""
import csv, io, pathlib, sys
from datetime import datetime

import xlsxwriter

here = pathlib.Path(__file__).resolve().parent
n = int(sys.argv[1])
shared = "--shared-strings" in sys.argv[2:]
source = here / "data" / f"grocery-{n}.csv"
target = here / "data" / (f"grocery-{n}-shared.xlsx" if shared else f"grocery-{n}.xlsx")
text = source.read_bytes().decode("utf-8-sig")
workbook = xlsxwriter.Workbook(str(target), {"constant_memory": not shared})
workbook.set_properties({"created": datetime(2026, 1, 1)})
sheet = workbook.add_worksheet("Items")
dated = workbook.add_format({"num_format": "dd/mm/yyyy"})
reader = csv.reader(io.StringIO(text, newline=""), delimiter=";")
header = next(reader)
for column, name in enumerate(header):
    sheet.write_string(0, column, name)
for row, values in enumerate(reader, start=1):
    name, quantity, unit, home, shop, added = values
    sheet.write_string(row, 0, name)
    q = quantity.strip().replace(".", "").replace(",", ".")
    sheet.write_number(row, 1, float(q)) if q else sheet.write_blank(row, 1, None)
    sheet.write_string(row, 2, unit)
    sheet.write_string(row, 3, home)
    sheet.write_string(row, 4, shop)
    d, m, y = (int(x) for x in added.strip().split("/"))
    sheet.write_datetime(row, 5, datetime(y, m, d), dated)
workbook.close()
