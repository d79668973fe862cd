"""The MCP Registry's REST API (stable version v0.1), read with what it answered cached on disk: a search
or an entry the registry cannot give now (offline, a board behind a firewall) comes from the cache,
with its age, instead of an error.

    GET {registry}/v0.1/servers?search=&limit=&cursor=&version=latest
    GET {registry}/v0.1/servers/{URL-encoded name}/versions/latest

The registry's address is the ``registry_url`` setting, with ``EDGEHOST_REGISTRY_URL`` over it (an
organisation's sub-registry, a test's stand-in). Entries whose registry status is not ``active`` are
left out of what a search shows.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import httpx2

from edgehost.errors import EdgeHostError
from edgehost.paths import write_atomically
from edgehost.registry.server_json import RegistryEntry, read_entries, read_entry

__all__ = [
    "DEFAULT_REGISTRY_URL",
    "REGISTRY_URL_ENV",
    "Listing",
    "RegistryClient",
    "RegistryError",
    "registry_url",
]

DEFAULT_REGISTRY_URL = "https://registry.modelcontextprotocol.io"
REGISTRY_URL_ENV = "EDGEHOST_REGISTRY_URL"
API = "v0.1"
PAGE_SIZE = 30
TIMEOUT_S = 15.0


class RegistryError(EdgeHostError):
    """The registry could not answer and nothing is cached: the message says which registry and why."""


def registry_url(setting: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The registry to ask: EDGEHOST_REGISTRY_URL, else the setting, else the official registry."""
    environ = os.environ if environ is None else environ
    chosen = environ.get(REGISTRY_URL_ENV) or setting or DEFAULT_REGISTRY_URL
    return chosen.rstrip("/")


@dataclass(frozen=True)
class Listing:
    """One page of a search: the active entries, where the next page starts, and how old the answer is."""

    entries: tuple[RegistryEntry, ...]
    next_cursor: str | None
    fetched_at: float  # time.time() of the registry's answer
    offline: str | None = None  # why the registry could not be asked now: the page is the cached one
    hidden: int = 0  # entries left out because their status is not active

    def age_s(self, now: float | None = None) -> float:
        return max(0.0, (time.time() if now is None else now) - self.fetched_at)


class RegistryClient:
    """Reads one registry; every answer is kept in ``cache_dir`` and given back when the registry cannot
    be reached. Methods raise RegistryError when neither the registry nor the cache has the answer."""

    def __init__(
        self, base_url: str, cache_dir: Path, *, transport: httpx2.AsyncBaseTransport | None = None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.cache_dir = cache_dir
        self._transport = transport

    async def search(self, query: str = "", *, limit: int = PAGE_SIZE, cursor: str | None = None) -> Listing:
        params: dict[str, Any] = {"limit": limit, "version": "latest"}
        if query.strip():
            params["search"] = query.strip()
        if cursor:
            params["cursor"] = cursor
        url = f"{self.base_url}/{API}/servers?{urlencode(params)}"
        body, fetched_at, offline = await self._get(url, what=f"the servers matching {query!r}")
        items = body.get("servers") if isinstance(body, Mapping) else None
        if not isinstance(items, list):
            raise RegistryError(f"{self.base_url} answered with no list of servers: is it an MCP registry?")
        entries = read_entries(items)
        active = tuple(e for e in entries if e.status == "active")
        metadata = body.get("metadata") if isinstance(body.get("metadata"), Mapping) else {}
        assert isinstance(metadata, Mapping)
        next_cursor = metadata.get("nextCursor") or metadata.get("next_cursor")
        return Listing(
            active,
            str(next_cursor) if next_cursor else None,
            fetched_at,
            offline,
            hidden=len(entries) - len(active),
        )

    async def latest(self, name: str) -> tuple[RegistryEntry, str | None]:
        """The latest version of the server ``name`` (io.github.owner/server), and why it came from the
        cache (None when the registry answered)."""
        url = f"{self.base_url}/{API}/servers/{quote(name, safe='')}/versions/latest"
        body, _fetched_at, offline = await self._get(url, what=name)
        entry = read_entry(body) if isinstance(body, Mapping) else None
        if entry is None:
            raise RegistryError(f"{self.base_url} has no readable entry for {name}")
        if entry.status == "deleted":
            raise RegistryError(f"{name} was deleted from the registry {self.base_url}")
        return entry, offline

    async def _get(self, url: str, *, what: str) -> tuple[Any, float, str | None]:
        """(the JSON body, when it was fetched, why it is the cached copy or None)."""
        cached = self._cache_file(url)
        try:
            async with httpx2.AsyncClient(
                transport=self._transport, timeout=TIMEOUT_S, follow_redirects=True
            ) as client:
                response = await client.get(url, headers={"Accept": "application/json"})
            if response.status_code == 404:
                raise RegistryError(f"the registry {self.base_url} has no {what}")
            response.raise_for_status()
            body = response.json()
        except (httpx2.HTTPError, OSError, ValueError) as exc:
            why = _reason(exc)
            if cached.exists():
                stored = json.loads(cached.read_text(encoding="utf-8"))
                return stored["body"], float(stored["fetched_at"]), why
            raise RegistryError(
                f"the registry {self.base_url} cannot be reached ({why}), and nothing is cached"
            ) from None
        fetched_at = time.time()
        cached.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(cached, json.dumps({"url": url, "fetched_at": fetched_at, "body": body}))
        return body, fetched_at, None

    def _cache_file(self, url: str) -> Path:
        return self.cache_dir / (hashlib.sha256(url.encode()).hexdigest()[:32] + ".json")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"it answered {exc.response.status_code}"
    if isinstance(exc, httpx2.TimeoutException):
        return f"no answer within {TIMEOUT_S:g} s"
    if isinstance(exc, ValueError):
        return "its answer is not JSON"
    return type(exc).__name__ if not str(exc) else str(exc)
