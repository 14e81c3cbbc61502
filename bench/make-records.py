#!/usr/bin/env python3
"""Writes the same N grocery-style records as CSV, XML (the classic default-data shape), a JSON
array and JSON Lines, for the memory benchmark: python3 make-records.py OUT_DIR N [N ...]
Deterministic: the same N gives the same bytes."""
import json, pathlib, random, sys
from xml.sax.saxutils import quoteattr

out = pathlib.Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
units = ["pcs", "kg", "g", "l", "ml", "pack", "can", "jar", "bottle", "bunch", "dozen"]
for n in map(int, sys.argv[2:]):
    rng = random.Random(n)
    rows = [(f"Item {i} " + rng.choice(["Crème", "Jalapeño", "Müsli", "Tea", "Rice"]), f"{rng.randint(1, 5000) / 4:.2f}",
             rng.choice(units), f"Aisle {rng.randint(1, 17)}") for i in range(n)]
    with open(out / f"records-{n}.csv", "w", encoding="utf-8", newline="") as f:
        f.write("name,quantity,unit,aisle\n")
        for r in rows: f.write(",".join(r) + "\n")
    with open(out / f"records-{n}.xml", "w", encoding="utf-8") as f:
        f.write("<items>\n")
        for r in rows:
            f.write(f"<item name={quoteattr(r[0])} quantity={quoteattr(r[1])} unit={quoteattr(r[2])} aisle={quoteattr(r[3])}/>\n")
        f.write("</items>\n")
    keys = ("name", "quantity", "unit", "aisle")
    with open(out / f"records-{n}.json", "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(dict(zip(keys, r)), ensure_ascii=False) for r in rows) + "\n]\n")
    with open(out / f"records-{n}.jsonl", "w", encoding="utf-8") as f:
        for r in rows: f.write(json.dumps(dict(zip(keys, r)), ensure_ascii=False) + "\n")
