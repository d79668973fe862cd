"""Currencies named in a question read as the ISO codes a tool asks for (agent/currencies.py), and a
pair of currency arguments takes the converted currency and its target apart
(agent/grounded_arguments.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from edgehost.agent import currencies
from edgehost.agent.currencies import currency_roles, named_currencies
from edgehost.agent.grounded_arguments import grounded_schema
from edgehost.paths import shipped_dir


def codes(text: str) -> list[str]:
    return [mention.code for mention in named_currencies(text)]


def test_names_plurals_territories_signs_and_codes_read_as_iso_codes() -> None:
    assert codes("How much will 20000 Japanese Yen be in United States Dollar?") == ["JPY", "USD"]
    assert codes("How many Canadian dollars can I get for 500 US dollars?") == ["CAD", "USD"]
    assert codes("from British pounds to euros") == ["GBP", "EUR"]
    assert codes("convert 10 EUR to GBP") == ["EUR", "GBP"]
    assert codes("Convert $250 to €") == ["USD", "EUR"]
    assert codes("what is 30 pounds in rupees") == ["GBP", "INR"]


def test_a_unit_alone_is_a_currency_only_beside_an_amount_or_a_cue_word() -> None:
    assert codes("I won the game and lost ten pounds of weight") == []
    assert codes("pay 5000 won") == ["KRW"]
    assert codes("Did the euro exist in 1990?") == ["EUR"]  # CLDR's whole name, read anywhere
    assert codes("Euros or dollars?") == ["EUR"]  # "euros" is CLDR's name for many, "dollars" a unit


def test_the_amounts_currency_or_the_one_after_from_is_converted() -> None:
    assert currency_roles("How many Canadian dollars can I get for 500 US dollars?") == ("USD", "CAD")
    assert currency_roles("Get the exchange rate from British pounds to Japanese yen") == ("GBP", "JPY")
    assert currency_roles("I have 100 euro. How much is it in USD?") == ("EUR", "USD")
    assert currency_roles("Show the yen against the dollar") is None  # units alone, no amount: none named


def enums(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: value.get("enum") for key, value in schema["properties"].items()}


def converter(first: str, second: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            first: {"type": "string", "description": "Currency code."},
            second: {"type": "string", "description": "Currency code."},
            "amount": {"type": "number", "description": "The amount to convert."},
        },
        "required": [first, second, "amount"],
    }


@pytest.mark.parametrize(
    ("first", "second"),
    [("base_currency", "target_currency"), ("to_currency", "from_currency"), ("have", "want")],
)
def test_a_pair_of_currency_arguments_each_takes_its_own(first: str, second: str) -> None:
    offered = enums(
        grounded_schema(converter(first, second), "How much is 20000 Japanese Yen in US dollars?")
    )
    source, target = (second, first) if first == "to_currency" else (first, second)
    assert offered == {source: ["JPY"], target: ["USD"], "amount": [20000]}


def test_a_single_currency_argument_is_offered_every_currency_named() -> None:
    schema = {
        "type": "object",
        "properties": {"currency": {"type": "string"}, "symbol": {"type": "string"}},
        "required": ["currency"],
    }
    assert enums(grounded_schema(schema, "the price of AAPL in euros or in Swiss francs"))["currency"] == [
        "EUR",
        "CHF",
    ]


def test_a_currency_argument_with_no_currency_named_is_offered_the_questions_words() -> None:
    schema = converter("from_currency", "to_currency")
    assert "bitcoin" in enums(grounded_schema(schema, "convert 2 bitcoin"))["from_currency"]


def test_the_shipped_table_is_cldrs_and_a_missing_one_names_no_currency(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    data = json.loads((shipped_dir("resources") / "values" / "currencies.json").read_text("utf-8"))
    assert {"USD", "EUR", "JPY", "GBP", "INR"} <= set(data["codes"])
    assert data["names"]["euros"] == "EUR" and data["symbols"]["£"] == "GBP"
    monkeypatch.setattr(currencies, "shipped_dir", lambda _name: tmp_path)
    currencies._currencies.cache_clear()
    try:
        assert codes("convert 10 EUR to GBP") == []
    finally:
        currencies._currencies.cache_clear()


def test_signs_with_letters_are_read_whole_and_a_code_alone_must_stand_beside_an_amount_or_a_cue() -> None:
    assert currency_roles("Convert CA$100 to euros") == ("CAD", "EUR")
    assert currency_roles("How much is A$20 in US dollars") == ("AUD", "USD")
    assert codes("USD to EUR rate") == ["USD", "EUR"]
    assert codes("Show ALL hotels in Tirana") == []  # Albania's lek is ALL, and so is "all"


def test_only_an_argument_that_takes_a_currency_is_offered_codes() -> None:
    schema = converter("from_currency", "to_currency")
    schema["properties"]["amount"] = {"type": "string", "description": "Amount of currency to convert."}
    offered = enums(grounded_schema(schema, "Convert 100 USD to EUR"))
    assert offered["from_currency"] == ["USD"] and offered["to_currency"] == ["EUR"]
    assert "100" in offered["amount"]  # the question's words, not codes alone
