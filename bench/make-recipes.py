#!/usr/bin/env python3
"""Writes recipes with nested ingredient lists and tags, for the relationships benchmark
(bench/compare.sh --data recipes): python3 bench/make-recipes.py OUT_DIR N [N ...]

For each N, OUT_DIR/recipes-N.json: {"recipes": [...]} with N // 5 recipes, each with a unique
name, servings, 5 ingredients ({"name", "amount"}: names from a pool of 5,000, some accented) and
3 tags from a pool of 60. So N RecipeIngredient records from nested arrays and 3 N / 5 rows of the
many-to-many's join table. Deterministic: the same N gives the same bytes; streamed.
"""
import pathlib
import random
import sys
from json.encoder import encode_basestring

WORDS = ["tomato", "basil", "crème", "fraîche", "lentil", "onion", "garlic", "jalapeño", "rösti", "feta",
         "olive", "lemon", "thyme", "cumin", "paprika", "rice", "noodle", "tofu", "ginger", "chili", "açaí",
         "honey", "walnut", "pecorino", "fennel", "saffron", "yoghurt", "mint", "pepper", "carrot"]
UNITS = ["g", "kg", "ml", "l", "tbsp", "tsp", "pcs", "cup", "pinch"]


def write(out: pathlib.Path, n: int) -> None:
    rng = random.Random(20261125)
    ingredients = sorted({f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {i % 97}" for i in range(5_000)})
    tags = [f"tag-{rng.choice(WORDS)}-{i}" for i in range(60)]
    path = out / f"recipes-{n}.json"
    with path.open("w", encoding="utf-8") as f:
        f.write('{"recipes": [\n')
        for r in range(n // 5):
            chosen = rng.sample(ingredients, 5)
            items = ", ".join(
                f'{{"name": {encode_basestring(name)}, "amount": "{rng.randint(1, 500)} {rng.choice(UNITS)}"}}'
                for name in chosen)
            tag_list = ", ".join(encode_basestring(t) for t in rng.sample(tags, 3))
            name = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} no. {r}"
            f.write(("," if r else "") + f'{{"name": {encode_basestring(name)}, "servings": {rng.randint(1, 8)}, '
                    f'"tags": [{tag_list}], "ingredients": [{items}]}}\n')
        f.write("]}\n")


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit("usage: make-recipes.py OUT_DIR N [N ...]")
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for n in map(int, sys.argv[2:]):
        write(out, n)


if __name__ == "__main__":
    main()
