#!/usr/bin/env python3
"""Re-encodes pipelines/data/grocery.csv the ways spreadsheets export it, for the encoding tests.

Each variant holds the same records as the original, so every store built from one must have the
same content. Python's codecs do the encoding, independently of pipectl's decoders.
Run from this folder: python3 make.py
"""
import csv, io, pathlib

source = pathlib.Path(__file__).resolve().parents[4] / "pipelines/data/grocery.csv"
rows = list(csv.reader(io.StringIO(source.read_bytes().decode("utf-8-sig"), newline=""), delimiter=";"))

def render(delimiter, newline):
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator=newline, quoting=csv.QUOTE_MINIMAL).writerows(rows)
    return out.getvalue()

variants = {
    # Excel "Unicode text": UTF-16 LE with BOM, tab-delimited, CRLF.
    "utf16le-tab-crlf.csv": ("\ufeff" + render("\t", "\r\n")).encode("utf-16-le"),
    "utf16be-tab-crlf.csv": ("\ufeff" + render("\t", "\r\n")).encode("utf-16-be"),
    # Older Excel on Windows: Windows-1252, semicolons, CRLF.
    "cp1252-semicolon-crlf.csv": render(";", "\r\n").encode("cp1252"),
    # Older Excel on the Mac: Mac Roman, commas (decimal commas get quoted), lone CR.
    "macroman-comma-cr.csv": render(",", "\r").encode("mac_roman"),
    # Numbers: UTF-8 without BOM, commas, LF.
    "utf8-comma-lf.csv": render(",", "\n").encode("utf-8"),
}
for name, data in variants.items():
    pathlib.Path(name).write_bytes(data)
