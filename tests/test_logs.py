"""Logging: records reach a rotating file in the log folder; `serve` keeps stderr and writes no file."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import ModuleType

import pytest

from edgehost.cli import board_commands, config_commands
from edgehost.cli.context import CliContext
from edgehost.cli.main import main
from edgehost.llm.base import BackendError
from edgehost.llm.worker_backend import WORKER_LOG_MAX_BYTES, WorkerBackend
from edgehost.logs import LOG_FILE_NAME, MAX_BYTES, configure_logging, open_child_log, rotate_when_larger
from edgehost.paths import Paths
from edgehost.slow_machine import scaled_wait

WORKER_START_S = scaled_wait(60.0)  # a Python process starting on a loaded 2-core CI machine


def test_a_warning_from_the_host_reaches_the_log_file_and_stderr(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = Paths.resolve(None, data_dir)
    setup = configure_logging(paths)
    try:
        logging.getLogger("edgehost.host.host").warning("listener failed on %s", "TurnCompleted")
        logging.getLogger("edgehost.mcp.manager").info("server %s ready", "files")
        logging.getLogger("httpx2").info("HTTP Request: GET https://example.invalid/?token=abc")
    finally:
        setup.close()
    text = (paths.log_dir / LOG_FILE_NAME).read_text(encoding="utf-8")
    assert "WARNING edgehost.host.host: listener failed on TurnCompleted" in text
    assert "INFO edgehost.mcp.manager: server files ready" in text
    assert "token=abc" not in text  # other libraries' INFO records stay out
    err = capsys.readouterr().err
    assert "listener failed on TurnCompleted" in err and "server files ready" not in err


def test_verbose_prints_info_records_on_stderr(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup = configure_logging(Paths.resolve(None, data_dir), verbose=True)
    try:
        logging.getLogger("edgehost.mcp.manager").info("server %s ready", "files")
    finally:
        setup.close()
    assert "server files ready" in capsys.readouterr().err


def test_close_removes_the_handlers_and_restores_the_root_level(data_dir: Path) -> None:
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    configure_logging(Paths.resolve(None, data_dir)).close()
    assert (list(root.handlers), root.level) == before


def test_the_log_file_rotates_past_its_size_keeping_three_old_files(data_dir: Path) -> None:
    paths = Paths.resolve(None, data_dir)
    setup = configure_logging(paths, stream=False)
    line = "x" * 1000
    try:
        for _ in range(MAX_BYTES // 1000 * 5):
            logging.getLogger("edgehost.test").warning(line)
    finally:
        setup.close()
    files = sorted(p.name for p in paths.log_dir.iterdir())
    assert files == [LOG_FILE_NAME, *(f"{LOG_FILE_NAME}.{n}" for n in (1, 2, 3))]
    assert all((paths.log_dir / name).stat().st_size <= MAX_BYTES for name in files)


def test_an_unwritable_log_folder_leaves_logging_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    paths = dataclasses.replace(Paths.resolve(None, tmp_path), log_dir=blocker / "logs")
    setup = configure_logging(paths, stream=False)
    try:
        assert setup.file is None
        logging.getLogger("edgehost.test").warning("still seen")
    finally:
        setup.close()
    err = capsys.readouterr().err
    assert "cannot write logs to" in err and "still seen" in err


def logging_handler_for(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, command: str
) -> list[list[logging.Handler]]:
    """Make ``command`` (registered by ``module``) log a warning and record the root's handlers."""
    seen: list[list[logging.Handler]] = []

    def handler(ctx: CliContext) -> int:
        seen.append(list(logging.getLogger().handlers))
        logging.getLogger("edgehost.cli.test").warning("command %s ran", command)
        return 0

    register = module.register

    def register_then_replace(sub: argparse._SubParsersAction) -> None:
        register(sub)
        sub.choices[command].set_defaults(handler=handler)

    monkeypatch.setattr(module, "register", register_then_replace)
    return seen


def test_a_cli_command_logs_to_its_data_folder_and_main_removes_the_handlers_after(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = logging_handler_for(monkeypatch, board_commands, "doctor")
    before = list(logging.getLogger().handlers)
    assert main(["--data-dir", str(data_dir), "doctor"]) == 0
    assert any(isinstance(h, RotatingFileHandler) for h in seen[0])
    assert "command doctor ran" in (data_dir / "logs" / LOG_FILE_NAME).read_text(encoding="utf-8")
    assert "command doctor ran" in capsys.readouterr().err
    assert logging.getLogger().handlers == before


def test_serve_configures_no_file_logging(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Built-in servers keep stderr to themselves (the host captures it) and write no log file.
    seen = logging_handler_for(monkeypatch, config_commands, "serve")
    before = list(logging.getLogger().handlers)
    assert main(["--data-dir", str(data_dir), "serve", "board"]) == 0
    assert seen == [before]  # no handler added while it runs
    assert not (data_dir / "logs" / LOG_FILE_NAME).exists()


def test_a_worker_log_past_its_size_is_moved_aside_once(tmp_path: Path) -> None:
    log = tmp_path / "worker.log"
    log.write_bytes(b"x" * 101)
    assert rotate_when_larger(log, 100)
    assert not log.exists() and (tmp_path / "worker.log.1").stat().st_size == 101
    log.write_bytes(b"y" * 100)
    assert not rotate_when_larger(log, 100)
    assert not rotate_when_larger(tmp_path / "missing.log", 100)


async def test_a_worker_start_moves_a_worker_log_past_its_size_aside(tmp_path: Path) -> None:
    old = b"llama.cpp said something\n" * (WORKER_LOG_MAX_BYTES // 25 + 1)
    (tmp_path / "worker.log").write_bytes(old)
    # A real worker process: it starts, fails to import this engine and exits.
    backend = WorkerBackend("edgehost_no_such_engine:create", {}, log_dir=tmp_path)
    try:
        with pytest.raises(BackendError, match="cannot import the engine module"):
            await asyncio.wait_for(backend.load(), WORKER_START_S)
    finally:
        await backend.close()
    assert (tmp_path / "worker.log.1").read_bytes() == old
    assert (tmp_path / "worker.log").stat().st_size < len(old)


async def test_worker_log_says_which_model_the_worker_loaded(tmp_path: Path, model_path: Path) -> None:
    backend = WorkerBackend(
        "llamacpp", {"model_path": str(model_path), "n_ctx": 256, "threads": 1}, log_dir=tmp_path
    )
    try:
        await asyncio.wait_for(backend.load(), WORKER_START_S)
    finally:
        await backend.close()
    text = (tmp_path / "worker.log").read_text(encoding="utf-8")
    assert f"llamacpp loaded {model_path} (gguf, context 256" in text


def test_the_history_and_the_logs_are_private_in_a_folder_others_may_read(tmp_path: Path) -> None:
    # A data folder the user made himself (0755): EdgeHost's files in it still hold conversations,
    # tool results and servers' output, and only their owner may read them.
    from edgehost.store import Store

    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    paths = Paths.resolve(None, folder)
    setup = configure_logging(paths)
    try:
        logging.getLogger("edgehost.host.host").warning("something happened")
    finally:
        setup.close()
    store = Store.open(paths.history_db)
    try:
        store.create_conversation("private")
    finally:
        store.close()
    child_log, _start = open_child_log(paths.log_dir / "worker.log")
    child_log.close()
    for made in (paths.history_db, paths.log_dir / LOG_FILE_NAME, paths.log_dir / "worker.log"):
        assert made.stat().st_mode & 0o077 == 0, f"{made} is {oct(made.stat().st_mode & 0o777)}"
    wal = paths.history_db.with_name(paths.history_db.name + "-wal")
    assert not wal.exists() or wal.stat().st_mode & 0o077 == 0
