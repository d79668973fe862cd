"""An MCPB bundle dropped on the window: its dialog says what it is, asks its options (the key unseen),
shows the command, and Install and start runs it; a bundle built for another machine cannot be
installed, and says why."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QLineEdit, QMessageBox
from tests.bundles.mcpb_support import FIXTURES, NODE, other_architecture_bundle, packed
from tests.ui.conftest import opened_desktop, wait_until

from edgehost.slow_machine import scaled_wait
from edgehost.ui.servers_panel import ServersPanel

START_S = scaled_wait(60.0)


def dropped(path: Path) -> tuple[QDropEvent, QMimeData]:
    """A drop of ``path``, and its data (the event does not own it: the caller keeps it alive)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    return event, mime


@pytest.mark.usefixtures("no_os_keyring")
def test_a_bundle_dropped_on_the_window_is_installed_with_its_options_and_answers(
    tmp_path: Path, data_dir: Path, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{NODE.parent}{os.pathsep}{os.environ['PATH']}")  # the bundle runs `node`
    bundle = packed(FIXTURES / "hello-node", tmp_path / "hello-node.mcpb")

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            event, _data = dropped(bundle)
            desktop.window.dropEvent(event)
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            dialog = panel.bundle_dialog
            assert dialog is not None and dialog.isVisible()
            assert not dialog.why_not.isVisible()
            await wait_until(lambda: dialog.form is not None)  # read off the window's thread
            assert dialog.form is not None
            key, greeting = dialog.form.fields["api_key"], dialog.form.fields["greeting"]
            assert isinstance(key, QLineEdit) and key.echoMode() == QLineEdit.EchoMode.Password
            assert isinstance(greeting, QLineEdit) and greeting.text() == "Hello"  # the manifest's default
            assert not dialog.add_button.isEnabled() and dialog.problem.text() == "Needed: API key"
            key.setText("key-0123456789abcdef")
            folder = data_dir / "bundles" / "hello-node"
            assert dialog.command.text() == (
                f"node {folder}/server/index.js --greeting=Hello\nenvironment: API_KEY=${{input:hello-node__api_key}}"
            )
            dialog.add_button.click()
            [box] = [b for b in dialog.findChildren(QMessageBox) if b.isVisible()]
            box.button(QMessageBox.StandardButton.Yes).click()
            await wait_until(
                lambda: (
                    panel.notice.text() == "Installed “hello-node” from hello-node.mcpb; connected, 1 tool."
                ),
                START_S,
            )
            called = await desktop.host.call_tool("hello-node__greet", {"name": "Ada"})
            assert str(called.content[0].text) == "Hello, Ada! (from the node bundle, with an API key)"
            assert "key-0123456789abcdef" not in (data_dir / "servers.json").read_text()
            assert [b.version for b in desktop.host.installed_bundles()] == ["1.0.0"]
            panel._remove_confirmed("hello-node")  # Remove, on a bundle's server: the bundle goes too
            await wait_until(lambda: panel.notice.text().endswith("and uninstalled its bundle."))
            await wait_until(lambda: all(s.name != "hello-node" for s in desktop.host.server_states()))
            assert not folder.exists() and desktop.host.installed_bundles() == []

    run(scenario())


def test_a_bundle_built_for_another_machine_says_why_and_cannot_be_installed(
    tmp_path: Path, data_dir: Path, run: Any
) -> None:
    bundle, theirs = other_architecture_bundle(tmp_path)

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            panel.open_bundle_file(str(bundle))
            dialog = panel.bundle_dialog
            assert dialog is not None
            assert dialog.why_not.isVisible() and f"is built for {theirs}" in dialog.why_not.text()
            assert not dialog.add_button.isEnabled()
            panel.open_bundle_file(str(FIXTURES / "hello-node" / "manifest.json"))  # not a bundle
            assert "not an MCPB bundle (not a zip file)" in panel.notice.text()

    run(scenario())
