"""Convert the 18xx.games title dumps (../shared/maps/*.json) into the package's own title data.

Run once when the source data changes:  python scripts/import_titles.py [SHARED_MAPS_DIR]
Writes revenue/titles/data/<title>.json: layout, hexes (name, location, colour, printed tile code and
rotation, home reservations), the tile manifest, trains, phases, corporations, private companies, the
stock market (cells with price, types and the engine's moves; one_d; each company's capitalization and
total shares), and "variants": the hexes and tiles that a map-changing option set replaces (SPLITS: per
option, where one dump holds several). Nothing reads ../shared at run time.
"""
from __future__ import annotations

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "revenue" / "titles" / "data"
SOURCES = {  # title -> (base file, {option file: option names})
    "1830": "1830.json",
    "steam_over_holland": "steam_over_holland.json",
    "18rhl": "18rhl.json",
    "1860": "1860.json",
    "1889": "1889.json",
}

# A dump made with several map-changing options is split per option where each option's changes are
# known, so that each option applies on its own: option -> the tiles (manifest names) it alone changes.
SPLITS = {
    "18rhl": {"promotion_tiles": ("932", "932V", "949", "950", "Essen")},
}


def hex_entry(h: dict) -> dict:
    entry = {"name": h["coord"], "location": h.get("location") or "", "color": h["color"],
             "code": h.get("code") or "", "rotation": h.get("rotation", 0)}
    if h.get("tile") and h["tile"] != h["coord"]:
        entry["tile"] = h["tile"]
    if any(h.get("reservations") or []):
        entry["reservations"] = h["reservations"]
    return entry


def title_data(src: dict) -> dict:
    return {
        "layout": src["layout"],
        "hexes": [hex_entry(h) for h in src["hexes"]],
        "tiles": [{k: t[k] for k in ("name", "color", "code", "count")} for t in src["tiles"]],
        "trains": src["trains"],
        "phases": [{k: p[k] for k in ("name", "on", "tiles", "train_limit", "operating_rounds") if k in p} for p in src["phases"]],
        "corporations": [{k: c.get(k) for k in ("id", "name", "coordinates", "city")} for c in src["corporations"]],
        "companies": [{k: c.get(k) for k in ("id", "name", "value", "revenue", "desc")} for c in src["companies"]],
        "stock_market": src["stock_market"],
    }


def variant(base: dict, alt: dict, options: list[str]) -> dict:
    """What `alt` (the map with `options`) changes relative to `base`."""
    def diff(a, b, key):
        da, db = {x[key]: x for x in a}, {x[key]: x for x in b}
        return {k: db.get(k) for k in sorted(set(da) | set(db)) if da.get(k) != db.get(k)}
    out = {"options": sorted(options), "hexes": diff(base["hexes"], alt["hexes"], "name"),
           "tiles": diff(base["tiles"], alt["tiles"], "name")}
    for key in ("trains", "companies", "stock_market"):
        if base[key] != alt[key]:
            out[key] = alt[key]
    return out


def split(variant: dict, splits: dict[str, tuple[str, ...]]) -> list[dict]:
    """`variant` as one variant per option of `splits` (its tiles) plus one for the rest."""
    out, rest = [], dict(variant, tiles=dict(variant["tiles"]))
    for option, tiles in splits.items():
        if option in variant["options"] and len(variant["options"]) > 1:
            out.append({"options": [option], "hexes": {},
                        "tiles": {t: rest["tiles"].pop(t) for t in tiles if t in rest["tiles"]}})
            rest["options"] = [o for o in rest["options"] if o != option]
    return [rest] + out


def main(shared: pathlib.Path) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    files = sorted(shared.glob("*.json"))
    for title, base_file in SOURCES.items():
        src = json.loads((shared / base_file).read_text())
        data = {"title": title, "name": src["title"], **title_data(src), "variants": []}
        for f in files:
            alt_src = json.loads(f.read_text())
            if f.name != base_file and f.name.startswith(base_file[:-5] + "-"):
                found = variant(data, title_data(alt_src), alt_src["optional_rules"])
                data["variants"].extend(split(found, SPLITS.get(title, {})))
        (OUT / f"{title}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(f"{title}: {len(data['hexes'])} hexes, {len(data['tiles'])} tiles, {len(data['variants'])} variants")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "maps")
