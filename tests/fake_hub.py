"""A local stand-in for the Hugging Face Hub that speaks its download protocol, for HF_ENDPOINT.

It answers what ``huggingface_hub`` asks of the real hub:
- ``HEAD/GET /{repo}/resolve/{revision}/{file}``: a 302 to ``/cdn/{sha256}`` on another host name
  (localhost for 127.0.0.1, as the hub redirects an LFS file to its CDN) carrying ``X-Repo-Commit``, ``X-Linked-Etag`` (the sha256) and ``X-Linked-Size``;
- ``GET /cdn/{sha256}`` with ``Range`` (206 and ``Content-Range``) for a resume;
- ``GET /api/models/{repo}/tree/{revision}``: the file list;
- errors as the hub signals them: ``X-Error-Code`` RepoNotFound (401), EntryNotFound (404), GatedRepo
  (401 without a token).

Tests shape the bad days: ``cut_after`` closes the connection after that many bytes of a body,
``end_early_after`` ends a body that many bytes in as if that were all of it (sent without a
Content-Length, as a proxy that drops it does: the client finds it short only by counting),
``corrupt`` flips a byte of what is served while the hub still advertises the true sha256, ``delay``
slows each chunk.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class HubFile:
    path: Path
    sha256: str
    size: int


@dataclass
class FakeHub:
    repos: dict[str, dict[str, HubFile]] = field(default_factory=dict)
    gated: set[str] = field(default_factory=set)
    token: str = "hf_test_token"
    cut_after: int | None = None  # bytes of the next body before the connection drops (once)
    end_early_after: int | None = None  # bytes of each body before it ends as if whole
    corrupt: bool = False
    delay: float = 0.0  # seconds per 64 KiB chunk
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)  # method, path, Range
    server: ThreadingHTTPServer | None = None

    def add(self, repo: str, name: str, path: Path) -> HubFile:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        entry = HubFile(path, digest, path.stat().st_size)
        self.repos.setdefault(repo, {})[name] = entry
        return entry

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def cdn_url(self) -> str:
        assert self.server is not None
        return f"http://localhost:{self.server.server_address[1]}"

    def start(self) -> FakeHub:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_HEAD(self) -> None:
                self._answer(body=False)

            def do_GET(self) -> None:
                self._answer(body=True)

            def _answer(self, *, body: bool) -> None:
                hub.requests.append((self.command, self.path, self.headers.get("Range")))
                path = self.path.split("?")[0]
                if match := re.fullmatch(r"/api/models/(.+?)/tree/([^/]+)", path):
                    return self._tree(match.group(1))
                if match := re.fullmatch(r"/cdn/([0-9a-f]{64})", path):
                    return self._content(match.group(1), body=body)
                if match := re.fullmatch(r"/(.+?)/resolve/([^/]+)/(.+)", path):
                    return self._resolve(match.group(1), match.group(3))
                self._error(404, "RepoNotFound", "not found")

            def _authorised(self, repo: str) -> bool:
                return repo not in hub.gated or self.headers.get("Authorization") == f"Bearer {hub.token}"

            def _resolve(self, repo: str, name: str) -> None:
                if repo not in hub.repos:
                    return self._error(401, "RepoNotFound", "Repository not found")
                if not self._authorised(repo):
                    return self._error(401, "GatedRepo", "Access to this model is restricted")
                entry = hub.repos[repo].get(name)
                if entry is None:
                    return self._error(404, "EntryNotFound", "Entry not found")
                self.send_response(302)
                # Another host, as the hub's CDN is: huggingface_hub then takes the file's metadata
                # from this response instead of following the redirect.
                self.send_header("Location", f"{hub.cdn_url}/cdn/{entry.sha256}")
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("X-Linked-Etag", f'"{entry.sha256}"')
                self.send_header("X-Linked-Size", str(entry.size))
                self.send_header("ETag", '"pointer-etag"')
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _content(self, sha256: str, *, body: bool) -> None:
                entry = next(
                    (f for files in hub.repos.values() for f in files.values() if f.sha256 == sha256), None
                )
                if entry is None:
                    return self._error(404, "EntryNotFound", "no such blob")
                data = entry.path.read_bytes()
                if hub.corrupt:
                    data = data[:100] + bytes([data[100] ^ 0xFF]) + data[101:]
                start = 0
                if match := re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or ""):
                    start = int(match.group(1))
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                else:
                    self.send_response(200)
                if hub.end_early_after is None:
                    self.send_header("Content-Length", str(len(data) - start))
                else:  # the body ends where the connection closes
                    self.send_header("Connection", "close")
                    self.close_connection = True
                    data = data[: start + hub.end_early_after]
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()
                if not body:
                    return
                cut, hub.cut_after = hub.cut_after, None
                sent = 0
                for offset in range(start, len(data), 65536):
                    chunk = data[offset : offset + 65536]
                    if cut is not None and sent + len(chunk) > cut:
                        self.wfile.write(chunk[: cut - sent])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    self.wfile.write(chunk)
                    sent += len(chunk)
                    if hub.delay:
                        time.sleep(hub.delay)

            def _tree(self, repo: str) -> None:
                if repo not in hub.repos:
                    return self._error(401, "RepoNotFound", "Repository not found")
                items = [
                    {
                        "type": "file",
                        "path": name,
                        "size": f.size,
                        "oid": f.sha256,
                        "lfs": {"oid": f.sha256, "size": f.size, "pointerSize": 134},
                    }
                    for name, f in hub.repos[repo].items()
                ]
                self._json(200, items)

            def _error(self, status: int, code: str, message: str) -> None:
                payload = json.dumps({"error": message}).encode()
                self.send_response(status)
                self.send_header("X-Error-Code", code)
                self.send_header("X-Error-Message", message)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)

            def _json(self, status: int, value: object) -> None:
                payload = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client that went away mid-body (a killed pull) is part of the tests

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
