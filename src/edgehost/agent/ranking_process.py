"""The tool-ranking process: a VectorIndex (agent/vector_index.py) that serves the host over two pipes.

Why a process of its own (issue 12): in the GUI process the embedding model, numpy and its BLAS took
about 150 MB, and loading them held the GIL in pieces long enough to stall frames. Here they sit beside
the window, started like the model worker (edgehost.child_processes: off the event loop, below the
GUI's priority). Only this module's client half is imported by the host; it needs no numpy.

Messages are edgehost.llm._framing frames. The process speaks first:
``{"ready": NAME, "tool_model": NAME_OR_EMPTY, "reasons": [...]}``
once its embedder is loaded, or ``{"unavailable": [...]}`` (and exits) when none runs here. Then, one
answer per request, in order:

    {"op": "prepare", "texts": [...]}                    -> {"ok": true}
    {"op": "anticipate", "query": Q}                     -> {"ok": true}
    {"op": "similarities", "query": Q, "texts": [...], "keep": bool} -> {"scores": [...]}
    {"op": "tool_similarities", "query": Q, "texts": [...], "adapted": bool} -> {"scores": [...]}
    {"op": "projections", "query": Q, "directions": [[...], ...], "joint": bool} -> {"scores": [...]}
    {"op": "close"} or the pipe closing                  -> the process exits

A request that fails is answered ``{"error": "..."}``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import functools
import os
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from edgehost.child_processes import python_module_command, spawn_below
from edgehost.errors import EmbeddingUnavailable
from edgehost.llm._framing import MessageWriter, read_message
from edgehost.logs import open_child_log
from edgehost.slow_machine import scaled_wait

__all__ = ["RankingProcess", "main", "ranking_command"]

FROZEN_COMMAND = "__ranker__"
# Loading the model reads ~25 MB (90 MB the first time, when its int8 copy is written) from an SD card.
START_TIMEOUT_S = 120.0
# Embedding a few hundred tool descriptions on a busy board takes seconds; one that takes minutes hangs.
REQUEST_TIMEOUT_S = 120.0
CLOSE_TIMEOUT_S = 5.0
# The process ends after this long without a request, and starts again on the next (RankingProcess).
REST_AFTER_S = 60.0
# Both bounds above are multiplied by EDGEHOST_WAIT_SCALE (edgehost.slow_machine) on an emulator.
LOG_MAX_BYTES = 1_000_000


def ranking_command(
    fds: tuple[int, int], cache_dir: Path, npu_model: Path | None, npu_core_mask: str
) -> list[str]:
    args = [f"--fds={fds[0]},{fds[1]}", f"--cache-dir={cache_dir}", f"--npu-core-mask={npu_core_mask}"]
    if npu_model is not None:
        args.append(f"--npu-model={npu_model}")
    return python_module_command("edgehost.agent.ranking_process", FROZEN_COMMAND, *args)


class _Connection:
    """One running ranking process and the pipes to it."""

    def __init__(self, popen: subprocess.Popen[bytes], pipes: tuple[int, int]) -> None:
        self.popen = popen
        self.writer = MessageWriter(pipes[0])
        self.reader = os.fdopen(pipes[1], "rb", buffering=0)
        # A connection dropped without close() (its owner gone) still ends the process: the pipe closes.
        weakref.finalize(self, self.writer.close)

    @classmethod
    def launch(
        cls, cache_dir: Path, npu_model: Path | None, npu_core_mask: str, log_file: Path | None
    ) -> tuple[_Connection | None, dict[str, Any] | tuple[str, ...]]:
        """Start a process and read its greeting; (None, reasons) when it cannot start or answer."""
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        try:
            stderr, _start = open_child_log(log_file, LOG_MAX_BYTES)
            try:
                popen = spawn_below(
                    ranking_command((to_child_r, from_child_w), cache_dir, npu_model, npu_core_mask),
                    pass_fds=(to_child_r, from_child_w),
                    stdin=subprocess.DEVNULL,
                    stdout=stderr,
                    stderr=stderr,
                    env=_environment(),
                )
            finally:
                if not isinstance(stderr, int):
                    stderr.close()
        except OSError as exc:
            for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
                os.close(fd)
            return None, (f"the ranking process could not start: {exc}",)
        os.close(to_child_r)
        os.close(from_child_w)
        connection = cls(popen, (to_child_w, from_child_r))
        try:
            return connection, connection.receive(scaled_wait(START_TIMEOUT_S))
        except EmbeddingUnavailable as exc:
            connection.close()
            return None, (str(exc),)

    def receive(self, timeout: float) -> dict[str, Any]:
        """The next message; EmbeddingUnavailable (the process killed) when none comes in time."""
        ready, _, _ = select.select([self.reader], [], [], timeout)
        if not ready:
            self.popen.kill()
            raise EmbeddingUnavailable(f"the ranking process did not answer within {timeout:.0f} s")
        try:
            message = read_message(self.reader)
        except (OSError, ValueError) as exc:
            raise EmbeddingUnavailable(f"the ranking process sent a broken message: {exc}") from None
        if message is None:
            raise EmbeddingUnavailable(self.exit_reason())
        return message

    def exit_reason(self) -> str:
        try:
            code = self.popen.wait(CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            return "the ranking process stopped answering"
        if code < 0:
            return f"the ranking process exited with signal {-code} ({signal.Signals(-code).name})"
        return f"the ranking process exited with code {code}"

    def close(self) -> None:
        """Ask it to exit, and kill it when it has not within CLOSE_TIMEOUT_S."""
        with contextlib.suppress(OSError):
            self.writer.send({"op": "close"})
        self.writer.close()
        try:
            self.popen.wait(CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
        self.reader.close()

    def kill(self) -> None:
        """End it without asking (it failed): killed, reaped, its pipes closed."""
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.popen.kill()
            self.popen.wait(CLOSE_TIMEOUT_S)
        self.writer.close()
        self.reader.close()


class RankingProcess:
    """The host's handle on a ranking process: the VectorIndex surface (``name``, ``prepare``,
    ``anticipate``, ``similarities``, ``projections``, ``close``), blocking, safe to call from several threads (one request at a time).

    The process rests: after ``rest_s`` seconds without a request it is ended, and the next request
    starts it again (its tool vectors are on disk, so it embeds nothing again). At idle the app then
    holds no embedder: about 80 MB less (issue 35). A question typed is embedded while it is typed
    (``anticipate``), which wakes the process before the question is sent.

    A process that exits, answers nonsense or hangs past REQUEST_TIMEOUT_S raises EmbeddingUnavailable
    (and is killed), as does one that cannot start again: the caller falls back to ranking by words.
    """

    def __init__(
        self,
        connection: _Connection,
        name: str,
        relaunch: Callable[[], tuple[_Connection | None, dict[str, Any] | tuple[str, ...]]],
        rest_s: float,
        tool_model_name: str = "",
    ) -> None:
        self.name = name
        self.tool_model_name = tool_model_name
        self._connection: _Connection | None = connection
        self._relaunch = relaunch
        self._rest_s = rest_s
        self._lock = threading.Lock()
        self._failed: str | None = None
        self._last_request = time.monotonic()
        self._rest_timer: threading.Timer | None = None
        self.starts = 1  # processes started so far

    @classmethod
    def start(
        cls,
        *,
        cache_dir: Path,
        npu_model: Path | None = None,
        npu_core_mask: str = "core2",
        log_file: Path | None = None,
        rest_s: float = REST_AFTER_S,
    ) -> tuple[RankingProcess | None, tuple[str, ...]]:
        """Start one and wait until its embedder is loaded (blocking: call it from a thread).

        None, with the reasons, when no embedder runs here or the process cannot start.
        """
        launch = functools.partial(_Connection.launch, cache_dir, npu_model, npu_core_mask, log_file)
        connection, hello = launch()
        if connection is None or not isinstance(hello, dict):
            return None, tuple(hello)
        if "ready" not in hello:
            connection.close()
            return None, tuple(
                str(r) for r in hello.get("unavailable", ["the ranking process sent no greeting"])
            )
        process = cls(connection, str(hello["ready"]), launch, rest_s, str(hello.get("tool_model", "")))
        process._rest_later()
        return process, tuple(str(r) for r in hello.get("reasons", ()))

    @property
    def pid(self) -> int | None:
        """The running process's id; None while it rests."""
        connection = self._connection
        return connection.popen.pid if connection is not None else None

    def prepare(self, texts: Sequence[str]) -> None:
        self._request({"op": "prepare", "texts": list(texts)})

    def anticipate(self, query: str) -> None:
        self._request({"op": "anticipate", "query": query})

    def similarities(self, query: str, texts: Sequence[str], keep: bool = True) -> list[float]:
        return self._scores({"op": "similarities", "query": query, "texts": list(texts), "keep": keep})

    def tool_similarities(self, query: str, texts: Sequence[str], adapted: bool = True) -> list[float]:
        message = {"op": "tool_similarities", "query": query, "texts": list(texts), "adapted": adapted}
        return self._scores(message)

    def _scores(self, message: dict[str, Any]) -> list[float]:
        if not message["texts"]:
            return []
        scores = self._request(message).get("scores")
        if not isinstance(scores, list) or len(scores) != len(message["texts"]):
            raise self._fail("the ranking process answered without one score per text")
        return [float(s) for s in scores]

    def projections(
        self, query: str, directions: Sequence[Sequence[float]], joint: bool = False
    ) -> list[float]:
        if not directions:
            return []
        message = {
            "op": "projections",
            "query": query,
            "directions": [list(d) for d in directions],
            "joint": joint,
        }
        scores = self._request(message).get("scores")
        if not isinstance(scores, list) or len(scores) != len(directions):
            raise self._fail("the ranking process answered without one score per direction")
        return [float(s) for s in scores]

    def close(self) -> None:
        """End the process (asked, then killed after CLOSE_TIMEOUT_S); no requests after this."""
        with self._lock:
            self._failed = "the ranking process was closed"
            if self._rest_timer is not None:
                self._rest_timer.cancel()
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if self._failed is not None:
                raise EmbeddingUnavailable(self._failed)
            connection = self._connection or self._wake()
            try:
                connection.writer.send(message)
            except OSError:
                raise self._fail(connection.exit_reason()) from None
            try:
                answer = connection.receive(scaled_wait(REQUEST_TIMEOUT_S))
            except EmbeddingUnavailable as exc:
                raise self._fail(str(exc)) from None
            self._last_request = time.monotonic()
        self._rest_later()
        if "error" in answer:
            raise EmbeddingUnavailable(f"the ranking process failed: {answer['error']}")
        return answer

    def _wake(self) -> _Connection:
        """Start the process again after a rest (under the lock)."""
        connection, hello = self._relaunch()
        if connection is None or not isinstance(hello, dict) or "ready" not in hello:
            if connection is not None:
                connection.close()
            reasons = hello.get("unavailable", []) if isinstance(hello, dict) else hello
            raise self._fail("the ranking process did not start again: " + "; ".join(map(str, reasons)))
        self._connection = connection
        # A process started again may load other models (e5 failing where it loaded before): the probe
        # and the ranking ask for what this one has.
        self.name = str(hello["ready"])
        self.tool_model_name = str(hello.get("tool_model", ""))
        self.starts += 1
        return connection

    def _rest_later(self) -> None:
        timer = threading.Timer(self._rest_s, self._rest)
        timer.daemon = True
        with self._lock:
            if self._failed is not None:
                return
            if self._rest_timer is not None:
                self._rest_timer.cancel()
            self._rest_timer = timer
        timer.start()

    def _rest(self) -> None:
        """End the process when no request came for ``rest_s`` (on the timer's thread)."""
        if not self._lock.acquire(blocking=False):  # a request is under way: it sets a new timer
            return
        try:
            # A request that ended just as this timer fired has set the next one: leave the rest to it.
            if self._failed is not None or time.monotonic() - self._last_request < self._rest_s * 0.9:
                return
            connection, self._connection = self._connection, None
        finally:
            self._lock.release()
        if connection is not None:
            connection.close()

    def _fail(self, reason: str) -> EmbeddingUnavailable:
        self._failed = reason
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.kill()
        return EmbeddingUnavailable(reason)


def _environment() -> dict[str, str]:
    """Ours, with one BLAS thread: the matrices are small, and idle BLAS threads spin (the embedder
    limits them per call too, but then they exist)."""
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


# ---------------------------------------------------------------------------------- the process itself
def _give_back_freed_memory() -> None:
    """Return freed heap memory to the system (glibc's malloc_trim). Loading the model frees about
    90 MB of temporaries (reading, dequantising, transposing) and embedding a batch of tools some more;
    glibc keeps freed memory for reuse unless asked: 45 MB of this process's RSS after a load."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to ask
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="edgehost-ranker", description="EdgeHost tool-ranking process")
    parser.add_argument("--fds", required=True, help="READ_FD,WRITE_FD of the pipes to the host")
    parser.add_argument(
        "--cache-dir", required=True, type=Path, help="where tool vectors and the int8 model are kept"
    )
    parser.add_argument("--npu-model", type=Path, help="the embedding model converted to .rknn")
    parser.add_argument("--npu-core-mask", default="core2")
    args = parser.parse_args(argv)
    read_fd, write_fd = (int(fd) for fd in args.fds.split(","))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the host's; it closes us through the pipe
    from edgehost.agent.vector_index import open_index  # numpy: here, not in the host

    writer = MessageWriter(write_fd)
    index, reasons = open_index(
        npu_model=args.npu_model, npu_core_mask=args.npu_core_mask, cache_dir=args.cache_dir
    )
    if index is None:
        writer.send({"unavailable": list(reasons)})
        return 0
    _give_back_freed_memory()
    writer.send({"ready": index.name, "tool_model": index.tool_model_name, "reasons": list(reasons)})
    with os.fdopen(read_fd, "rb") as reader:
        while (message := read_message(reader)) is not None and message.get("op") != "close":
            try:
                if message.get("op") == "prepare":
                    index.prepare(message["texts"])
                    _give_back_freed_memory()
                    writer.send({"ok": True})
                elif message.get("op") == "anticipate":
                    index.anticipate(message["query"])
                    writer.send({"ok": True})
                elif message.get("op") == "similarities":
                    scores = index.similarities(message["query"], message["texts"], message.get("keep", True))
                    writer.send({"scores": scores})
                elif message.get("op") == "tool_similarities":
                    scores = index.tool_similarities(
                        message["query"], message["texts"], message.get("adapted", True)
                    )
                    writer.send({"scores": scores})
                elif message.get("op") == "projections":
                    scores = index.projections(
                        message["query"], message["directions"], message.get("joint", False)
                    )
                    writer.send({"scores": scores})
                else:
                    writer.send({"error": f"unknown request {message.get('op')!r}"})
            except Exception as exc:  # noqa: BLE001 - told to the host, which ranks by words instead
                traceback.print_exc()
                writer.send({"error": f"{type(exc).__name__}: {exc}"})
    index.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
