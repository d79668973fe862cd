"""`edgehost web` as users start it: it prints where the page is, serves it, and stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import httpx2

from edgehost.slow_machine import scaled_wait

START_S = round(scaled_wait(120))  # the built-in servers and the model start before the page is served


def _web(data_dir: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "EDGEHOST_DATA_DIR": str(data_dir)}
    return subprocess.Popen(
        [sys.executable, "-m", "edgehost", "web", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _global_addresses() -> list[str] | None:
    """This machine's IPv4 addresses that other machines can reach, as `ip` lists them ([] if none;
    None without the `ip` command)."""
    if shutil.which("ip") is None:
        return None
    done = subprocess.run(
        ["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True, text=True, check=False
    )
    return [line.split()[3].split("/")[0] for line in done.stdout.splitlines() if len(line.split()) > 3]


def test_edgehost_web_prints_a_link_with_its_token_serves_it_and_stops_on_sigterm(data_dir: Path) -> None:
    token_file = data_dir / "my-token"
    process = _web(data_dir, "--host", "0.0.0.0", "--token-file", str(token_file))
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("EdgeHost is serving the chat page at http://"), first
        url = first.split(" at ", 1)[1].strip()
        token = token_file.read_text().strip()
        assert url.endswith(f"/?token={token}")
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert f"A new token was made and kept in {token_file}" in process.stdout.readline()
        # The link is for the other devices on the LAN: an address of this machine's, not 127.x (the
        # host name's address is 127.0.1.1 on board images).
        lan = _global_addresses()
        if lan is not None:
            assert url.split("/")[2].split(":")[0] in (lan or ["127.0.0.1"]), (url, lan)
        port = url.split(":")[2].split("/")[0]
        base = f"http://127.0.0.1:{port}"
        assert httpx2.get(f"{base}/health", timeout=10).status_code == 401
        health = httpx2.get(f"{base}/health", headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
        assert health["status"] == "ok" and health["servers"]["total"] == 2
        assert "EdgeHost" in httpx2.get(url, timeout=10).text
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert "stopped" in err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_a_port_in_use_is_a_clear_error(data_dir: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "EDGEHOST_DATA_DIR": str(data_dir)}
        done = subprocess.run(
            [sys.executable, "-m", "edgehost", "web", "--port", str(port)],
            capture_output=True,
            text=True,
            env=env,
            timeout=START_S,
            check=False,
        )
    assert done.returncode == 1
    assert f"could not listen on 127.0.0.1:{port}" in done.stderr
