"""The registry client against a stand-in speaking the registry's REST API: what a search shows, the
pages, an entry by its name, and the cache that answers when the registry cannot."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.registry_standin import FILESYSTEM, TIME, WEATHER, StandInRegistry, old_version

from edgehost.registry.client import DEFAULT_REGISTRY_URL, RegistryClient, RegistryError, registry_url


@pytest.fixture
def registry() -> Iterator[StandInRegistry]:
    standin = StandInRegistry()
    standin.add(FILESYSTEM)
    standin.add(WEATHER, "deprecated")
    standin.add(TIME)
    standin.add(old_version(TIME), latest=False)
    standin.start()
    yield standin
    standin.stop()


def client_of(registry: StandInRegistry, tmp_path: Path) -> RegistryClient:
    return RegistryClient(registry.url, tmp_path / "cache")


async def test_a_search_shows_the_active_latest_entries_matching_the_name_and_counts_the_hidden(
    registry: StandInRegistry, tmp_path: Path
) -> None:
    listing = await client_of(registry, tmp_path).search("IO.GITHUB")
    assert [(e.name, e.version) for e in listing.entries] == [
        ("io.github.modelcontextprotocol/filesystem", "1.0.2"),
        ("io.github.modelcontextprotocol/time", TIME["version"]),
    ]
    assert listing.hidden == 1  # the deprecated weather server
    assert listing.offline is None and listing.age_s() < 60
    assert "search=IO.GITHUB" in registry.requests[-1] and "version=latest" in registry.requests[-1]


async def test_the_next_page_starts_where_the_cursor_says(registry: StandInRegistry, tmp_path: Path) -> None:
    client = client_of(registry, tmp_path)
    first = await client.search("modelcontextprotocol", limit=1)
    assert [e.name for e in first.entries] == ["io.github.modelcontextprotocol/filesystem"]
    assert first.next_cursor is not None
    second = await client.search("modelcontextprotocol", limit=1, cursor=first.next_cursor)
    assert [e.name for e in second.entries] == ["io.github.modelcontextprotocol/time"]
    assert second.next_cursor is None


async def test_an_entry_is_found_by_its_name_with_the_slash_encoded(
    registry: StandInRegistry, tmp_path: Path
) -> None:
    entry, offline = await client_of(registry, tmp_path).latest("io.github.modelcontextprotocol/time")
    assert (entry.name, entry.version, offline) == (
        "io.github.modelcontextprotocol/time",
        TIME["version"],
        None,
    )
    assert registry.requests[-1] == "/v0.1/servers/io.github.modelcontextprotocol%2Ftime/versions/latest"
    with pytest.raises(RegistryError, match="has no io.example/nothing"):
        await client_of(registry, tmp_path).latest("io.example/nothing")


async def test_offline_a_search_comes_from_the_cache_with_its_age_and_why(
    registry: StandInRegistry, tmp_path: Path
) -> None:
    client = client_of(registry, tmp_path)
    before = await client.search("time")
    registry.stop()
    cached = await client.search("time")
    assert [e.name for e in cached.entries] == [e.name for e in before.entries]
    assert cached.offline and cached.fetched_at == pytest.approx(before.fetched_at)
    assert cached.age_s(time.time() + 3600) >= 3600
    with pytest.raises(RegistryError, match=r"cannot be reached .*nothing is cached"):
        await client.search("filesystem")


def test_the_environment_names_the_registry_over_the_setting() -> None:
    assert registry_url(None, {}) == DEFAULT_REGISTRY_URL
    assert registry_url("https://mcp.example.org/", {}) == "https://mcp.example.org"
    assert (
        registry_url("https://a.example", {"EDGEHOST_REGISTRY_URL": "http://127.0.0.1:9"})
        == "http://127.0.0.1:9"
    )
