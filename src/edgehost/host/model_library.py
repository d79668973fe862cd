"""The models a user can get from inside the app: the catalog fitted to this board, downloads that run
in a thread and report as host events, and switching to a downloaded model."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from edgehost.boards import BoardProfile, detect_board, system_root
from edgehost.host import events as ev
from edgehost.llm.catalog import (
    BoardFacts,
    CatalogRow,
    board_facts,
    catalog_rows,
    describe_board,
    find_entry,
    load_catalog,
)
from edgehost.llm.downloads import (
    DownloadCancelled,
    DownloadError,
    DownloadTarget,
    Progress,
    download,
    partial_sizes,
)
from edgehost.llm.models import installed_names
from edgehost.settings import Settings

__all__ = ["ModelLibrary"]


class ModelLibrary:
    """One per Host. ``emit`` is called on the event loop's thread, never from a download's thread."""

    def __init__(self, models_dir: Path, emit: Callable[[Any], None], endpoint: str | None = None) -> None:
        self.models_dir = models_dir
        self.emit = emit
        self.endpoint = endpoint  # the hub; None: huggingface_hub's (HF_ENDPOINT or huggingface.co)
        self._cancels: dict[str, threading.Event] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def board(self, settings: Settings) -> BoardFacts:
        return board_facts(detect_board(system_root()), settings.rkllm_lib, settings.rkllm_abi)

    async def rows(self, profile: BoardProfile, settings: Settings) -> tuple[str, list[CatalogRow]]:
        """This board described, and every catalog entry fitted to it (read off the event loop)."""

        def read() -> tuple[str, list[CatalogRow]]:
            facts = self.board(settings)
            installed = installed_names(self.models_dir, [settings.model])
            rows = catalog_rows(load_catalog(), profile, facts, installed, partial_sizes(self.models_dir))
            return describe_board(profile, facts), rows

        return await asyncio.to_thread(read)

    def downloading(self) -> set[str]:
        return set(self._tasks)

    def start(self, name: str) -> asyncio.Task[None]:
        """Download catalog entry ``name``; progress and the end come as events. A second start of
        the same entry returns the running download."""
        if name in self._tasks:
            return self._tasks[name]
        entry = find_entry(load_catalog(), name)
        if entry is None:
            raise KeyError(name)
        target = DownloadTarget(entry.repo, entry.file, entry.revision, entry.sha256, entry.size_bytes)
        cancel = self._cancels[entry.name] = threading.Event()
        loop = asyncio.get_running_loop()

        def report(progress: Progress) -> None:
            event = ev.ModelDownloadProgressed(
                entry.name,
                progress.stage,
                progress.done_bytes,
                progress.total_bytes,
                progress.bytes_per_s,
                progress.seconds_left,
            )
            loop.call_soon_threadsafe(self.emit, event)

        async def run() -> None:
            try:
                path = await asyncio.to_thread(
                    download,
                    target,
                    self.models_dir,
                    endpoint=self.endpoint,
                    on_progress=report,
                    cancel=cancel,
                )
            except DownloadCancelled as exc:
                self.emit(ev.ModelDownloadFinished(entry.name, None, str(exc), cancelled=True))
            except DownloadError as exc:
                self.emit(ev.ModelDownloadFinished(entry.name, None, str(exc)))
            except OSError as exc:
                self.emit(ev.ModelDownloadFinished(entry.name, None, f"cannot write the model: {exc}"))
            else:
                self.emit(ev.ModelDownloadFinished(entry.name, str(path)))
            finally:
                self._tasks.pop(entry.name, None)
                self._cancels.pop(entry.name, None)

        task = self._tasks[entry.name] = asyncio.create_task(run(), name=f"edgehost-download-{entry.name}")
        return task

    def cancel(self, name: str) -> None:
        """Stop a download; its part stays, so starting it again resumes."""
        if (event := self._cancels.get(name)) is not None:
            event.set()

    async def aclose(self) -> None:
        for event in self._cancels.values():
            event.set()
        if self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
