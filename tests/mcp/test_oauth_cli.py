"""`edgehost auth login | status | logout` as a user runs them: a real process, the browser the one named
by ``$BROWSER`` (a script that follows the redirects), against the SDK-backed OAuth server."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
from tests.mcp.oauth_server import InMemoryAuthorizationServer, protected_server

from edgehost.slow_machine import scaled_wait

BROWSER = Path(__file__).resolve().parent / "scripted_browser.py"
# A process start, a sign-in over loopback and the browser script's visit.
CLI_TIMEOUT_S = scaled_wait(60.0)


def _command(data_dir: Path, config: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "edgehost", "--config", str(config), "--data-dir", str(data_dir), *args]


async def _edgehost(data_dir: Path, config: Path, *args: str) -> tuple[int, str, str]:
    env = {
        **os.environ,
        "BROWSER": f"{shlex.quote(sys.executable)} {shlex.quote(str(BROWSER))} %s",
        # Tokens go to the data folder's file, never to the keyring of the machine running the tests.
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    process = await asyncio.create_subprocess_exec(
        *_command(data_dir, config, *args),
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


def _config(tmp_path: Path, url: str) -> Path:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"remote": {"url": url}}}))
    return config


async def test_auth_login_where_no_browser_opens_says_so_with_the_port_to_forward_and_still_signs_in(
    tmp_path: Path,
) -> None:
    """No display, and the browser named by $BROWSER will not start (Chromium run as root does that):
    the person is told, given the address and the `ssh -L` line, and signing in from elsewhere works."""
    refusing = f"{shlex.quote(sys.executable)} -c {shlex.quote('raise SystemExit(1)')} %s"
    env = {name: value for name, value in os.environ.items() if name not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env |= {"BROWSER": refusing, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    async with protected_server() as protected:
        config = _config(tmp_path, protected.url)
        process = await asyncio.create_subprocess_exec(
            *_command(tmp_path / "data", config, "auth", "login", "remote"),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert process.stderr is not None
        said: list[str] = []
        async with asyncio.timeout(CLI_TIMEOUT_S):
            while not any("ssh -L" in line for line in said):
                line = (await process.stderr.readline()).decode()
                assert line, f"login ended without saying how to forward the port: {said}"
                said.append(line)
            url = next(
                line.strip() for line in said if line.strip().startswith(f"{protected.issuer}/authorize?")
            )
            port = parse_qs(urlsplit(url).query)["redirect_uri"][0].rsplit(":", 1)[1].split("/")[0]
            assert any(line.startswith("No browser could be opened here") for line in said)
            assert f"ssh -L {port}:127.0.0.1:{port} THIS-MACHINE" in "".join(said)
            # The person opens the printed address in a browser of their own.
            async with httpx2.AsyncClient(follow_redirects=True) as browser:
                landed = await browser.get(url)
            out, _ = await process.communicate()
    assert landed.status_code == 200 and "Signed in" in landed.text
    assert process.returncode == 0 and out.decode().strip() == "remote: signed in (scope mcp)"


async def test_auth_login_refused_in_the_browser_says_why_in_one_line_and_logs_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    provider = InMemoryAuthorizationServer(refuse_consent=True)
    async with protected_server(provider) as protected:
        code, out, err = await _edgehost(data, _config(tmp_path, protected.url), "auth", "login", "remote")
    assert code == 1
    assert (
        "edgehost: sign-in to 'remote' failed: the sign-in was refused in the browser "
        "(access_denied: The user refused)"
    ) in err.splitlines()
    assert "Traceback" not in err and "TaskGroup" not in err and "OAuth flow error" not in err
    logged = (data / "logs" / "edgehost.log").read_text()
    assert "sign-in to 'remote' failed: the sign-in was refused in the browser" in logged


async def test_ctrl_c_during_auth_login_keeps_the_earlier_sign_in(tmp_path: Path) -> None:
    data = tmp_path / "data"
    async with protected_server() as protected:
        config = _config(tmp_path, protected.url)
        code, _, err = await _edgehost(data, config, "auth", "login", "remote")
        assert code == 0, err
        before = json.loads((data / "oauth-credentials.json").read_text())

        idle_browser = f"{shlex.quote(sys.executable)} -c pass %s"  # opens, and the person never signs in
        env = {
            **os.environ,
            "BROWSER": idle_browser,
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        }
        process = await asyncio.create_subprocess_exec(
            *_command(data, config, "auth", "login", "remote"),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert process.stderr is not None
        try:
            async with asyncio.timeout(CLI_TIMEOUT_S):
                while b"/authorize?" not in await process.stderr.readline():
                    pass
                process.send_signal(signal.SIGINT)
                _, rest = await process.communicate()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert process.returncode == 130
    after = json.loads((data / "oauth-credentials.json").read_text())
    (key,) = before
    assert after[key].get("tokens") == before[key]["tokens"]
    assert after[key].get("client") == before[key]["client"]
    assert "Sign-in cancelled; the earlier sign-in, if any, is kept." in rest.decode()
