"""Only credentials are redacted: ordinary config values survive in stderr, logs and the history."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from tests.mcp.mcp_support import READY_TIMEOUT_S, running

from edgehost.mcp.config import ServerConfig, load_servers_config
from edgehost.mcp.manager import ServerManager
from edgehost.paths import Paths
from edgehost.redaction import REDACTED, redactor
from edgehost.store import Store

TOKEN = "ghp_0123456789abcdef"

# A real stdio server that tells its configuration on stderr and, during a call, in a log message.
SERVER = """
import os, sys, warnings
warnings.simplefilter("ignore")
from mcp.server.mcpserver import Context, MCPServer

env = os.environ
print(f"config debug={env['DEBUG']} path={env['DATA']} token={env['GH']}", file=sys.stderr, flush=True)
server = MCPServer("envy")

@server.tool()
async def show(ctx: Context) -> str:
    await ctx.info(f"reading {env['DATA']} with {env['GH']} (debug={env['DEBUG']})")
    return f"read {env['DATA']}/notes.txt"

server.run("stdio")
"""


def load_envy(tmp_path: Path, data_dir: Path) -> ServerConfig:
    script = tmp_path / "envy.py"
    script.write_text(SERVER)
    entry = {
        "command": sys.executable,
        "args": [str(script)],
        "env": {"DEBUG": "true", "DATA": "/home/user/data", "GH": "${GITHUB_TOKEN}"},
    }
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"envy": entry}}))
    config = load_servers_config(Paths.resolve(path, data_dir), environ={"GITHUB_TOKEN": TOKEN})
    server = config.get("envy")
    assert server is not None and server.error is None
    return server


async def wait_for_line(manager: ServerManager, tail: str, text: str) -> str:
    # Polled: stderr and log lines arrive through a reader thread or a notification, with no event.
    with anyio.fail_after(READY_TIMEOUT_S):
        while True:
            lines = manager.stderr_tail("envy") if tail == "stderr" else manager.log_tail("envy")
            found = [line for line in lines if text in line]
            if found:
                return found[-1]
            await anyio.sleep(0.02)


async def test_a_servers_stderr_and_logs_keep_ordinary_values_and_hide_its_token(
    tmp_path: Path, data_dir: Path
) -> None:
    async with running(load_envy(tmp_path, data_dir), auto_restart=False) as manager:
        stderr_line = await wait_for_line(manager, "stderr", "config debug=")
        await manager.call_tool("envy__show", {})
        log_line = await wait_for_line(manager, "log", "reading ")
    assert stderr_line == f"config debug=true path=/home/user/data token={REDACTED}"
    assert log_line.endswith(f"reading /home/user/data with {REDACTED} (debug=true)")


def test_the_history_keeps_ordinary_values_and_hides_the_token(tmp_path: Path, data_dir: Path) -> None:
    secrets = load_envy(tmp_path, data_dir).secret_values()
    db_path = data_dir / "history.db"
    with Store.open(db_path, redact=redactor(secrets)) as store:
        conversation = store.create_conversation("notes in /home/user/data")
        store.add_message(conversation, "user", '{"recursive": true} … /home/user/data/notes.txt')
        store.add_message(conversation, "tool", f"GH={TOKEN}", name="envy__show")
        execution_id = store.record_execution(
            server="envy",
            tool="envy__show",
            arguments={"recursive": True, "path": "/home/user/data/notes.txt", "debug": "true", "gh": TOKEN},
            status="ok",
            result=f"read /home/user/data/notes.txt as {TOKEN}",
        )
        messages = [m.content for m in store.list_messages(conversation)]
        execution = store.get_execution(execution_id)
        title = store.get_conversation(conversation).title  # type: ignore[union-attr]

    assert title == "notes in /home/user/data"
    assert messages == ['{"recursive": true} … /home/user/data/notes.txt', f"GH={REDACTED}"]
    assert execution is not None
    assert execution.arguments == {
        "recursive": True,
        "path": "/home/user/data/notes.txt",
        "debug": "true",
        "gh": REDACTED,
    }
    assert execution.result == f"read /home/user/data/notes.txt as {REDACTED}"
    for file in data_dir.glob("history.db*"):  # the database, its WAL and shared memory
        assert TOKEN.encode() not in file.read_bytes(), file
