"""`edgehost auth login | status | logout` as a user runs them: a real process, the browser the one named
by ``$BROWSER`` (a script that follows the redirects), against the SDK-backed OAuth server."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
from pathlib import Path

from tests.mcp.oauth_server import protected_server

BROWSER = Path(__file__).resolve().parent / "scripted_browser.py"
# A process start, a sign-in over loopback and the browser script's visit.
CLI_TIMEOUT_S = 60.0


async def _edgehost(data_dir: Path, config: Path, *args: str) -> tuple[int, str, str]:
    env = {
        **os.environ,
        "BROWSER": f"{shlex.quote(sys.executable)} {shlex.quote(str(BROWSER))} %s",
        # Tokens go to the data folder's file, never to the keyring of the machine running the tests.
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "edgehost",
        "--config",
        str(config),
        "--data-dir",
        str(data_dir),
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(CLI_TIMEOUT_S):
        out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def _row(out: str, server: str) -> dict[str, object]:
    row: dict[str, object] = next(r for r in json.loads(out) if r["server"] == server)
    return row


async def test_auth_login_opens_the_browser_and_the_tokens_are_kept_until_logout(tmp_path: Path) -> None:
    async with protected_server() as protected:
        config = tmp_path / "servers.json"
        config.write_text(json.dumps({"mcpServers": {"remote": {"url": protected.url}}}))
        data = tmp_path / "data"

        code, out, err = await _edgehost(data, config, "auth", "status", "--json")
        assert code == 0 and _row(out, "remote")["state"] == "not signed in"
        assert _row(out, "board")["state"] == "not used"  # a built-in stdio server

        code, out, err = await _edgehost(data, config, "auth", "login", "remote")
        assert code == 0, err
        assert out.strip() == "remote: signed in (scope mcp)"
        assert f"{protected.issuer}/authorize?" in err  # the page it opened, also printed
        assert protected.authorization_server.grants == ["authorization_code"]

        code, out, err = await _edgehost(data, config, "auth", "status", "remote", "--json")
        (status,) = json.loads(out)
        assert (
            status["state"] == "signed in" and status["refreshable"] and status["registration"] == "dynamic"
        )
        assert str(status["store"]).endswith("oauth-credentials.json")  # where they are kept
        assert not any(token in out for token in protected.authorization_server.access_tokens)

        # The signed-in server is usable from any command now, without a browser.
        code, out, err = await _edgehost(data, config, "call", "remote__whoami")
        assert code == 0, err
        assert out.splitlines()[0].endswith(" mcp")

        code, out, err = await _edgehost(data, config, "auth", "logout", "remote")
        assert code == 0 and out.strip() == "remote: signed out"
        code, out, err = await _edgehost(data, config, "call", "remote__whoami")
        assert code != 0 and "sign-in required" in err


def test_without_a_browser_login_says_which_port_to_forward(capsys) -> None:  # type: ignore[no-untyped-def]
    from edgehost.cli.auth_commands import _open_url

    url = (
        "https://auth.example/authorize?response_type=code&client_id=x"
        "&redirect_uri=http%3A%2F%2F127.0.0.1%3A33418%2Fcallback&state=s"
    )
    _open_url(no_browser=True)(url)
    said = capsys.readouterr().err
    assert url in said and "ssh -L 33418:127.0.0.1:33418" in said
    _open_url(no_browser=True)("https://auth.example/authorize?redirect_uri=https%3A%2F%2Fapp.example%2Fcb")
    assert "ssh -L" not in capsys.readouterr().err  # not a loopback redirect: nothing to forward
