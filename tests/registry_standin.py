"""A local stand-in for the MCP Registry that speaks its REST API (v0.1), for EDGEHOST_REGISTRY_URL.

    GET /v0.1/servers?search=&limit=&cursor=&version=latest
        {"servers": [{"server": {server.json}, "_meta": {"io.modelcontextprotocol.registry/official":
        {"status", "publishedAt", "updatedAt", "isLatest"}}}], "metadata": {"nextCursor", "count"}}
    GET /v0.1/servers/{URL-encoded name}/versions/latest
        one such element; 404 {"error": "Server not found"}

``search`` is a case-insensitive substring of the name, as the registry's openapi.yaml says; the cursor
is the last name of the page before. The entries below are the registry documentation's own examples
(docs/reference/server-json/generic-server-json.md) and the real PyPI package of the reference time
server, which `uvx` can fetch. ``stop()`` takes the registry off the network, as a board offline.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

OFFICIAL = "io.modelcontextprotocol.registry/official"
TIME_VERSION = "2026.10.19"  # as tests/peers/python-requirements.txt pins it

FILESYSTEM = {
    "name": "io.github.modelcontextprotocol/filesystem",
    "description": "Node.js server implementing Model Context Protocol (MCP) for filesystem operations.",
    "title": "Filesystem",
    "version": "1.0.2",
    "packages": [
        {
            "registryType": "npm",
            "registryBaseUrl": "https://registry.npmjs.org",
            "identifier": "@modelcontextprotocol/server-filesystem",
            "version": "1.0.2",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {
                    "type": "positional",
                    "valueHint": "target_dir",
                    "description": "Path to access",
                    "default": "/Users/username/Desktop",
                    "isRequired": True,
                    "isRepeated": True,
                }
            ],
            "environmentVariables": [
                {
                    "name": "LOG_LEVEL",
                    "description": "Logging level (debug, info, warn, error)",
                    "default": "info",
                }
            ],
        },
        {
            "registryType": "oci",
            "identifier": "docker.io/mcp/filesystem:1.0.2",
            "transport": {"type": "stdio"},
            "runtimeArguments": [
                {
                    "type": "named",
                    "description": "Mount a volume into the container",
                    "name": "--mount",
                    "value": "type=bind,src={source_path},dst={target_path}",
                    "isRequired": True,
                    "isRepeated": True,
                    "variables": {
                        "source_path": {
                            "description": "Source path on host",
                            "format": "filepath",
                            "isRequired": True,
                        },
                        "target_path": {
                            "description": "Path to mount in the container. It should be rooted in `/project` directory.",
                            "isRequired": True,
                            "default": "/project",
                        },
                    },
                }
            ],
            "packageArguments": [{"type": "positional", "valueHint": "target_dir", "value": "/project"}],
            "environmentVariables": [
                {
                    "name": "LOG_LEVEL",
                    "description": "Logging level (debug, info, warn, error)",
                    "default": "info",
                }
            ],
        },
    ],
}

WEATHER = {
    "name": "io.github.example/weather-mcp",
    "description": "Python MCP server for weather data access",
    "title": "Weather",
    "version": "0.5.0",
    "packages": [
        {
            "registryType": "pypi",
            "registryBaseUrl": "https://pypi.org",
            "identifier": "weather-mcp-server",
            "version": "0.5.0",
            "runtimeHint": "uvx",
            "transport": {"type": "stdio"},
            "environmentVariables": [
                {
                    "name": "WEATHER_API_KEY",
                    "description": "API key for weather service",
                    "isRequired": True,
                    "isSecret": True,
                },
                {
                    "name": "WEATHER_UNITS",
                    "description": "Temperature units (celsius, fahrenheit)",
                    "default": "celsius",
                    "choices": ["celsius", "fahrenheit"],
                },
            ],
        }
    ],
}

TIME = {
    "name": "io.github.modelcontextprotocol/time",
    "description": "Time and timezone conversion capabilities for LLMs",
    "title": "Time",
    "version": TIME_VERSION,
    "packages": [
        {
            "registryType": "pypi",
            "identifier": "mcp-server-time",
            "version": TIME_VERSION,
            "runtimeHint": "uvx",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {
                    "type": "named",
                    "name": "--local-timezone",
                    "description": "The IANA time zone the server takes as local",
                    "default": "UTC",
                }
            ],
        }
    ],
}


MEMORY_VERSION = "2026.8.31"  # as tests/peers/package.json pins it
MEMORY = {
    "name": "io.github.modelcontextprotocol/memory",
    "description": "Knowledge graph memory kept in a local file",
    "title": "Memory",
    "version": MEMORY_VERSION,
    "packages": [
        {
            "registryType": "npm",
            "identifier": "@modelcontextprotocol/server-memory",
            "version": MEMORY_VERSION,
            "runtimeHint": "npx",
            "transport": {"type": "stdio"},
            "environmentVariables": [
                {
                    "name": "MEMORY_FILE_PATH",
                    "description": "Where the knowledge graph is kept",
                    "format": "filepath",
                }
            ],
        }
    ],
}


def remote_entry(url: str) -> dict[str, Any]:
    """A remote server at ``url`` (Streamable HTTP) that takes an API key in a header."""
    return {
        "name": "io.example.anonymous/everything-remote",
        "description": "The reference server-everything, served over Streamable HTTP",
        "version": "2.0.0",
        "remotes": [
            {
                "type": "streamable-http",
                "url": url,
                "headers": [
                    {"name": "X-API-Key", "description": "Your API key", "isRequired": True, "isSecret": True}
                ],
            }
        ],
    }


def bundle_entry(url: str, sha256: str) -> dict[str, Any]:
    """A server published as an MCPB bundle at ``url``, as the registry docs' mcpb example is."""
    return {
        "name": "io.example/hello-uv",
        "description": "A Python server run by uv, as an MCPB bundle",
        "title": "Hello (uv)",
        "version": "1.0.0",
        "packages": [
            {
                "registryType": "mcpb",
                "identifier": url,
                "version": "1.0.0",
                "fileSha256": sha256,
                "transport": {"type": "stdio"},
            }
        ],
    }


def old_version(server: dict[str, Any]) -> dict[str, Any]:
    return {**server, "version": "0.0.1"}


class _LocalServer:
    """An HTTP server on a free port of 127.0.0.1, in a thread, until ``stop()``."""

    server: ThreadingHTTPServer | None = None

    def _serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def host(self) -> str:
        assert self.server is not None
        return f"127.0.0.1:{self.server.server_address[1]}"

    @property
    def url(self) -> str:
        return f"http://{self.host}"

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


@dataclass
class StandInRegistry(_LocalServer):
    """The servers it lists, each with its registry status; started with ``start()`` on a free port."""

    entries: list[tuple[dict[str, Any], str, bool]] = field(default_factory=list)  # server, status, isLatest
    requests: list[str] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)  # served at /files/NAME (an entry's bundle)

    def add(self, server: dict[str, Any], status: str = "active", *, latest: bool = True) -> None:
        self.entries.append((server, status, latest))

    def _element(self, server: dict[str, Any], status: str, latest: bool) -> dict[str, Any]:
        stamp = "2026-10-19T12:00:00Z"
        meta = {"status": status, "publishedAt": stamp, "updatedAt": stamp, "isLatest": latest}
        return {"server": server, "_meta": {OFFICIAL: meta}}

    def listing(self, query: dict[str, list[str]]) -> dict[str, Any]:
        search = query.get("search", [""])[0].lower()
        limit = int(query.get("limit", ["30"])[0])
        cursor = query.get("cursor", [None])[0]
        wanted = [
            (server, status, latest)
            for server, status, latest in self.entries
            if search in server["name"].lower()
            and (query.get("version", [""])[0] != "latest" or latest)
            and status != "deleted"
        ]
        wanted.sort(key=lambda item: item[0]["name"])
        if cursor:
            wanted = [item for item in wanted if item[0]["name"] > cursor]
        page = wanted[:limit]
        metadata: dict[str, Any] = {"count": len(page)}
        if len(wanted) > limit:
            metadata["nextCursor"] = page[-1][0]["name"]
        return {"servers": [self._element(*item) for item in page], "metadata": metadata}

    def latest(self, name: str) -> dict[str, Any] | None:
        for server, status, latest in self.entries:
            if server["name"] == name and latest:
                return self._element(server, status, latest)
        return None

    def start(self) -> StandInRegistry:
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                registry.requests.append(self.path)
                parts = urlsplit(self.path)
                path = parts.path
                prefix = "/v0.1/servers"
                body: Any
                if path.startswith("/files/") and path[len("/files/") :] in registry.files:
                    data = registry.files[path[len("/files/") :]]
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if path == prefix:
                    status, body = 200, registry.listing(parse_qs(parts.query))
                elif path.startswith(prefix + "/") and path.endswith("/versions/latest"):
                    name = unquote(path[len(prefix) + 1 : -len("/versions/latest")])
                    found = registry.latest(name)
                    status, body = (200, found) if found else (404, {"error": "Server not found"})
                else:
                    status, body = 404, {"error": "Not found"}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._serve(Handler)
        return self


@dataclass
class StandInImageRegistry(_LocalServer):
    """A container registry speaking the OCI distribution API's manifest read, behind Docker Hub's
    anonymous bearer tokens: ``GET /v2/REPO/manifests/TAG`` answers 401 with a Bearer challenge until
    a token from ``/token`` comes with it. ``images`` maps REPO:TAG to its platforms (None: one
    manifest that does not say)."""

    images: dict[str, list[str] | None] = field(default_factory=dict)

    def start(self) -> StandInImageRegistry:
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _json(
                self, status: int, body: Any, media_type: str = "application/json", **headers: str
            ) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", media_type)
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                if path == "/token":
                    self._json(200, {"token": "anonymous-pull"})
                    return
                repository, _, tag = path.removeprefix("/v2/").partition("/manifests/")
                if self.headers.get("Authorization") != "Bearer anonymous-pull":
                    realm = f'Bearer realm="http://{registry.host}/token",service="standin",scope="repository:{repository}:pull"'
                    self._json(401, {"errors": [{"code": "UNAUTHORIZED"}]}, **{"WWW-Authenticate": realm})
                    return
                key = f"{repository}:{tag}"
                if key not in registry.images:
                    self._json(404, {"errors": [{"code": "MANIFEST_UNKNOWN"}]})
                    return
                platforms = registry.images[key]
                if platforms is None:
                    manifest_type = "application/vnd.oci.image.manifest.v1+json"
                    self._json(200, {"mediaType": manifest_type, "layers": []}, manifest_type)
                    return
                index_type = "application/vnd.oci.image.index.v1+json"
                manifests = [
                    {
                        "digest": "sha256:" + "0" * 64,
                        "platform": {"os": p.split("/")[0], "architecture": p.split("/")[1]},
                    }
                    for p in platforms
                ]
                self._json(200, {"mediaType": index_type, "manifests": manifests}, index_type)

        self._serve(Handler)
        return self
