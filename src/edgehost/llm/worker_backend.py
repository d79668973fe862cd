"""WorkerBackend: a Backend whose engine runs in a separate process (ARCHITECTURE decision 4).

A crash of the runtime (segfault, OOM kill) ends only the worker: the running stream raises
BackendCrashed naming the cause, and the next request starts a new worker and loads the model again.
Messages from the worker are read by a thread and handed to the asyncio loop with
``call_soon_threadsafe``, so nothing here blocks the loop and no loop-specific pipe support is needed
(qasync's loop works as well as asyncio's).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import subprocess
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

from edgehost.child_processes import python_module_command, start_in_background
from edgehost.llm._framing import MessageWriter, read_message
from edgehost.llm._wire import (
    capabilities_from_wire,
    model_info_from_wire,
    perf_from_wire,
    request_to_wire,
)
from edgehost.llm.base import (
    BackendCrashed,
    BackendError,
    Capabilities,
    GenerationEvent,
    GenerationFinished,
    GenerationRequest,
    ModelInfo,
    TokenText,
)
from edgehost.logs import open_child_log

__all__ = ["WorkerBackend", "describe_exit", "worker_command"]

# A model load reads hundreds of MB to GB from an SD card on a board; allow minutes, not seconds.
LOAD_TIMEOUT_S = 600.0
# A cancelled engine stops at its next token; one that has not finished after this is killed.
CANCEL_GRACE_S = 3.0
# Time for a worker to free the model and exit after ``close`` before it is killed.
CLOSE_TIMEOUT_S = 5.0
# llama.cpp prints a few KB per model load; past this worker.log is moved to worker.log.1 at a start.
WORKER_LOG_MAX_BYTES = 1_000_000


def worker_command(fds: tuple[int, int]) -> list[str]:
    """The command that starts a worker reading requests from fds[0] and writing to fds[1].

    In a frozen (PyInstaller) build ``sys.executable`` is edgehost itself, which routes the
    ``__worker__`` command to edgehost.llm.worker.main.
    """
    return python_module_command("edgehost.llm.worker", "__worker__", f"--fds={fds[0]},{fds[1]}")


def worker_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The model process's environment: ours, with OpenMP threads that sleep when idle.

    llama.cpp's OpenMP threads spin while they wait by default; on a board (or a desktop) where the
    GUI, MCP servers and the NPU runtime also need the CPU, that spinning made prefill 5-6 times
    slower in our measurements. A setting the user made wins.
    """
    env = dict(os.environ if environ is None else environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return env


def describe_exit(returncode: int | None) -> str:
    """'the model process exited with signal 11 (SIGSEGV)' / '... with code 1'."""
    if returncode is None:
        return "the model process stopped answering"
    if returncode < 0:
        try:
            name = f" ({signal.Signals(-returncode).name})"
        except ValueError:
            name = ""
        return f"the model process exited with signal {-returncode}{name}"
    return f"the model process exited with code {returncode}"


class _Stream:
    """One running generation as seen from the loop."""

    def __init__(self) -> None:
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.cancel_requested = False


class _LogOpening:
    """``open_child_log`` run on a thread for a start that may be cancelled meanwhile (a model switched
    again at once). The log of an abandoned start is closed by whichever side comes second: the thread
    once it has opened it, or ``abandon`` once it was opened. A callback on the event loop was not enough:
    a loop closed before the thread's result reached it left the file to the garbage collector."""

    def __init__(self, log_file: Path | None) -> None:
        self._log_file = log_file
        self._lock = threading.Lock()
        self._abandoned = False
        self._opened: tuple[Any, int] | None = None

    def open(self) -> tuple[Any, int]:  # on the thread
        opened = open_child_log(self._log_file, WORKER_LOG_MAX_BYTES)
        with self._lock:
            self._opened = opened
            if self._abandoned:
                _close_log(opened)
        return opened

    def abandon(self) -> None:
        with self._lock:
            self._abandoned = True
            if self._opened is not None:
                _close_log(self._opened)


def _close_log(opened: tuple[Any, int]) -> None:
    if opened[0] is not subprocess.DEVNULL:
        opened[0].close()


class _Process:
    """One worker process, its pipes and the thread that reads its messages (made by ``start``)."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        pipes: tuple[int, int],
        on_message: Callable[[dict[str, Any]], None],
        on_exit: Callable[[_Process, int | None, str], None],
        log: tuple[Path | None, int],
    ) -> None:
        self.closing = False  # set by close(): the exit that follows is not a crash
        self.popen = popen
        self._log_file, self._log_start = log
        self.writer = MessageWriter(pipes[0])
        self._reader = os.fdopen(pipes[1], "rb")
        self._on_message = on_message
        self._on_exit = on_exit
        self.thread = threading.Thread(target=self._read_loop, name="worker-reader", daemon=True)
        self.thread.start()

    @classmethod
    async def start(
        cls,
        command: Callable[[tuple[int, int]], list[str]],
        on_message: Callable[[dict[str, Any]], None],
        on_exit: Callable[[_Process, int | None, str], None],
        log_file: Path | None,
    ) -> _Process:
        """Start a worker off the event loop, below the GUI's priority (edgehost.child_processes).

        Raises OSError when it cannot be started.
        """
        opening = _LogOpening(log_file)
        try:
            stderr, log_start = await asyncio.to_thread(opening.open)
        except asyncio.CancelledError:
            opening.abandon()  # the thread goes on opening the log, and closes it
            raise
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        try:
            # Its own process group: Ctrl-C in a terminal reaches the host, which cancels or closes.
            popen = await start_in_background(
                command((to_worker_r, from_worker_w)),
                pass_fds=(to_worker_r, from_worker_w),
                stdin=subprocess.DEVNULL,
                stdout=stderr,
                stderr=stderr,
                env=worker_environment(),
            )
        except BaseException:
            for fd in (to_worker_w, from_worker_r):
                os.close(fd)
            raise
        finally:
            if stderr is not subprocess.DEVNULL:
                stderr.close()
            os.close(to_worker_r)
            os.close(from_worker_w)
        return cls(popen, (to_worker_w, from_worker_r), on_message, on_exit, (log_file, log_start))

    def _read_loop(self) -> None:
        try:
            while (message := read_message(self._reader)) is not None:
                self._on_message(message)
        except (OSError, ValueError):
            pass
        finally:
            self._reader.close()
        returncode = self.popen.wait()
        self._on_exit(self, returncode, self._last_log_line() if returncode else "")

    def _last_log_line(self) -> str:
        """The last line this worker wrote to its log (llama.cpp's GGML_ASSERT before an abort ...)."""
        if self._log_file is None:
            return ""
        try:
            with open(self._log_file, "rb") as log:
                log.seek(self._log_start)
                lines = log.read()[-4096:].decode("utf-8", errors="replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1].strip()[:300] if lines else ""

    def send(self, message: dict[str, Any]) -> bool:
        try:
            self.writer.send(message)
        except OSError:
            return False
        return True

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.popen.kill()


class WorkerBackend:
    """A Backend running ``engine`` (a name in ENGINE_FACTORIES or "module:factory") in a worker.

    ``config`` is the plain dict given to the engine factory (see factory.engine_config).
    """

    def __init__(
        self,
        engine: str,
        config: dict[str, Any],
        *,
        log_dir: Path | None = None,
        command: Callable[[tuple[int, int]], list[str]] = worker_command,
    ) -> None:
        self._engine = engine
        self._config = dict(config)
        self._log_file = log_dir / "worker.log" if log_dir is not None else None
        self._command = command
        self._ids = itertools.count(1)
        self._process: _Process | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._streams: dict[int, _Stream] = {}
        self._current_stream: int | None = None
        self._start_lock: asyncio.Lock | None = None
        self._capabilities = Capabilities(backend=engine, max_context=int(config.get("n_ctx") or 0))
        self._model_info: ModelInfo | None = None
        self.last_exit: str | None = None  # why the previous worker ended, when it crashed

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    @property
    def model_info(self) -> ModelInfo | None:
        return self._model_info

    @property
    def worker_pid(self) -> int | None:
        return self._process.popen.pid if self._process is not None else None

    async def load(self) -> ModelInfo:
        """Start the worker (if needed) and load the model in it.

        Raises BackendError with the engine's message, or BackendCrashed if the worker died.
        """
        await self._ensure_worker()
        assert self._model_info is not None
        return self._model_info

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationEvent]:
        await self._ensure_worker()
        process = self._process
        assert process is not None
        job_id = next(self._ids)
        stream = _Stream()
        self._streams[job_id] = stream
        self._current_stream = job_id
        finished = False
        try:
            # If the worker is already gone the send fails and its exit arrives as a "crashed" event.
            process.send({"op": "generate", "id": job_id, "request": request_to_wire(request)})
            while True:
                message = await stream.events.get()
                kind = message["type"]
                if kind == "token":
                    yield TokenText(message["text"])
                elif kind == "finished":
                    finished = True
                    yield GenerationFinished(
                        reason=message["reason"],
                        perf=perf_from_wire(message.get("perf") or {}),
                        stop_sequence=message.get("stop_sequence"),
                    )
                    return
                elif kind == "crashed":
                    finished = True
                    if stream.cancel_requested:
                        yield GenerationFinished(reason="cancelled")
                        return
                    raise BackendCrashed(message["message"])
                else:
                    finished = True
                    raise BackendError(message.get("message", "the model process failed"))
        finally:
            self._streams.pop(job_id, None)
            if self._current_stream == job_id:
                self._current_stream = None
            if not finished:
                # The consumer stopped reading early: stop the engine so the next request runs.
                process.send({"op": "cancel", "id": job_id})

    async def cancel(self) -> None:
        job_id = self._current_stream
        process = self._process
        stream = self._streams.get(job_id) if job_id is not None else None
        if job_id is None or process is None or stream is None or stream.cancel_requested:
            return
        stream.cancel_requested = True
        process.send({"op": "cancel", "id": job_id})
        assert self._loop is not None
        self._loop.call_later(CANCEL_GRACE_S, self._kill_if_still_streaming, process, job_id)

    async def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` in the model's tokenizer; starts the worker and loads the model if needed."""
        await self._ensure_worker()
        return int(await self._request({"op": "count_tokens", "text": text}))

    async def reset(self) -> None:
        """Forget the KV cache. A worker that is not running has none to forget."""
        if self._process is not None:
            await self._request({"op": "reset"})

    async def close(self) -> None:
        process, self._process = self._process, None
        self._model_info = None
        if process is None:
            return
        process.closing = True
        process.send({"op": "close"})
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.run_in_executor(None, process.popen.wait), CLOSE_TIMEOUT_S)
        except asyncio.TimeoutError:
            process.kill()
            await loop.run_in_executor(None, process.popen.wait)
        process.writer.close()
        await loop.run_in_executor(None, process.thread.join)

    # -- worker lifecycle ------------------------------------------------------------------------

    async def _ensure_worker(self) -> None:
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self._process is not None:
                return
            self._loop = asyncio.get_running_loop()
            try:
                self._process = await _Process.start(
                    self._command, self._post_message, self._post_exit, self._log_file
                )
            except OSError as exc:
                raise BackendError(f"cannot start the model process: {exc}") from exc
            try:
                value = await asyncio.wait_for(
                    self._request({"op": "load", "engine": self._engine, "config": self._config}),
                    LOAD_TIMEOUT_S,
                )
            except BaseException:
                process, self._process = self._process, None
                if process is not None:
                    process.closing = True  # a failed load is reported as itself, not as a crash
                    process.kill()
                raise
            self._model_info = model_info_from_wire(value["model_info"])
            self._capabilities = capabilities_from_wire(value["capabilities"])

    async def _request(self, message: dict[str, Any]) -> Any:
        process = self._process
        if process is None:
            raise BackendError("the model is not loaded")
        job_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[job_id] = future
        try:
            process.send({**message, "id": job_id})
            return await future
        finally:
            self._pending.pop(job_id, None)

    def _post_message(self, message: dict[str, Any]) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._on_message, message)

    def _post_exit(self, process: _Process, returncode: int | None, last_log_line: str) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._on_exit, process, returncode, last_log_line)

    def _on_message(self, message: dict[str, Any]) -> None:
        job_id = int(message.get("id", 0))
        stream = self._streams.get(job_id)
        if stream is not None:
            stream.events.put_nowait(message)
            return
        future = self._pending.get(job_id)
        if future is None or future.done():
            return  # the end of a stream nobody reads any more
        if message["type"] == "result":
            future.set_result(message.get("value"))
        else:
            future.set_exception(BackendError(message.get("message", "the model process failed")))

    def _on_exit(self, process: _Process, returncode: int | None, last_log_line: str) -> None:
        if self._process is process:
            self._process = None
            self._model_info = None
        reason = describe_exit(returncode) + (f": {last_log_line}" if last_log_line else "")
        if not process.closing:
            self.last_exit = reason
        for stream in list(self._streams.values()):
            if process.closing:
                stream.events.put_nowait({"type": "finished", "reason": "cancelled"})
            else:
                stream.events.put_nowait({"type": "crashed", "message": reason})
        for future in list(self._pending.values()):
            if not future.done():
                future.set_exception(BackendCrashed(reason))

    def _kill_if_still_streaming(self, process: _Process, job_id: int) -> None:
        if job_id in self._streams and self._process is process:
            process.kill()
