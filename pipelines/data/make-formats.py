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
