#!/usr/bin/env python3
"""Writes N grocery-list rows as a spreadsheet would export them, in every format the speed
benchmark reads: python3 bench/make-grocery.py OUT_DIR N [N ...]
With --distinct (python3 bench/make-grocery.py --distinct OUT_DIR N [N ...]): long distinct names
and a price, as CSV only (see write_distinct below).

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


# ---- --distinct: long distinct names, ISO dates and a price ----
#
# grocery-distinct-N.csv, Numbers-style as grocery-N.csv (UTF-8 BOM, CRLF, ';', decimal commas,
# quoted fields where needed) with the columns name;quantity;unit;locationathome;locationatshop;
# added;price. About 95% of the rows bring a new name of 20 to 45 characters made of an optional
# prefix, a product, an optional variety, a brand and a serial ("Bio Crème fraîche légère Marke 3
# 4123457"), about a third of them with accented letters (NFC); the serial makes each name
# distinct. About 5% repeat the name of any earlier item (uniformly over all of them, not only
# recent ones) with one of quantity, unit, price or date changed. `added` is yyyy-MM-dd, `price`
# has two decimals and '.' between thousands ("3,49", "1.249,00"); 0.1% of the items have no unit;
# stray whitespace around 15% of the new rows' values and 20% of the repeated names, as in
# grocery-N.csv. Each item's values are a function of its number (a 64-bit mix of it), so a repeat
# rebuilds the item it repeats instead of keeping every item: memory stays flat.

# About a third of the names come out with an accented letter (é, ü, ø, ...).
PREFIXES = ["Bio", "Vegan", "Frische", "Feine", "Gourmet", "Fairtrade", "Regional", "Premium", "Petit",
            "Zarte", "Délice", "Große", "Original", "Hausmarke", "Demeter", "Extra"]
DISTINCT_PRODUCTS = [
    "Crème fraîche", "Käse", "Brötchen", "Müsli", "Pâté", "Jalapeños", "Açaí bowl", "Gruyère", "Rösti",
    "Smørrebrød", "Espresso beans", "Sourdough loaf", "Frozen berries", "Sweet potatoes", "Cheddar",
    "Broccoli", "Orange juice", "Peanut butter", "Greek yoghurt", "Basmati rice", "Olive oil",
    "Tomato passata", "Chocolate biscuits", "Oat milk", "Penne rigate", "Tortilla chips", "Cod fillets",
    "Lamb chops", "Mac & cheese", "Fish \"n\" chips", "Tomatoes; cherry", "Sauerkraut", "Leberwurst",
    "Schwarzbrot", "Baguette", "Croissants", "Tofu", "Hummus", "Kombucha", "Rooibos", "Quark", "Joghurt",
    "Frischkase light", "Spaetzle", "Apfelstrudel", "Mozzarella", "Cafe crema", "Crepes", "Wurstsalat",
    "Pflaumenmus", "Kraeutertee", "Bratwurst", "Semmelknoedel", "Gouda", "Maultaschen", "Rote Bete",
]
VARIETIES = ["légère", "extra", "mild", "würzig", "classic", "natur", "fettarm", "smoked", "à l'ancienne",
             "sans sucre", "zuckerfrei", "mediterran", "hausgemacht", "creamy", "glutenfrei", "laktosefrei",
             "fein", "grob", "scharf", "light"]
BRANDS = ["Marke 3", "Gut & Günstig", "Ja!", "Bonne Maman", "Président", "Mueller", "Zott", "Dr. Oetker",
          "Ruegenwalder", "Baerenmarke", "Nestlé", "Andechser", "Lacroix", "Alnatura", "K-Classic", "Landliebe",
          "Rewe Bio", "dmBio", "Milbona", "Hochland"]
DISTINCT_HEADER = HEADER + ["price"]
MASK = (1 << 64) - 1


def mix(x):
    """splitmix64's finalizer: a well-spread 64-bit value of x."""
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def price(h):
    """A price with two decimals from a 64-bit value: mostly 0,19 to 99,99; 5% up to 9.999,99."""
    cents = 19 + h % 9981 if h % 20 else 10000 + h % 990000
    euros = f"{cents // 100:,}".replace(",", ".")
    return f"{euros},{cents % 100:02d}"


def iso_date(h):
    """A day between 2001 and 2030 as yyyy-MM-dd."""
    y = 2001 + h % 30
    m = 1 + (h >> 8) % 12
    leap = m == 2 and y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    d = 1 + (h >> 16) % (DAYS_IN_MONTH[m - 1] + leap)
    return f"{y}-{m:02d}-{d:02d}"


def distinct_item(seed, k):
    """Item number k (0, 1, ...): its raw values, the same whenever asked."""
    a, b = mix(seed ^ (2 * k)), mix(seed ^ (2 * k + 1))
    # A bijection of 0..9999999 (3456789 is prime to 10), so serials look scattered but never repeat;
    # past ten million items the item number itself follows.
    serial = str((k * 3456789 + 1234567) % 10000000).zfill(7) + ("" if k < 10000000 else f"-{k}")
    prefix = PREFIXES[a % len(PREFIXES)] if (a >> 4) % 5 < 2 else None
    product = DISTINCT_PRODUCTS[(a >> 8) % len(DISTINCT_PRODUCTS)]
    variety = VARIETIES[(a >> 20) % len(VARIETIES)] if (a >> 16) % 5 < 3 else None
    brand = BRANDS[(a >> 28) % len(BRANDS)]
    name = " ".join(p for p in (prefix, product, variety, brand, serial) if p)
    for drop in ("variety", "prefix", "brand"):  # too long: leave out a part
        if len(name) <= 45:
            break
        variety = None if drop == "variety" else variety
        prefix = None if drop == "prefix" else prefix
        brand = None if drop == "brand" else brand
        name = " ".join(p for p in (prefix, product, variety, brand, serial) if p)
    if len(name) < 20:  # too short: a pack size
        size = ["500 g", "1 kg", "250 ml", "6er Pack"][(a >> 36) % 4]
        name = " ".join(p for p in (prefix, product, variety, brand, size, serial) if p)
    unit = "" if (b >> 40) % 1000 == 0 else UNITS[(b >> 50) % len(UNITS)]
    return (name, QUANTITIES[b % len(QUANTITIES)], unit, HOME[(b >> 8) % len(HOME)],
            SHOP[(b >> 16) % len(SHOP)], iso_date(a >> 40), price(b >> 24))


def write_distinct(out, n):
    rng = random.Random(f"grocery-distinct-{n}")
    seed = mix(n)
    chance = rng.random
    with open(out / f"grocery-distinct-{n}.csv", "w", encoding="utf-8", newline="") as f:
        f.write("\ufeff" + ";".join(DISTINCT_HEADER) + "\r\n")
        chunk, items = [], 0
        for _ in range(n):
            if items and chance() < 0.05:  # an earlier item again, one of its values changed
                row = list(distinct_item(seed, int(chance() * items)))
                field = (1, 2, 5, 6)[int(chance() * 4)]  # quantity, unit, added or price
                old = row[field]
                while row[field] == old:
                    h = int(chance() * (1 << 62))
                    row[field] = (QUANTITIES[h % len(QUANTITIES)] if field == 1 else UNITS[h % len(UNITS)] if field == 2
                                  else iso_date(h) if field == 5 else price(h))
                if chance() < 0.2:  # typed again, with other stray whitespace
                    before, after = NOISE[int(chance() * len(NOISE))]
                    row[0] = before + row[0] + after
            else:
                row = list(distinct_item(seed, items))
                items += 1
                if chance() < 0.15:  # stray whitespace around one of the values
                    field = int(chance() * 7)
                    before, after = NOISE[int(chance() * len(NOISE))]
                    row[field] = before + row[field] + after
            chunk.append(csv_line(row, ";"))
            if len(chunk) == 10000:
                f.writelines(chunk)
                chunk.clear()
        f.writelines(chunk)


def main():
    args = sys.argv[1:]
    distinct = "--distinct" in args
    if distinct:
        args.remove("--distinct")
    if len(args) < 2:
        sys.exit("usage: make-grocery.py [--distinct] OUT_DIR N [N ...]")
    out = pathlib.Path(args[0])
    out.mkdir(parents=True, exist_ok=True)
    for n in map(int, args[1:]):
        (write_distinct if distinct else write)(out, n)


if __name__ == "__main__":
    main()
