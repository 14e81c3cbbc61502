#!/usr/bin/env python3
"""Writes N grocery-list rows as a spreadsheet would export them, in every format the speed
benchmark reads: python3 bench/make-grocery.py OUT_DIR N [N ...]

For each N, into OUT_DIR:
  grocery-N.csv        Numbers-style: UTF-8 BOM, CRLF, ';' between fields, decimal commas with '.'
                       for thousands (1.500, 0,75), quoted fields (a few names hold a line break)
  grocery-N-comma.csv  Excel in a German locale saving "CSV UTF-8": the same, with ',' between
                       fields, so every decimal comma sits in a quoted field ("0,75")
  grocery-N.xml        the classic Core Data default-data shape, <item name=".." .../> per row
  grocery-N.json       a JSON array of objects, one per row
  grocery-N.jsonl      JSON Lines, one object per row

Every file holds the same raw strings (stray spaces, tabs and no-break spaces included, values
typed as text), so the same transforms apply to all. About 5% of the rows repeat an earlier name:
half of them the same item again (perhaps with other stray whitespace), half with another
quantity, unit or date (a conflicting duplicate; the first row wins). About 0.1% have no unit.

Deterministic: the same N gives the same bytes. One pass, streamed: memory stays flat.
"""
import pathlib
import random
import sys
from collections import deque
from json.encoder import encode_basestring  # the C-accelerated JSON string encoder

PRODUCTS = [
    "Fresh parsley", "Rooibos", "Nutmeg", "Pale ale", "Espresso beans", "Eggs", "Grapes", "Stilton",
    "Chai tea", "Sweet potatoes", "Popcorn", "Sumac", "Kombucha", "Turkey slices", "Cheddar", "Broccoli",
    "Breadsticks", "Frozen berries", "Sourdough loaf", "Frozen croissants", "Food colouring", "Cod fillets",
    "Vanilla pods", "Naan bread", "Mini cheddars", "Lamb chops", "Frozen edamame", "Dental floss",
    "Kitchen roll", "Butter", "Onions", "Cauliflower", "Chocolate biscuits", "Ketchup", "Muesli",
    "Pineapple", "Hot chocolate", "Peaches", "Tonic water", "Crème fraîche", "Jalapeños", "Müsli",
    "Açaí bowl", "Gruyère", "Rösti", "Mac & cheese", "Fish \"n\" chips", "Tomatoes; cherry", "Leeks",
]
UNITS = ["pcs", "kg", "g", "l", "ml", "pack", "can", "jar", "bottle", "bunch", "dozen"]
HOME = ["Fridge", "Freezer", "Pantry", "Cellar", "Spice rack", "Tea drawer", "Fruit bowl", "Snack drawer",
        "Baking cupboard", "Cereal shelf", "Vegetable drawer", "Bathroom cabinet", "Laundry room"]
SHOP = ["Aisle 1: Fruit & Veg", "Aisle 2: Bakery", "Aisle 3: Dairy", "Aisle 4: Meat & Fish", "Aisle 5: Frozen",
        "Aisle 6: Pasta & Rice", "Aisle 7: Tins", "Aisle 8: Baking", "Aisle 9: Breakfast",
        "Aisle 10: Herbs & Spices", "Aisle 11: Oils & Sauces", "Aisle 12: Snacks", "Aisle 13: Drinks",
        "Aisle 14: Tea & Coffee", "Aisle 15: Beer & Wine", "Aisle 16: Household", "Aisle 17: Health & Beauty"]
# As Numbers writes them in a German locale: decimal comma, '.' between thousands.
QUANTITIES = ["1", "1", "1", "2", "2", "3", "4", "6", "12", "100", "125", "200", "250", "250", "400", "500",
              "500", "750", "1.000", "1.500", "2.000", "12.500", "0,5", "0,25", "0,75", "1,5", "2,5", "0,33",
              "1.250,5"]
# The whitespace a spreadsheet leaves around a value: space, tab, no-break space.
NOISE = [(" ", ""), ("", " "), ("\t", ""), ("", "\t"), ("", "\u00a0"), ("\u00a0", ""), (" ", " ")]
HEADER = ["name", "quantity", "unit", "locationathome", "locationatshop", "added"]
DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def date(chance):
    """A day between 2001 and 2030 as dd/MM/yyyy."""
    y = 2001 + int(chance() * 30)
    m = 1 + int(chance() * 12)
    leap = m == 2 and y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    d = 1 + int(chance() * (DAYS_IN_MONTH[m - 1] + leap))
    return f"{d:02d}/{m:02d}/{y}"


def csv_line(row, delimiter):
    line = delimiter.join(row)
    if '"' not in line and "\n" not in line and line.count(delimiter) == len(row) - 1:
        return line + "\r\n"  # the common case: nothing to quote
    return delimiter.join('"' + v.replace('"', '""') + '"' if delimiter in v or '"' in v or "\n" in v else v
                          for v in row) + "\r\n"


XML_ITEM = "  <item " + " ".join(f'{k}="%s"' for k in HEADER) + "/>\n"
# A literal tab or line break in an attribute would be read back as a space: write references.
XML_ESCAPES = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("\t", "&#9;"), ("\n", "&#10;")]


def xml_line(row):
    joined = "\x00".join(row)
    for char, reference in XML_ESCAPES:
        if char in joined:
            joined = joined.replace(char, reference)
    return XML_ITEM % tuple(joined.split("\x00"))


JSON_OBJECT = "{" + ", ".join(f'"{k}": %s' for k in HEADER) + "}"
JSON_PLAIN = "{" + ", ".join(f'"{k}": "%s"' for k in HEADER) + "}"


def json_object(row):
    joined = "".join(row)
    if '"' in joined or "\\" in joined or "\t" in joined or "\n" in joined:
        return JSON_OBJECT % tuple(map(encode_basestring, row))
    return JSON_PLAIN % tuple(row)


def write(out, n):
    rng = random.Random(f"grocery-{n}")
    files = {suffix: open(out / f"grocery-{n}{suffix}", "w", encoding="utf-8", newline="")
             for suffix in (".csv", "-comma.csv", ".xml", ".json", ".jsonl")}
    files[".csv"].write("\ufeff" + ";".join(HEADER) + "\r\n")
    files["-comma.csv"].write("\ufeff" + ",".join(HEADER) + "\r\n")
    files[".xml"].write('<?xml version="1.0" encoding="UTF-8"?>\n<items>\n')
    files[".json"].write("[\n")
    recent = deque(maxlen=20000)  # items a duplicate may repeat: the first row of each name
    serial = 0
    chunks = {suffix: [] for suffix in files}
    csv, comma, xml, json, jsonl = (chunks[s].append for s in (".csv", "-comma.csv", ".xml", ".json", ".jsonl"))
    chance = rng.random
    for i in range(n):
        if recent and chance() < 0.05:
            name, quantity, unit, home, shop, added = recent[int(chance() * len(recent))]
            if chance() < 0.5:  # conflicting: the later row says something else
                which = int(chance() * 3)
                if which == 0:
                    quantity = QUANTITIES[int(chance() * len(QUANTITIES))]
                elif which == 1:
                    unit = UNITS[int(chance() * len(UNITS))]
                else:
                    added = date(chance)
            if chance() < 0.2:  # typed again, with other stray whitespace
                before, after = NOISE[int(chance() * len(NOISE))]
                name = before + name + after
            row = [name, quantity, unit, home, shop, added]
        else:
            serial += 1
            name = f"{PRODUCTS[int(chance() * len(PRODUCTS))]} {serial}"
            if chance() < 0.003:  # a note typed on a second line of the cell
                name += "\n(organic)"
            item = (name, QUANTITIES[int(chance() * len(QUANTITIES))],
                    "" if chance() < 0.001 else UNITS[int(chance() * len(UNITS))],
                    HOME[int(chance() * len(HOME))], SHOP[int(chance() * len(SHOP))], date(chance))
            recent.append(item)
            row = list(item)
            if chance() < 0.15:  # stray whitespace around one of the values
                field = int(chance() * 6)
                before, after = NOISE[int(chance() * len(NOISE))]
                row[field] = before + row[field] + after
        csv(csv_line(row, ";"))
        comma(csv_line(row, ","))
        xml(xml_line(row))
        obj = json_object(row)
        json((",\n" if i else "") + obj)
        jsonl(obj + "\n")
        if len(chunks[".jsonl"]) == 10000:
            for suffix, chunk in chunks.items():
                files[suffix].writelines(chunk)
                chunk.clear()
    for suffix, chunk in chunks.items():
        files[suffix].writelines(chunk)
    files[".xml"].write("</items>\n")
    files[".json"].write("\n]\n")
    for f in files.values():
        f.close()


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: make-grocery.py OUT_DIR N [N ...]")
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for n in map(int, sys.argv[2:]):
        write(out, n)


if __name__ == "__main__":
    main()
