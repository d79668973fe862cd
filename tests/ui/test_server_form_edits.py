"""Editing a server in the window changes what the form shows and nothing else: the entry's other
settings and the ${VAR}s it was written with stay as they are in the servers file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.ui.conftest import opened_desktop, wait_until

from edgehost.mcp.config import ServerConfig, builtin_servers, load_servers_config
from edgehost.paths import Paths
from edgehost.ui.server_form import ServerForm
from edgehost.ui.servers_panel import ServersPanel

SECRETS = {"HOME": "/h", "SECRET": "s3cr3t", "TOKEN": "t0k3n"}
ENTRIES = {
    "local": {
        "command": "python3",
        "args": ["-m", "tool"],
        "env": {"K": "${SECRET}"},
        "cwd": "/tmp",
        "timeout": 120,
        "autoApprove": ["read"],
        "allowedTools": ["read", "list"],
    },
    "remote": {
        "type": "http",
        "url": "https://example.com/mcp",
        "headers": {"Authorization": "Bearer ${TOKEN}"},
        "clientId": "abc",
        "trusted": True,
    },
    "files": {"args": ["--root", "/tmp"], "timeout": 90},
}


def servers_file(tmp_path: Path, data_dir: Path) -> Paths:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": ENTRIES}, indent=2), encoding="utf-8")
    return Paths.resolve(path, data_dir)


def saved_by_form(paths: Paths, name: str, change: Any = None) -> dict[str, Any]:
    """Open the form on ``name`` as loaded (secrets expanded), apply ``change``, save; the file's entry."""
    config = load_servers_config(paths, environ=SECRETS)
    builtins = {s.name: s for s in builtin_servers(paths)}
    existing = config.get(name)
    assert existing is not None
    form = ServerForm(builtins, existing, {s.name for s in config.servers})
    if change is not None:
        change(form)
    saved: list[ServerConfig] = []
    form.saved.connect(saved.append)
    form.save()
    assert form.problem.isHidden(), form.problem.text()
    from edgehost.mcp.config import ServersConfig
    from edgehost.mcp.config.edits import edit_servers_file, merge_servers

    edit_servers_file(paths, lambda c: merge_servers(c, ServersConfig(servers=saved)))
    entries: dict[str, Any] = json.loads(paths.servers_file.read_text())["mcpServers"]
    return entries[name]


@pytest.mark.usefixtures("qapp")
def test_the_form_shows_the_variables_written_not_the_secrets_and_saving_keeps_them(
    tmp_path: Path, data_dir: Path
) -> None:
    paths = servers_file(tmp_path, data_dir)
    config = load_servers_config(paths, environ=SECRETS)
    form = ServerForm({}, config.get("local"))
    assert form.env.toPlainText() == "K=${SECRET}"
    assert ServerForm({}, config.get("remote")).headers.toPlainText() == "Authorization: Bearer ${TOKEN}"
    assert saved_by_form(paths, "local") == ENTRIES["local"]
    assert saved_by_form(paths, "remote") == ENTRIES["remote"]
    assert "s3cr3t" not in paths.servers_file.read_text() and "t0k3n" not in paths.servers_file.read_text()


@pytest.mark.usefixtures("qapp")
def test_a_changed_field_is_saved_and_the_settings_the_form_does_not_show_stay(
    tmp_path: Path, data_dir: Path
) -> None:
    paths = servers_file(tmp_path, data_dir)
    entry = saved_by_form(paths, "local", lambda form: form.args.setText("-m tool --fast"))
    assert entry == {**ENTRIES["local"], "args": ["-m", "tool", "--fast"]}
    # Another transport: the keys of the old one go (cwd), the common ones stay.
    entry = saved_by_form(
        paths,
        "local",
        lambda form: (form.transport.setCurrentText("http"), form.url.setText("http://127.0.0.1:9/mcp")),
    )
    assert entry == {
        "type": "http",
        "url": "http://127.0.0.1:9/mcp",
        "timeout": 120,
        "autoApprove": ["read"],
        "allowedTools": ["read", "list"],
    }


@pytest.mark.usefixtures("qapp")
def test_a_built_in_server_is_saved_as_its_options_never_as_this_installations_interpreter(
    tmp_path: Path, data_dir: Path
) -> None:
    paths = servers_file(tmp_path, data_dir)
    config = load_servers_config(paths, environ=SECRETS)
    form = ServerForm({s.name: s for s in builtin_servers(paths)}, config.get("files"))
    assert form.args.text() == "--root /tmp" and form.command.isReadOnly()
    assert form.command.text().endswith("-m edgehost serve files")
    entry = saved_by_form(paths, "files", lambda form: form.args.setText("--root /srv"))
    assert entry == {"args": ["--root", "/srv"], "timeout": 90}
    files = load_servers_config(paths, environ=SECRETS).get("files")
    assert files is not None and files.builtin and files.args[-2:] == ["--root", "/srv"]


def test_renaming_a_server_in_the_panel_replaces_it(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            desktop.host.save_server(
                ServerConfig(
                    name="sensors", command=sys.executable, args=["-m", "edgehost", "serve", "board"]
                )
            )
            await desktop.host.reload_server("sensors")
            panel._open_form(desktop.host.servers_config.get("sensors"))
            assert panel.form is not None
            panel.form.name.setText("probes")
            panel.form.save()
            saved = json.loads(desktop.host.paths.servers_file.read_text())["mcpServers"]
            assert list(saved) == ["probes"]
            await wait_until(
                lambda: {s.name for s in desktop.host.server_states()} == {"board", "files", "probes"}
            )

    run(scenario())
