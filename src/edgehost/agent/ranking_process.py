"""The tool-ranking process: a VectorIndex (agent/vector_index.py) that serves the host over two pipes.

Why a process of its own (issue 12): in the GUI process the embedding model, numpy and its BLAS took
about 150 MB, and loading them held the GIL in pieces long enough to stall frames. Here they sit beside
the window, started like the model worker (edgehost.child_processes: off the event loop, below the
GUI's priority). Only this module's client half is imported by the host; it needs no numpy.

Messages are edgehost.llm._framing frames. The process speaks first: ``{"ready": NAME, "reasons": [...]}``
once its embedder is loaded, or ``{"unavailable": [...]}`` (and exits) when none runs here. Then, one
answer per request, in order:

    {"op": "prepare", "texts": [...]}                    -> {"ok": true}
    {"op": "anticipate", "query": Q}                     -> {"ok": true}
    {"op": "similarities", "query": Q, "texts": [...]}   -> {"scores": [...]}
    {"op": "close"} or the pipe closing                  -> the process exits

A request that fails is answered ``{"error": "..."}``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import select
import signal
import subprocess
import sys
import threading
import traceback
import weakref
from collections.abc import Sequence
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
# Both bounds above are multiplied by EDGEHOST_WAIT_SCALE (edgehost.slow_machine) on an emulator.
LOG_MAX_BYTES = 1_000_000


def ranking_command(
    fds: tuple[int, int], cache_dir: Path, npu_model: Path | None, npu_core_mask: str
) -> list[str]:
    args = [f"--fds={fds[0]},{fds[1]}", f"--cache-dir={cache_dir}", f"--npu-core-mask={npu_core_mask}"]
    if npu_model is not None:
        args.append(f"--npu-model={npu_model}")
    return python_module_command("edgehost.agent.ranking_process", FROZEN_COMMAND, *args)


class RankingProcess:
    """The host's handle on a ranking process: the VectorIndex surface (``name``, ``prepare``,
    ``anticipate``, ``similarities``, ``close``), blocking, safe to call from several threads (one request at a time).

    A process that exits, answers nonsense or hangs past REQUEST_TIMEOUT_S raises EmbeddingUnavailable
    (and is killed): the caller falls back to ranking by words.
    """

    def __init__(self, popen: subprocess.Popen[bytes], pipes: tuple[int, int], name: str) -> None:
        self.name = name
        self._popen = popen
        self._writer = MessageWriter(pipes[0])
        self._reader = os.fdopen(pipes[1], "rb", buffering=0)
        self._lock = threading.Lock()
        self._failed: str | None = None
        # A handle dropped without close() (its owner gone) still ends the process: the pipe closes.
        weakref.finalize(self, self._writer.close)

    @classmethod
    def start(
        cls,
        *,
        cache_dir: Path,
        npu_model: Path | None = None,
        npu_core_mask: str = "core2",
        log_file: Path | None = None,
    ) -> tuple[RankingProcess | None, tuple[str, ...]]:
        """Start one and wait until its embedder is loaded (blocking: call it from a thread).

        None, with the reasons, when no embedder runs here or the process cannot start.
        """
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
        process = cls(popen, (to_child_w, from_child_r), name="")
        try:
            hello = process._receive(scaled_wait(START_TIMEOUT_S))
        except EmbeddingUnavailable as exc:
            process.close()
            return None, (str(exc),)
        if "ready" not in hello:
            process.close()
            return None, tuple(
                str(r) for r in hello.get("unavailable", ["the ranking process sent no greeting"])
            )
        process.name = str(hello["ready"])
        return process, tuple(str(r) for r in hello.get("reasons", ()))

    @property
    def pid(self) -> int:
        return self._popen.pid

    def prepare(self, texts: Sequence[str]) -> None:
        self._request({"op": "prepare", "texts": list(texts)})

    def anticipate(self, query: str) -> None:
        self._request({"op": "anticipate", "query": query})

    def similarities(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        scores = self._request({"op": "similarities", "query": query, "texts": list(texts)}).get("scores")
        if not isinstance(scores, list) or len(scores) != len(texts):
            raise self._fail("the ranking process answered without one score per text")
        return [float(s) for s in scores]

    def close(self) -> None:
        """Ask it to exit, and kill it when it has not within CLOSE_TIMEOUT_S."""
        with self._lock:
            self._failed = "the ranking process was closed"
        with contextlib.suppress(OSError):
            self._writer.send({"op": "close"})
        self._writer.close()
        try:
            self._popen.wait(CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._popen.kill()
            self._popen.wait()
        self._reader.close()

    def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if self._failed is not None:
                raise EmbeddingUnavailable(self._failed)
            try:
                self._writer.send(message)
            except OSError:
                raise self._fail(self._exit_reason()) from None
            answer = self._receive(scaled_wait(REQUEST_TIMEOUT_S))
        if "error" in answer:
            raise EmbeddingUnavailable(f"the ranking process failed: {answer['error']}")
        return answer

    def _receive(self, timeout: float) -> dict[str, Any]:
        ready, _, _ = select.select([self._reader], [], [], timeout)
        if not ready:
            self._popen.kill()
            raise self._fail(f"the ranking process did not answer within {timeout:.0f} s")
        try:
            message = read_message(self._reader)
        except (OSError, ValueError) as exc:
            raise self._fail(f"the ranking process sent a broken message: {exc}") from None
        if message is None:
            raise self._fail(self._exit_reason())
        return message

    def _exit_reason(self) -> str:
        try:
            code = self._popen.wait(CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._popen.kill()
            return "the ranking process stopped answering"
        if code < 0:
            return f"the ranking process exited with signal {-code} ({signal.Signals(-code).name})"
        return f"the ranking process exited with code {code}"

    def _fail(self, reason: str) -> EmbeddingUnavailable:
        self._failed = reason
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
    writer.send({"ready": index.name, "reasons": list(reasons)})
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
                    writer.send({"scores": index.similarities(message["query"], message["texts"])})
                else:
                    writer.send({"error": f"unknown request {message.get('op')!r}"})
            except Exception as exc:  # noqa: BLE001 - told to the host, which ranks by words instead
                traceback.print_exc()
                writer.send({"error": f"{type(exc).__name__}: {exc}"})
    index.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
