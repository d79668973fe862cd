"""Places named in a question read as the IANA zones a tool asks for (agent/places.py), and a pair of
zone arguments takes the zone a time is given in and the one it is wanted in apart
(agent/grounded_arguments.py), over the real time server's schema."""

from __future__ import annotations

import json
from typing import Any

import pytest

from edgehost.agent import places
from edgehost.agent.grounded_arguments import grounded_schema
from edgehost.agent.places import named_zones, timezone_roles
from edgehost.agent.tools import ToolSpec


def zones(text: str) -> list[str]:
    return [mention.zone for mention in named_zones(text)]


def local_to(schema: dict[str, Any], zone: str) -> dict[str, Any]:
    """``schema`` as mcp-server-time lists it on a machine whose zone is ``zone``: its descriptions say
    "Use '<zone>' as local timezone" (the fixture was listed on a UTC machine)."""
    return json.loads(json.dumps(schema).replace("'UTC' as local", f"'{zone}' as local"))


def test_cities_countries_and_states_without_a_zone_of_their_own_read_as_zones() -> None:
    assert zones("whats 8am in san francisco in paris time") == ["America/Los_Angeles", "Europe/Paris"]
    assert zones("What time is it in Munich?") == ["Europe/Berlin"]
    assert zones("what time is it in india") == ["Asia/Kolkata"]
    assert zones("Is it morning in California yet?") == ["America/Los_Angeles"]
    assert zones("tokyo time?") == ["Asia/Tokyo"]
    assert zones("What time is it in St. Petersburg?") == ["Europe/Moscow"]
    assert zones("It is 10:00 in São Paulo") == zones("time in sao paulo please") == ["America/Sao_Paulo"]


def test_a_country_spread_over_zones_and_a_word_that_only_looks_like_a_town_are_no_zone() -> None:
    assert zones("What time is it in the United States?") == []
    assert zones("What time is it in Australia?") == []
    # "Split" and "Reading" are towns, but not as a question's first word or written in lower case.
    assert zones("Split the bill with the reading group") == []
    assert zones("Two places in one zone name it once: Paris and Lyon") == ["Europe/Paris"]


def test_the_zone_a_time_is_given_in_is_the_source_and_the_one_asked_for_the_target() -> None:
    assert timezone_roles("whats 8am in san francisco in paris time") == (
        "America/Los_Angeles",
        "Europe/Paris",
    )
    assert timezone_roles("What time is it in Tokyo when it's 5pm in London?") == (
        "Europe/London",
        "Asia/Tokyo",
    )
    assert timezone_roles("What is 3pm London time in New York?") == ("Europe/London", "America/New_York")
    assert timezone_roles("Convert 10:00 from Sydney to Berlin") == ("Australia/Sydney", "Europe/Berlin")


def test_one_place_converts_from_or_to_the_users_own_zone() -> None:
    here = "I have a call at 18:00 here, what time will it be for my colleague in Singapore?"
    assert timezone_roles(here, "Europe/Paris") == ("Europe/Paris", "Asia/Singapore")
    assert timezone_roles("It's 5pm in Tokyo, what time is that for me?", "Europe/Paris") == (
        "Asia/Tokyo",
        "Europe/Paris",
    )
    assert timezone_roles(here) is None  # the user's own zone unknown: both left to the model


def test_convert_time_is_offered_each_zone_in_its_role(reference_tools: dict[str, ToolSpec]) -> None:
    convert = local_to(dict(reference_tools["time__convert_time"].input_schema), "Europe/Paris")
    offered = grounded_schema(convert, "I have a call at 18:00 here, what time will it be in Singapore?")
    assert {key: value.get("enum") for key, value in offered["properties"].items()} == {
        "source_timezone": ["Europe/Paris"],
        "time": ["18:00"],
        "target_timezone": ["Asia/Singapore"],
    }


def test_no_place_named_offers_the_users_own_zone_first_and_utc_when_it_is_said(
    reference_tools: dict[str, ToolSpec],
) -> None:
    now = local_to(dict(reference_tools["time__get_current_time"].input_schema), "Europe/Paris")
    assert (
        grounded_schema(now, "what time is it here?")["properties"]["timezone"]["enum"][0] == "Europe/Paris"
    )
    assert grounded_schema(now, "Current UTC time?")["properties"]["timezone"]["enum"] == ["UTC"]


def test_a_missing_table_reads_no_place(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setattr(places, "shipped_dir", lambda _name: tmp_path)
    places._zones.cache_clear()
    places._named_in.cache_clear()
    try:
        assert zones("What time is it in Munich?") == []
    finally:
        places._zones.cache_clear()
        places._named_in.cache_clear()
