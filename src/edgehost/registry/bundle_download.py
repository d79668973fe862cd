"""A registry entry's MCPB package: its bundle downloaded from the URL the entry gives and checked against
the entry's ``fileSha256`` before anything in it is read (edgehost.bundles installs it then)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import httpx2

from edgehost.errors import EdgeHostError
from edgehost.registry.install import InstallOption

__all__ = ["BundleDownloadError", "download_bundle"]

TIMEOUT_S = 60.0
CHUNK = 1 << 16


class BundleDownloadError(EdgeHostError):
    """The bundle could not be downloaded, or is not the file the registry entry describes."""


def download_bundle(option: InstallOption, folder: Path) -> Path:
    """The bundle of ``option`` (an ``mcpb`` package) in ``folder``, its SHA-256 checked; a file already
    there with the right hash is not downloaded again. Raises BundleDownloadError."""
    package = option.package
    if package is None or option.kind != "mcpb":
        raise BundleDownloadError("only an MCPB package is a bundle to download")
    expected = (package.file_sha256 or "").lower()
    if not expected:
        raise BundleDownloadError(f"{option.entry.name} gives no fileSha256 to check its bundle by: not run")
    # Kept by its hash, under the name it is published as (what the person sees it installed from).
    published = PurePosixPath(urlsplit(package.identifier).path).name
    if not published.endswith((".mcpb", ".dxt")):
        published = "bundle.mcpb"
    target = folder / expected[:16] / published
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # A file of its own per download: two at once of the same bundle do not write into one.
    handle, partial_name = tempfile.mkstemp(prefix=".download-", suffix=".partial", dir=target.parent)
    partial = Path(partial_name)
    digest = hashlib.sha256()
    try:
        with (
            os.fdopen(handle, "wb") as out,
            httpx2.stream("GET", package.identifier, timeout=TIMEOUT_S, follow_redirects=True) as response,
        ):
            response.raise_for_status()
            for chunk in response.iter_bytes(CHUNK):
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != expected:
            raise BundleDownloadError(
                f"the bundle {package.identifier} is not the one the registry describes: its SHA-256 is"
                f" {digest.hexdigest()}, the entry says {expected}; not run"
            )
        os.replace(partial, target)
    except (httpx2.HTTPError, OSError) as exc:
        raise BundleDownloadError(f"the bundle {package.identifier} cannot be downloaded: {exc}") from None
    finally:
        partial.unlink(missing_ok=True)
    return target
