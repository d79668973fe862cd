"""Which machines a container image is built for, read from its registry (the OCI distribution API:
``GET /v2/<repository>/manifests/<tag>``, with an anonymous pull token where the registry asks for one,
as Docker Hub and ghcr.io do). A multi-platform image lists its platforms in its index; an image of one
manifest does not say, and is let through.

An x86-64-only image on an arm64 board fails only when docker runs it ("exec format error"): asked
before the server is added, the person reads why instead.
"""

from __future__ import annotations

import platform
import re
from dataclasses import dataclass

import httpx2

__all__ = ["ImageReference", "image_platforms", "machine_platform", "parse_image"]

_INDEX_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
)
_ACCEPT = ", ".join(
    (
        *_INDEX_TYPES,
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    )
)
_BEARER = re.compile(r'(\w+)="([^"]*)"')
TIMEOUT_S = 15.0


@dataclass(frozen=True)
class ImageReference:
    registry: str  # host[:port], as the API is reached
    repository: str
    reference: str  # a tag or a digest

    @property
    def base_url(self) -> str:
        local = self.registry.split(":")[0] in ("localhost", "127.0.0.1")
        return f"{'http' if local else 'https'}://{self.registry}"


def parse_image(image: str) -> ImageReference:
    """``ghcr.io/owner/repo:v1``, ``mcp/filesystem:1.0``, ``ubuntu@sha256:…`` as registry, repository
    and tag (Docker Hub's own names filled in as docker does)."""
    name, digest = image.split("@", 1) if "@" in image else (image, "")
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        registry, path = first, rest
    else:
        registry, path = "docker.io", name
    tag = ""
    if ":" in path.rsplit("/", 1)[-1]:
        path, tag = path.rsplit(":", 1)
    if registry == "docker.io":
        registry = "registry-1.docker.io"
        if "/" not in path:
            path = f"library/{path}"
    return ImageReference(registry, path, digest or tag or "latest")


def machine_platform() -> str:
    """This machine as images name it: linux/arm64, linux/amd64."""
    machine = platform.machine().lower()
    return "linux/" + {"aarch64": "arm64", "x86_64": "amd64", "armv7l": "arm"}.get(machine, machine)


def image_platforms(image: str) -> set[str] | None:
    """The platforms (``linux/arm64``) ``image`` is built for; None when its registry gives one manifest
    without saying. Raises httpx2.HTTPError (the registry cannot be reached, or has no such image)."""
    ref = parse_image(image)
    url = f"{ref.base_url}/v2/{ref.repository}/manifests/{ref.reference}"
    with httpx2.Client(timeout=TIMEOUT_S, follow_redirects=True) as client:
        response = client.get(url, headers={"Accept": _ACCEPT})
        if response.status_code == 401 and "bearer" in response.headers.get("www-authenticate", "").lower():
            challenge = dict(_BEARER.findall(response.headers["www-authenticate"]))
            token = client.get(
                challenge.get("realm", ""),
                params={k: v for k, v in challenge.items() if k in ("service", "scope")},
            )
            token.raise_for_status()
            body = token.json()
            bearer = body.get("token") or body.get("access_token") or ""
            response = client.get(url, headers={"Accept": _ACCEPT, "Authorization": f"Bearer {bearer}"})
        response.raise_for_status()
        manifest = response.json()
    if manifest.get("mediaType") not in _INDEX_TYPES and "manifests" not in manifest:
        return None
    found: set[str] = set()
    for item in manifest.get("manifests", []):
        where = item.get("platform") or {}
        if where.get("os") and where.get("architecture") and where["os"] != "unknown":
            found.add(f"{where['os']}/{where['architecture']}")
    return found
