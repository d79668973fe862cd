"""Each command imports only its own module (cli/main.py COMMAND_MODULES): the table names every command
each module registers, and a command that needs no MCP client starts without importing the SDK."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from edgehost.cli.main import COMMAND_MODULES, build_parser


def registered_commands(module: str) -> set[str]:
    parser = argparse.ArgumentParser()
    importlib.import_module(module).register(parser.add_subparsers(dest="command"))
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(subparsers.choices)


@pytest.mark.parametrize("module", list(COMMAND_MODULES))
def test_the_table_names_the_commands_each_module_registers(module: str) -> None:
    assert registered_commands(module) == set(COMMAND_MODULES[module])


def test_the_top_level_help_lists_every_command(capsys) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    listed = capsys.readouterr().out
    for words in COMMAND_MODULES.values():
        for word in words:
            assert word in listed


LOADED = """
import json, sys
from edgehost.cli.main import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in ("mcp", "edgehost.host.host") if m in sys.modules)]))
"""


def run_main(*argv: str) -> tuple[int, list[str], str]:
    done = subprocess.run([sys.executable, "-c", LOADED, *argv], capture_output=True, text=True, timeout=120)
    code, loaded = json.loads(done.stdout.strip().splitlines()[-1])
    return code, loaded, done.stdout + done.stderr


@pytest.mark.parametrize("argv", [("history",), ("models",), ("calls",)])
def test_commands_without_an_mcp_client_start_without_the_sdk(data_dir: Path, argv: tuple[str, ...]) -> None:
    code, loaded, output = run_main("--data-dir", str(data_dir), *argv)
    assert code == 0, output
    assert loaded == [], f"`edgehost {' '.join(argv)}` imported {loaded}"


def test_a_misspelt_command_is_refused_with_every_command_listed(data_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "edgehost", "--data-dir", str(data_dir), "histroy"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "invalid choice: 'histroy'" in done.stderr
    assert "'history'" in done.stderr and "'servers'" in done.stderr
