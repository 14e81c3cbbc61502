#!/usr/bin/env python3
"""The relationships benchmark's Python peer: the job of bench/pipelines/recipes-json.yaml by
hand with the standard library (json + sqlite3), as an app team's import script would do it.

  python3 bench/peers/python_recipes.py INPUT.json STORE.sqlite

Plain tables (the SQL shape of pipectl's `sqlite` layout): Recipe, Ingredient, Tag and
RecipeIngredient with unique keys, Recipe_tags as the many-to-many's join table. Ingredients and
tags are found or created by name through dictionaries; a recipe given twice keeps the first.
One transaction; indexes made before the rows (the unique keys must hold while they go in).
"""
import json
import sqlite3
import sys


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8") as f:
        recipes = json.load(f)["recipes"]
    db = sqlite3.connect(target)
    db.executescript("""
        PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
        CREATE TABLE Recipe (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, servings INTEGER);
        CREATE TABLE Ingredient (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE Tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE RecipeIngredient (id INTEGER PRIMARY KEY, amount TEXT,
            recipe_id INTEGER REFERENCES Recipe(id), ingredient_id INTEGER REFERENCES Ingredient(id),
            UNIQUE (recipe_id, ingredient_id));
        CREATE TABLE Recipe_tags (recipes_id INTEGER NOT NULL, tags_id INTEGER NOT NULL, PRIMARY KEY (recipes_id, tags_id));
    """)
    recipe_ids, ingredient_ids, tag_ids = {}, {}, {}
    uses, links = [], []
    with db:
        for recipe in recipes:
            name = recipe["name"]
            if name in recipe_ids:
                continue
            cursor = db.execute("INSERT INTO Recipe (name, servings) VALUES (?, ?)", (name, recipe.get("servings")))
            rid = recipe_ids[name] = cursor.lastrowid
            for tag in recipe.get("tags", []):
                tid = tag_ids.get(tag)
                if tid is None:
                    tid = tag_ids[tag] = db.execute("INSERT INTO Tag (name) VALUES (?)", (tag,)).lastrowid
                links.append((rid, tid))
            for item in recipe.get("ingredients", []):
                iname = item["name"]
                iid = ingredient_ids.get(iname)
                if iid is None:
                    iid = ingredient_ids[iname] = db.execute("INSERT INTO Ingredient (name) VALUES (?)", (iname,)).lastrowid
                uses.append((item.get("amount"), rid, iid))
        db.executemany("INSERT OR IGNORE INTO RecipeIngredient (amount, recipe_id, ingredient_id) VALUES (?, ?, ?)", uses)
        db.executemany("INSERT OR IGNORE INTO Recipe_tags (recipes_id, tags_id) VALUES (?, ?)", links)
        db.execute("CREATE INDEX RecipeIngredient_ingredient ON RecipeIngredient (ingredient_id)")
        db.execute("CREATE INDEX Recipe_tags_tags ON Recipe_tags (tags_id, recipes_id)")
    db.close()


if __name__ == "__main__":
    main()
