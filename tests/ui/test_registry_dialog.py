"""The Servers panel's "From the registry…": search a stand-in registry (EDGEHOST_REGISTRY_URL), see
what each server runs as and whether this board can run it, fill its values, read the exact command,
add it; the PyPI time server then starts through the uvx that comes with EdgeHost."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLineEdit, QMessageBox
from tests.bundles.mcpb_support import FIXTURES, packed
from tests.registry_standin import (
    FILESYSTEM,
    MEMORY,
    MEMORY_VERSION,
    TIME,
    TIME_VERSION,
    StandInRegistry,
    bundle_entry,
)
from tests.support import board_image_path
from tests.ui.conftest import opened_desktop, wait_until

from edgehost.slow_machine import scaled_wait
from edgehost.ui.registry_dialog import RegistryDialog
from edgehost.ui.servers_panel import ServersPanel

FIRST_START_S = scaled_wait(120.0)
NOT_ON_THE_BOARD = {
    "node",
    "nodejs",
    "npm",
    "npx",
    "docker",
    "podman",
    "uv",
    "uvx",
}  # uvx fetches the package from PyPI the first time


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[StandInRegistry]:
    standin = StandInRegistry()
    standin.add(FILESYSTEM)
    standin.add(TIME)
    standin.start()
    monkeypatch.setenv("EDGEHOST_REGISTRY_URL", standin.url)
    monkeypatch.setenv("PATH", board_image_path(tmp_path / "bin"))  # no Node.js, no Docker
    yield standin
    standin.stop()


async def registry_dialog(desktop: Any, entries: int) -> tuple[ServersPanel, RegistryDialog]:
    """The Servers panel, and its "From the registry…" dialog once it lists ``entries`` servers."""
    panel = desktop.window.open_panel("servers")
    assert isinstance(panel, ServersPanel)
    panel.open_registry()
    dialog = panel.registry_dialog
    assert dialog is not None
    await wait_until(lambda: dialog.results.count() == entries)
    return panel, dialog


@pytest.mark.usefixtures("no_os_keyring")
def test_a_server_from_the_registry_is_found_filled_in_checked_and_started(
    registry: StandInRegistry, data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel, dialog = await registry_dialog(desktop, 2)
            assert dialog.status.text() == "2 servers."
            filesystem, time = (dialog.results.item(i).text() for i in range(2))
            assert filesystem.endswith("runs as npm, container · not on this machine yet")
            assert time.endswith("runs as PyPI · here: PyPI")

            dialog.results.setCurrentRow(0)  # this board has neither Node.js nor Docker
            assert dialog.why_not.text().startswith("it needs Node.js (npx), which is not installed")
            assert not dialog.add_button.isEnabled()

            dialog.results.setCurrentRow(1)
            assert (dialog.run_as.currentText(), dialog.name.text()) == ("PyPI", "time")
            assert dialog.form is not None
            zone = dialog.form.fields["local-timezone"]
            assert isinstance(zone, QLineEdit) and zone.text() == "UTC"  # the entry's default
            zone.setText("Europe/Paris")
            command = f"uvx mcp-server-time=={TIME_VERSION} --local-timezone Europe/Paris"
            assert dialog.command.text() == command
            assert dialog.add_button.isEnabled()

            dialog.add_button.click()
            [box] = [b for b in dialog.findChildren(QMessageBox) if b.isVisible()]
            assert command in box.text()  # the exact command, before anything runs
            box.button(QMessageBox.StandardButton.Yes).click()
            await wait_until(
                lambda: not dialog.isVisible() or not dialog.problem.text().startswith("Adding"),
                FIRST_START_S,
            )
            assert not dialog.isVisible(), (dialog.problem.text(), desktop.host.server_states())
            await wait_until(
                lambda: (
                    panel.notice.text()
                    == f"Added “time” to {desktop.host.paths.servers_file}; connected, 2 tools."
                ),
                FIRST_START_S,
            )
            assert {t.name for t in desktop.host.tools() if t.server == "time"} == {
                "time__get_current_time",
                "time__convert_time",
            }
            called = await desktop.host.call_tool("time__get_current_time", {"timezone": "Europe/Paris"})
            assert not called.is_error and "Europe/Paris" in str(called.content)

    run(scenario())


@pytest.mark.usefixtures("no_os_keyring")
def test_a_board_without_node_gets_it_from_the_dialog_and_then_runs_an_npm_server(
    registry: StandInRegistry, data_dir: Path, run: Any
) -> None:
    registry.add(MEMORY)

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel, dialog = await registry_dialog(desktop, 3)
            row = next(i for i in range(3) if "modelcontextprotocol/memory" in dialog.results.item(i).text())
            dialog.results.setCurrentRow(row)
            assert dialog.why_not.text().startswith("it needs Node.js (npx)")
            assert dialog.install_node_button.isVisible() and not dialog.add_button.isEnabled()

            dialog.install_node_button.click()
            await wait_until(
                lambda: dialog.node_offer is not None and dialog.node_offer.isVisible(), FIRST_START_S
            )
            assert (
                dialog.node_offer is not None and " MB) into " in dialog.node_offer.text()
            )  # its size, asked
            dialog.node_offer.button(QMessageBox.StandardButton.Yes).click()
            await wait_until(lambda: dialog.add_button.isEnabled(), FIRST_START_S)
            assert not dialog.install_node_button.isVisible()
            assert "here: npm" in dialog.results.item(row).text()
            assert dialog.command.text() == f"npx -y @modelcontextprotocol/server-memory@{MEMORY_VERSION}"

            dialog.add_button.click()
            [box] = [b for b in dialog.findChildren(QMessageBox) if b.isVisible()]
            box.button(QMessageBox.StandardButton.Yes).click()
            await wait_until(
                lambda: (
                    panel.notice.text()
                    == f"Added “memory” to {desktop.host.paths.servers_file}; connected, 9 tools."
                ),
                FIRST_START_S,
            )
            called = await desktop.host.call_tool("memory__read_graph", {})
            assert not called.is_error and "entities" in str(called.content)

    run(scenario())


@pytest.mark.usefixtures("no_os_keyring")
def test_an_entrys_bundle_is_downloaded_from_the_dialog_and_installed_as_any_bundle(
    registry: StandInRegistry, data_dir: Path, tmp_path: Path, run: Any
) -> None:
    data = packed(FIXTURES / "hello-uv", tmp_path / "hello-uv.mcpb").read_bytes()
    registry.files["hello-uv.mcpb"] = data
    registry.add(bundle_entry(f"{registry.url}/files/hello-uv.mcpb", hashlib.sha256(data).hexdigest()))

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel, dialog = await registry_dialog(desktop, 3)
            row = next(i for i in range(3) if "io.example/hello-uv" in dialog.results.item(i).text())
            dialog.results.setCurrentRow(row)
            assert dialog.run_as.currentText() == "bundle" and dialog.bundle_button.isVisible()
            dialog.bundle_button.click()
            await wait_until(lambda: panel.bundle_dialog is not None and panel.bundle_dialog.isVisible())
            bundle_dialog = panel.bundle_dialog
            assert bundle_dialog is not None and not dialog.isVisible()  # the registry's dialog made way
            await wait_until(lambda: bundle_dialog.form is not None)
            assert bundle_dialog.command.text().startswith("uv run --directory ")
            bundle_dialog.add_button.click()
            [box] = [b for b in bundle_dialog.findChildren(QMessageBox) if b.isVisible()]
            box.button(QMessageBox.StandardButton.Yes).click()
            await wait_until(
                lambda: panel.notice.text() == "Installed “hello-uv” from hello-uv.mcpb; connected, 1 tool.",
                FIRST_START_S,
            )

    run(scenario())
