"""The Host's commands about the model (a mixin of ``Host``, host/host.py): loading it (falling back to the
next backend when one crashes while loading), switching it, the catalog fitted to this board, downloads
and the models on this machine. The Host owns the state they use, declared below."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgehost.awaiting import WaitTimedOut, wait_done
from edgehost.host import events as ev
from edgehost.host.model_library import ModelLibrary, is_in_use, settings_to_use
from edgehost.host.options import HostOptions
from edgehost.llm.base import Backend, BackendCrashed, BackendError
from edgehost.models.catalog import CatalogRow
from edgehost.models.files import ModelFile, find_models
from edgehost.paths import Paths
from edgehost.settings import Settings

if TYPE_CHECKING:
    from edgehost.agent.loop import TurnRunner

__all__ = ["ModelCommands"]

log = logging.getLogger(__name__)


class ModelCommands:
    """The model's side of the Host's command surface; ``Host`` inherits it."""

    # The Host's, set in Host.__init__ and Host.start().
    paths: Paths
    settings: Settings
    options: HostOptions
    profile: Any
    profile_override: str | None
    backend: Backend | None
    runner: TurnRunner | None
    model_status: ev.ModelStatusChanged
    _turn_lock: asyncio.Lock
    _model_task: asyncio.Task[Any] | None
    _models: ModelLibrary

    if TYPE_CHECKING:

        def emit(self, event: ev.HostEvent) -> None: ...
        def update_settings(self, values: Mapping[str, Any]) -> set[str]: ...
        def _warm_tools(self) -> None: ...

    async def _create_backend(self, exclude: Mapping[str, str] | None = None) -> Backend:
        from edgehost.llm.factory import create_backend

        # It may probe a network server or the RKLLM library: not on the event loop.
        backend, _skipped = await asyncio.to_thread(
            create_backend,
            self.settings,
            self.profile,
            self.paths,
            backend=self.options.backend_name or self.settings.backend,
            model=self.options.model or self.settings.model,
            rkllm_lib=self.options.rkllm_lib or self.settings.rkllm_lib,
            exclude=exclude,
        )
        return backend

    async def _load_model(self) -> None:
        """Load the model; when the backend was chosen by the board (auto) and its process dies while
        loading (RKLLM's SIGILL on some boards), say why and load the next backend of the profile's
        order for this session."""
        name = self.options.backend_name or self.settings.backend
        may_fall_back = name == "auto" and self.options.backend is None
        crashed: dict[str, str] = {}
        while True:
            try:
                if self.backend is None:
                    self.backend = await self._create_backend(crashed)
                backend: Backend = self.backend
                name = backend.capabilities.backend
                self.emit(ev.ModelStatusChanged("loading", name, "", "; ".join(crashed.values())))
                info = await backend.load()
            except BackendCrashed as exc:
                if not may_fall_back:
                    self.emit(ev.ModelStatusChanged("failed", name, "", str(exc)))
                    return
                from edgehost.llm.factory import load_crash_advice

                crashed[name] = load_crash_advice(name, str(exc))
                log.warning("%s; trying the next backend for this session", crashed[name])
                with contextlib.suppress(Exception):
                    await backend.close()
                self.backend = None
                continue
            except BackendError as exc:
                detail = "; ".join([*crashed.values(), str(exc)])
                self.emit(ev.ModelStatusChanged("failed", name, "", detail))
                return
            break
        caps = backend.capabilities
        detail = f"{'; '.join(crashed.values())}. Using {caps.backend} for this session." if crashed else ""
        self.emit(ev.ModelStatusChanged("ready", caps.backend, info.name, detail, caps.max_context))
        self._warm_tools()

    async def wait_model(self, timeout: float = 600.0) -> Backend:  # noqa: ASYNC109 - a bound on a model load
        """Wait until the model is loaded. Raises BackendError if it failed to load."""
        if self._model_task is None:
            self._model_task = asyncio.create_task(self._load_model(), name="edgehost-model-load")
        try:
            await wait_done(self._model_task, timeout)  # its own failure, as awaiting it would raise
        except WaitTimedOut:
            raise WaitTimedOut(f"the model did not load within {timeout:.0f} s") from None
        if self.backend is None or self.model_status.status != "ready":
            raise BackendError(self.model_status.detail or "the model is not loaded")
        return self.backend

    async def switch_model(self, backend_name: str | None = None, model: str | None = None) -> None:
        """Load another backend or model (the GUI's switcher); the conversation stays."""
        async with self._turn_lock:
            if self.backend is not None:
                await self.backend.close()
            self.backend, self.runner = None, None
            self.options.backend, self.options.backend_name, self.options.model = None, backend_name, model
            self._model_task = asyncio.create_task(self._load_model(), name="edgehost-model-load")

    # ----------------------------------------------------------------- models
    async def model_catalog(self) -> tuple[str, list[CatalogRow]]:
        """This board described ("Radxa ROCK 5B (15.6 GB RAM, NPU with RKLLM 1.2.3)") and every
        catalog entry fitted to it: whether it fits and why not, its speed here, downloaded or not."""
        from edgehost.boards import current_profile

        profile = self.profile
        if profile is None:
            _info, profile = await asyncio.to_thread(
                current_profile, self.profile_override or self.settings.profile, paths=self.paths
            )
        return await self._models.rows(profile, self.settings)

    async def installed_models(self) -> list[ModelFile]:
        """The model files on this machine (what `edgehost models` lists first): the embedded default,
        the one the settings name, and those in the models folder."""
        return await asyncio.to_thread(self.installed_models_now)

    def installed_models_now(self) -> list[ModelFile]:
        """installed_models, read in this thread (a folder listing and a few file headers: fast enough
        for a dialog that lists them as it opens)."""
        return find_models(self.paths.models_dir, [self.settings.model])

    def model_in_use(self, path: str | Path) -> bool:
        """Whether the model file at ``path`` is the one the settings choose (the embedded default when
        they name none)."""
        return is_in_use(path, self.settings.model)

    async def suggested_model(self) -> CatalogRow | None:
        """The catalog model to offer instead of the embedded one: None when another model is set,
        the user dismissed the hint, or nothing fits this board."""
        if self.settings.model or self.settings.model_hint_dismissed:
            return None
        _board, rows = await self.model_catalog()
        return next((row for row in rows if row.recommended and row.fits), None)

    def download_model(self, name: str) -> asyncio.Task[None]:
        """Download ``name`` into the models folder: a catalog entry, or a hub file as `edgehost models
        pull` takes it (REPO:FILE, or REPO for its only model file); ModelDownloadProgressed events follow,
        then one ModelDownloadFinished. Raises KeyError for a name that is neither."""
        return self._models.start(name)

    def cancel_download(self, name: str) -> None:
        self._models.cancel(name)

    def downloads(self) -> set[str]:
        """The downloads running now (catalog entries, or REPO:FILE)."""
        return self._models.downloading()

    async def use_model(self, path: str) -> None:
        """Make the model file at ``path`` the one EdgeHost uses (saved in the settings, as `edgehost models
        use` saves it) and load it."""
        chosen = settings_to_use(path)
        self.update_settings(chosen)
        await self.switch_model(chosen["backend"], chosen["model"])

    @property
    def context_size(self) -> int:
        """Tokens of context of the loaded model; 0 while none is loaded."""
        return self.backend.capabilities.max_context if self.backend is not None else 0
