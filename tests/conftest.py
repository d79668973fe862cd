"""Shared fixtures. Real things over mocks: real servers, a real model, a real SQLite file."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests import warm_folders
from tests.fake_hub import FakeHub

from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.slow_machine import wait_scale

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Under pytest-xdist each worker gets a temporary folder of its own (TMPDIR, inherited by the processes
# the tests start): what one test leaves or counts there (an export's file) is not another's.
if _worker := os.environ.get("PYTEST_XDIST_WORKER"):
    _own_tmp = Path(tempfile.gettempdir()) / f"edgehost-tests-{os.getpid()}-{_worker}"
    _own_tmp.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(_own_tmp)
    tempfile.tempdir = None  # read TMPDIR again
    atexit.register(shutil.rmtree, _own_tmp, ignore_errors=True)

REPO = Path(__file__).resolve().parent.parent
PEERS = REPO / "tests" / "peers" / "node_modules"

# `make test` sets this: there, a test that would skip because something `make test` itself provides is
# missing (a peer server from `make peers`, node, the default or the embedding model, llama-cpp-python,
# a C compiler, Debian's Chromium) fails instead, so the suite cannot go green with most of it skipped. Optional host
# tools (desktop-file-validate, rsvg-convert) still skip.
STRICT = os.environ.get("EDGEHOST_STRICT_TESTS") == "1"
_MISSING = re.compile(
    r"run `make peers`|node is not installed|default model is not installed|embedding model|"
    r"llama.cpp|llama_cpp|no C compiler|chromium is not installed",
    re.IGNORECASE,
)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Under EDGEHOST_WAIT_SCALE (a shared or emulated machine) the bound on a whole test grows by the
    same factor as the tests' own waits (their ``*_S`` bounds go through ``scaled_wait``), unless
    ``--timeout`` or PYTEST_TIMEOUT names one."""
    if wait_scale() > 1 and "PYTEST_TIMEOUT" not in os.environ:
        os.environ["PYTEST_TIMEOUT"] = str(float(config.getini("timeout")) * wait_scale())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if STRICT and report.skipped and call.excinfo is not None:
        reason = str(getattr(call.excinfo.value, "msg", call.excinfo.value))
        if _MISSING.search(reason):
            report.outcome = "failed"
            report.longrepr = f"make test needs this, and it is missing: {reason}"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """An empty --data-dir: all of EdgeHost's state for one test."""
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.fixture(scope="session")
def warm_default_cache(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The cache folder of a data folder with default settings that has answered once
    (tests/warm_folders.py), made once per run."""
    return warm_folders.warm_cache(tmp_path_factory, worker_id, "warm-default", {})


@pytest.fixture
def data_dir_answered_once(data_dir: Path, warm_default_cache: Path) -> Path:
    """An otherwise empty --data-dir whose cache is that of one answer before, as a person's is after
    the first question: the system prompt's KV state, the int8 embedding model, the tool vectors."""
    shutil.copytree(warm_default_cache, data_dir / "cache")
    return data_dir


def peer_path(*parts: str) -> Path:
    """Path of an installed npm peer; skips the test with the command to install it when missing."""
    path = PEERS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is missing: run `make peers`")
    return path


@pytest.fixture
def node() -> str:
    found = shutil.which("node")
    if not found:
        pytest.skip("node is not installed")
    return found


@pytest.fixture(scope="session")
def model_path() -> Path:
    """The embedded default model; skips with the command that installs it when it is missing."""
    from edgehost.errors import EdgeHostError
    from edgehost.llm.default_model import default_model_path

    try:
        return default_model_path()
    except EdgeHostError as exc:
        pytest.skip(str(exc))


@pytest.fixture
def empty_hub() -> Iterator[FakeHub]:
    """A local stand-in for the Hugging Face Hub (tests/fake_hub.py), started; add files to it."""
    hub = FakeHub().start()
    yield hub
    hub.stop()


@pytest.fixture
def everything_servers(node: str) -> ServersConfig:
    """server-everything (stdio) as the only configured server."""
    script = peer_path("@modelcontextprotocol", "server-everything", "dist", "index.js")
    return ServersConfig([ServerConfig(name="everything", command=node, args=[str(script), "stdio"])])


@pytest.fixture
def no_os_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Secrets (tokens, input values) go to the data folder's file, never to the keyring of the machine
    running the tests. Set on keyring itself: it chooses its backend once a process, so the environment
    variable would not reach a process that has chosen already."""
    import keyring
    from keyring.backends import fail

    monkeypatch.setattr(keyring.core, "_keyring_backend", fail.Keyring())
