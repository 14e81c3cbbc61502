#!/usr/bin/env python3
"""Writes grocery.csv's rows in the other shapes default data arrives in: the classic Core Data
default-data XML (one <item/> with attributes per row), a JSON array as a web team hands it over,
and a property list as Apple tools write it. Each holds the same records, so every grocery pipeline
must build a store with the same rows. Run from this folder: python3 make-formats.py
"""
import csv, io, json, plistlib, pathlib
from datetime import datetime
from xml.sax.saxutils import quoteattr
from zoneinfo import ZoneInfo

here = pathlib.Path(__file__).resolve().parent
text = (here / "grocery.csv").read_bytes().decode("utf-8-sig")
rows = list(csv.DictReader(io.StringIO(text, newline=""), delimiter=";"))

# XML: values exactly as in the spreadsheet, stray whitespace included (the pipeline trims it).
# Tabs are written as character references: a literal tab in an attribute would become a space.
def attr(value):
    return quoteattr(value).replace("\t", "&#9;")

lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<items>"]
for r in rows:
    lines.append("  <item " + " ".join(f"{k}={attr(v)}" for k, v in r.items()) + "/>")
lines.append("</items>")
(here / "grocery.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")

# JSON: typed as a web API would: numbers as numbers, ISO dates, names as they were typed.
def number(s):
    s = s.strip().replace(".", "").replace(",", ".")
    return float(s) if "." in s else int(s)

def iso(s):
    d, m, y = s.strip().split("/")
    return f"{y}-{m}-{d}"

records = [{"name": r["name"], "quantity": number(r["quantity"]), "unit": r["unit"],
            "location": {"home": r["locationathome"], "shop": r["locationatshop"]},
            "added": iso(r["added"])} for r in rows]
(here / "grocery.json").write_text(json.dumps({"items": records}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

# Property list: real dates (midnight in Berlin, as the spreadsheet meant them) and numbers.
berlin = ZoneInfo("Europe/Berlin")
def date(s):
    d, m, y = (int(x) for x in s.strip().split("/"))
    return datetime(y, m, d, tzinfo=berlin).astimezone(ZoneInfo("UTC")).replace(tzinfo=None)

items = [{"name": r["name"], "quantity": number(r["quantity"]), "unit": r["unit"],
          "locationathome": r["locationathome"], "locationatshop": r["locationatshop"],
          "added": date(r["added"])} for r in rows]
(here / "grocery.plist").write_bytes(plistlib.dumps(items, fmt=plistlib.FMT_XML, sort_keys=True))

# Excel workbook: numbers as numbers, dates as real dates (Excel keeps wall-clock dates: the
# pipeline says they are Berlin's), names as typed, a product code whose leading zeros only a
# text cell keeps, and a second sheet the pipeline does not read. Needs xlsxwriter (pip install
# xlsxwriter); the workbook's created date is pinned, so the same rows give the same bytes.
try:
    import xlsxwriter
except ImportError:
    print("grocery.xlsx not written: pip install xlsxwriter")
else:
    workbook = xlsxwriter.Workbook(str(here / "grocery.xlsx"))
    workbook.set_properties({"created": datetime(2026, 1, 1)})
    sheet = workbook.add_worksheet("Items")
    dated = workbook.add_format({"num_format": "dd/mm/yyyy"})
    text = workbook.add_format({"num_format": "@"})
    for column, name in enumerate(["name", "quantity", "unit", "locationathome", "locationatshop", "added", "code"]):
        sheet.write_string(0, column, name)
    for row, r in enumerate(rows, start=1):
        sheet.write_string(row, 0, r["name"])
        sheet.write_number(row, 1, number(r["quantity"]))
        sheet.write_string(row, 2, r["unit"])
        sheet.write_string(row, 3, r["locationathome"])
        sheet.write_string(row, 4, r["locationatshop"])
        d, m, y = (int(x) for x in r["added"].strip().split("/"))
        sheet.write_datetime(row, 5, datetime(y, m, d), dated)
        sheet.write_string(row, 6, f"{row:05d}", text)
    notes = workbook.add_worksheet("Notes")
    notes.write_string(0, 0, "Exported from the household spreadsheet; Items is the list.")
    workbook.close()
