"""Regenerate resources/values/currencies.json: how English names the currencies in use, from CLDR.

The file is committed, so this runs only to follow a new CLDR release. It reads CLDR's English data
through Babel (``pip install babel``; a development tool only: EdgeHost ships the small JSON, not
Babel's 30 MB of locale data):

  codes     every currency some territory tenders today (ISO 4217: "USD")
  names     each English name of one, lower case, to its code: the display name ("us dollar"), the
            forms for one and for many ("us dollars", "euros"), and a territory's name with the
            currency's unit ("united states dollar", "japan yen")
  units     a currency's unit alone ("dollars", "pounds", "yen") to the code whose symbol is that
            unit's own sign in English ("$", "£", "¥"); a unit two such currencies share is left out
  symbols   a currency's English symbol ("$", "€", "CA$") to its code, where it is not the code itself
            and no other currency in use writes it

agent/currencies.py reads it. Usage: ``python packaging/make_currencies.py [OUTPUT]``.
"""

from __future__ import annotations

import datetime
import json
import sys
from collections import defaultdict
from pathlib import Path

from babel import Locale
from babel.numbers import get_currency_name, get_territory_currencies

OUTPUT = Path(__file__).resolve().parents[1] / "resources" / "values" / "currencies.json"
DAY = datetime.date(2026, 1, 1)  # the currencies tendered on this day


def main() -> int:
    english = Locale("en")
    territories: dict[str, list[str]] = defaultdict(list)
    for territory, name in english.territories.items():
        if not territory.isalpha():
            continue  # regions such as "001" (world) or "150" (Europe)
        for code in get_territory_currencies(territory, DAY):
            territories[code].append(name)
    codes = sorted(territories)
    names: dict[str, str] = {}
    unit_codes: dict[str, set[str]] = defaultdict(set)
    symbol_codes: dict[str, set[str]] = defaultdict(set)
    for code in codes:
        display = english.currencies.get(code)
        if not display:
            continue
        forms = {display, get_currency_name(code, 1, "en"), get_currency_name(code, 2, "en")}
        unit = display.split()[-1]
        forms |= {f"{territory} {unit}" for territory in territories[code]}
        for form in forms:
            names.setdefault(form.lower(), code)
        symbol = english.currency_symbols.get(code, code)
        if symbol != code:
            symbol_codes[symbol].add(code)
        if len(symbol) == 1 and not symbol.isalpha():
            plural = get_currency_name(code, 2, "en").split()[-1]
            for word in {unit, plural}:
                unit_codes[word.lower()].add(code)
    data = {
        "source": f"CLDR through Babel, English, currencies tendered on {DAY.isoformat()}",
        "codes": codes,
        "names": dict(sorted(names.items())),
        "units": {unit: next(iter(c)) for unit, c in sorted(unit_codes.items()) if len(c) == 1},
        "symbols": {symbol: next(iter(c)) for symbol, c in sorted(symbol_codes.items()) if len(c) == 1},
    }
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {output}: {len(codes)} currencies, {len(names)} names, {len(data['units'])} units")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
