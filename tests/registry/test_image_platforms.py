"""A container image with no build for this machine is refused before it is added (an x86-64-only image
on an arm64 board), read from a stand-in registry speaking the OCI distribution API behind bearer tokens
as Docker Hub does."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.registry_standin import FILESYSTEM, StandInImageRegistry

from edgehost.registry.install import install_options
from edgehost.registry.oci_platforms import machine_platform, parse_image
from edgehost.registry.server_json import read_entry

OTHER = "linux/amd64" if machine_platform() == "linux/arm64" else "linux/arm64"


@pytest.fixture
def images() -> Iterator[StandInImageRegistry]:
    standin = StandInImageRegistry().start()
    yield standin
    standin.stop()


def oci_option(image: str):  # type: ignore[no-untyped-def]
    package = {**FILESYSTEM["packages"][1], "identifier": image}
    entry = read_entry({"server": {**FILESYSTEM, "packages": [package]}})
    assert entry is not None
    [option] = install_options(entry)
    return option


def test_an_image_without_a_build_for_this_machine_says_which_builds_it_has(
    images: StandInImageRegistry,
) -> None:
    images.images["mcp/filesystem:1.0.2"] = [OTHER]
    problem = oci_option(f"{images.host}/mcp/filesystem:1.0.2").image_problem()
    assert problem == (
        f"the image {images.host}/mcp/filesystem:1.0.2 has no {machine_platform()} build (it has {OTHER})"
    )


def test_an_image_built_for_this_machine_or_silent_about_it_is_let_through(
    images: StandInImageRegistry,
) -> None:
    images.images["mcp/filesystem:1.0.2"] = [OTHER, machine_platform()]
    images.images["mcp/single:1.0"] = None
    assert oci_option(f"{images.host}/mcp/filesystem:1.0.2").image_problem() is None
    assert oci_option(f"{images.host}/mcp/single:1.0").image_problem() is None
    assert oci_option("127.0.0.1:9/mcp/unreachable:1.0").image_problem() is None  # docker will tell


def test_image_names_are_read_as_docker_reads_them() -> None:
    assert parse_image("ubuntu:22.04") == parse_image("docker.io/library/ubuntu:22.04")
    assert parse_image("mcp/filesystem").repository == "mcp/filesystem"
    assert parse_image("mcp/filesystem").reference == "latest"
    ghcr = parse_image("ghcr.io/github/github-mcp-server@sha256:" + "a" * 64)
    assert (ghcr.registry, ghcr.repository, ghcr.reference) == (
        "ghcr.io",
        "github/github-mcp-server",
        "sha256:" + "a" * 64,
    )
    local = parse_image("localhost:5000/team/tool:v2")
    assert (local.base_url, local.repository, local.reference) == ("http://localhost:5000", "team/tool", "v2")
