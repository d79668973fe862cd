"""The inference worker process (ARCHITECTURE decision 4).

Runs one Engine and keeps it (and its KV cache) between turns. The main thread reads requests from
the host pipe so that a cancel reaches ``engine.abort()`` while the engine thread is generating; the
engine thread runs requests one after another and streams text back. Stop sequences are matched
here, once for every engine. The process exits when the host closes the pipe or asks it to.

Started by edgehost.llm.worker_backend.worker_command(): ``python -m edgehost.llm.worker --fds R,W``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import queue
import resource
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterable, Sequence
from typing import Any, BinaryIO

from edgehost.llm._framing import MessageWriter, read_message
from edgehost.llm._wire import request_from_wire, to_wire
from edgehost.llm.base import BackendError, GenerationRequest, Perf
from edgehost.llm.engine import Engine, engine_from_registry
from edgehost.llm.textstream import LoopDetector, StopMatch, StopMatcher

__all__ = ["cpu_list", "main", "plan_affinity", "render_prompt", "run_worker"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="edgehost-worker", description="EdgeHost inference worker")
    parser.add_argument("--fds", required=True, help="READ_FD,WRITE_FD of the pipes to the host")
    args = parser.parse_args(argv)
    read_fd, write_fd = (int(fd) for fd in args.fds.split(","))
    # Ctrl-C in the terminal is the host's to handle; it cancels or closes us through the pipe.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with os.fdopen(read_fd, "rb") as reader:
        return run_worker(reader, MessageWriter(write_fd))


def run_worker(reader: BinaryIO, writer: MessageWriter) -> int:
    """Serve requests until the host closes the pipe or sends ``close``; returns the exit code."""
    worker = _Worker(writer)
    engine_thread = threading.Thread(target=worker.serve_jobs, name="engine", daemon=True)
    engine_thread.start()
    while True:
        message = read_message(reader)
        if message is None or message.get("op") == "close":
            break
        if message.get("op") == "cancel":
            worker.cancel(int(message["id"]))
        else:
            worker.jobs.put(message)
    worker.abort_running()
    worker.jobs.put(None)
    engine_thread.join()
    writer.close()
    return 0


def render_prompt(engine: Engine, request: GenerationRequest) -> str:
    """The conversation in the model's template, the generation prompt, then the continuation."""
    return (
        engine.format_chat(request.messages, add_generation_prompt=True, tools=request.tools)
        + request.continuation
    )


class _Worker:
    def __init__(self, writer: MessageWriter) -> None:
        self.jobs: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._writer = writer
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._running: int | None = None
        self._cancelled: set[int] = set()

    def cancel(self, job_id: int) -> None:
        with self._lock:
            self._cancelled.add(job_id)
            running = self._running == job_id
        if running and self._engine is not None:
            self._engine.abort()

    def abort_running(self) -> None:
        with self._lock:
            running = self._running
        if running is not None:
            self.cancel(running)

    def serve_jobs(self) -> None:
        while (job := self.jobs.get()) is not None:
            job_id = int(job.get("id", 0))
            try:
                self._serve(job_id, job)
            except BackendError as exc:
                self._send({"id": job_id, "type": "error", "message": str(exc)})
            except Exception as exc:
                traceback.print_exc(file=sys.stderr)
                self._send({"id": job_id, "type": "error", "message": f"{type(exc).__name__}: {exc}"})
        if self._engine is not None:
            self._engine.close()

    def _serve(self, job_id: int, job: dict[str, Any]) -> None:
        op = job.get("op")
        if op == "load":
            self._send({"id": job_id, "type": "result", "value": self._load(job["engine"], job["config"])})
        elif op == "generate":
            self._generate(job_id, request_from_wire(job["request"]))
        elif op == "count_tokens":
            self._send({"id": job_id, "type": "result", "value": len(self._loaded().tokenize(job["text"]))})
        elif op == "reset":
            self._loaded().reset()
            self._send({"id": job_id, "type": "result", "value": None})
        else:
            raise BackendError(f"the worker does not know the request {op!r}")

    def _load(self, engine_name: str, config: dict[str, Any]) -> dict[str, Any]:
        pinning = _apply_affinity(config.get("affinity") or [])
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        engine = engine_from_registry(engine_name, config)
        started = time.monotonic()
        info = engine.load()
        self._engine = engine
        # worker.log (this process's stderr) says what ran where, not only a crash's last words.
        print(
            f"{time.strftime('%Y-%m-%d %H:%M:%S')} worker {os.getpid()}: {engine_name} loaded {info.path}"
            f" ({info.format}, context {info.context_length}, {pinning})"
            f" in {time.monotonic() - started:.1f} s",
            file=sys.stderr,
            flush=True,
        )
        return {"model_info": to_wire(info), "capabilities": to_wire(engine.capabilities)}

    def _loaded(self) -> Engine:
        if self._engine is None:
            raise BackendError("no model is loaded in the worker")
        return self._engine

    def _generate(self, job_id: int, request: GenerationRequest) -> None:
        engine = self._loaded()
        with self._lock:
            if job_id in self._cancelled:
                self._cancelled.discard(job_id)
                self._finish(job_id, "cancelled", None, Perf())
                return
            self._running = job_id
        matcher = StopMatcher(request.stop)
        loops = LoopDetector()
        stop_sequence: str | None = None
        looped = False
        try:
            pieces = engine.generate(
                render_prompt(engine, request),
                max_tokens=request.max_tokens,
                stop=request.stop,
                grammar=request.grammar,
                temperature=request.temperature,
                penalize_repetition=request.penalize_repetition,
            )
            try:
                for piece in pieces:
                    if self._is_cancelled(job_id):
                        break
                    shown = matcher.feed(piece)
                    if isinstance(shown, StopMatch):
                        self._send_text(job_id, shown.text)
                        stop_sequence = shown.stop_sequence
                        break
                    self._send_text(job_id, shown)
                    if shown and loops.feed(shown):
                        looped = True  # the reply repeats itself: no use generating more
                        break
            finally:
                close = getattr(pieces, "close", None)
                if close is not None:
                    close()
        finally:
            with self._lock:
                self._running = None
                cancelled = job_id in self._cancelled
                self._cancelled.discard(job_id)
        perf = _with_peak_memory(engine.last_perf())
        if stop_sequence is not None:
            self._finish(job_id, "stop_sequence", stop_sequence, perf)
        elif cancelled:
            self._finish(job_id, "cancelled", None, perf)
        elif looped:
            self._send_text(job_id, matcher.flush())
            self._finish(job_id, "repetition", None, perf)
        else:
            self._send_text(job_id, matcher.flush())
            reason = "length" if perf.generated_tokens >= request.max_tokens else "stop"
            self._finish(job_id, reason, None, perf)

    def _is_cancelled(self, job_id: int) -> bool:
        with self._lock:
            return job_id in self._cancelled

    def _send_text(self, job_id: int, text: str) -> None:
        if text:
            self._send({"id": job_id, "type": "token", "text": text})

    def _finish(self, job_id: int, reason: str, stop_sequence: str | None, perf: Perf) -> None:
        self._send(
            {
                "id": job_id,
                "type": "finished",
                "reason": reason,
                "stop_sequence": stop_sequence,
                "perf": to_wire(perf),
            }
        )

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self._writer.send(message)
        except OSError:
            pass  # the host is gone; the main thread sees the pipe close and ends the process


def cpu_list(cpus: Iterable[int]) -> str:
    """CPU numbers as ranges: "4-7", "0-1, 4"."""
    ranges: list[list[int]] = []
    for cpu in sorted(set(cpus)):
        if ranges and cpu == ranges[-1][1] + 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ", ".join(f"{low}-{high}" if high > low else str(low) for low, high in ranges)


def plan_affinity(wanted: Sequence[int], available: Iterable[int]) -> tuple[set[int], str]:
    """The CPUs of ``wanted`` (the profile's affinity) the worker can be pinned to, given the CPUs it may
    run on, and what that means in words (worker.log, `edgehost doctor`): "pinned to CPUs 4-7", or
    "affinity [4, 5, 6, 7] not applied: this machine has CPUs 0-1"."""
    if not wanted:
        return set(), "no CPU pinning"
    have = set(available)
    chosen = set(wanted) & have
    if not chosen:
        return chosen, f"affinity {list(wanted)} not applied: this machine has CPUs {cpu_list(have)}"
    if chosen != set(wanted):
        return chosen, (
            f"pinned to CPUs {cpu_list(chosen)} only (affinity {list(wanted)}; "
            f"this machine has CPUs {cpu_list(have)})"
        )
    return chosen, f"pinned to CPUs {cpu_list(chosen)}"


def _apply_affinity(cpus: Sequence[int]) -> str:
    """Pin the worker to the profile's CPUs (the big cores) that this machine has; returns what was
    done, or why nothing was, for worker.log."""
    if not cpus:
        return "no CPU pinning"
    if not hasattr(os, "sched_setaffinity"):
        return f"affinity {list(cpus)} not applied: this system cannot pin a process to CPUs"
    chosen, done = plan_affinity(cpus, os.sched_getaffinity(0))
    if chosen:
        try:
            os.sched_setaffinity(0, chosen)
        except OSError as exc:
            return f"affinity {list(cpus)} not applied: {exc.strerror or exc}"
    return done


def _with_peak_memory(perf: Perf) -> Perf:
    if perf.peak_memory_mb is not None:
        return perf
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return dataclasses.replace(perf, peak_memory_mb=round(peak_kib / 1024.0, 1))


if __name__ == "__main__":
    sys.exit(main())
