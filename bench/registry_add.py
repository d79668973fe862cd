"""From a registry entry to a ready server: how long `edgehost servers add NAME --yes` takes until the
server is ready with its tools, for a PyPI entry (uvx, the time server) and an npm entry (npx, the
memory server), each from a stand-in registry in the registry's URL layout.

- ``RESULT registry_add_to_ready_s_pypi_first`` / ``..._npm_first``: with empty uv and npm caches (an
  empty HOME: the package and its dependencies are fetched from PyPI / the npm registry, as on a
  board's first day);
- ``RESULT registry_add_to_ready_s_pypi_second`` / ``..._npm_second``: the same server's next start
  (`edgehost servers --json` until it is ready), caches warm;
- ``RESULT registry_cli_baseline_s``: `edgehost servers --json` with the built-in servers only, in the
  same run: the CLI's own start, which every figure above includes.

The window's way, counted from its code and its test (tests/ui/test_registry_dialog.py): open the
Servers panel (1), "From the registry…" (2, it lists the servers at once), pick the card (3), fill a
value where the entry asks one without a default (0 for both here), Add and start (4), confirm the
command (5): ``RESULT registry_user_actions_to_ready 5``; the first tool call is then one question in
the chat (6).

    .venv/bin/python bench/registry_add.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.registry_standin import MEMORY, TIME, StandInRegistry  # noqa: E402

ENTRIES = {"pypi": (TIME, "time"), "npm": (MEMORY, "memory")}


def edgehost(home: Path, env: dict[str, str], *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "edgehost", "--data-dir", str(home), *args],
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    return time.monotonic() - started, done


def main() -> int:
    registry = StandInRegistry()
    for server, _name in ENTRIES.values():
        registry.add(server)
    registry.start()
    try:
        with tempfile.TemporaryDirectory(prefix="eh-registry-bench-") as scratch:
            root = Path(scratch)
            # An empty home: uvx's and npx's caches are under it (a server inherits HOME, not
            # UV_CACHE_DIR or npm_config_cache), so the first start fetches the package and its
            # dependencies, as on a board's first day.
            home_dir = root / "home"
            home_dir.mkdir()
            env = {
                **os.environ,
                "HOME": str(home_dir),
                "EDGEHOST_REGISTRY_URL": registry.url,
                "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            }
            baseline_home = root / "baseline"
            baseline_home.mkdir()
            baseline, done = edgehost(baseline_home, env, "servers", "--json")
            assert done.returncode == 0, done.stderr
            print(f"RESULT registry_cli_baseline_s {baseline:.2f}")
            for kind, (server, name) in ENTRIES.items():
                home = root / kind
                home.mkdir()
                first, done = edgehost(home, env, "servers", "add", server["name"], "--yes")
                if done.returncode != 0 or f"{name}: ready" not in done.stdout:
                    print(done.stdout, done.stderr, file=sys.stderr)
                    return 1
                second, done = edgehost(home, env, "servers", "--json", "--wait", "300")
                states = {s["name"]: s for s in json.loads(done.stdout)}
                assert states[name]["status"] == "ready", states[name]
                print(f"RESULT registry_add_to_ready_s_{kind}_first {first:.2f}")
                print(f"RESULT registry_add_to_ready_s_{kind}_second {second:.2f}")
            print("RESULT registry_user_actions_to_ready 5")
    finally:
        registry.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
