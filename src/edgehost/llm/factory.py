"""Choosing and building the backend: the board profile's order, skipping what is unavailable and why."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from edgehost.boards import BoardProfile
from edgehost.boards.profiles import SamplingDefaults
from edgehost.llm.base import Backend, BackendError
from edgehost.llm.default_model import default_model_path
from edgehost.paths import Paths
from edgehost.settings import DEFAULT_CONTEXT_LENGTH, Settings

__all__ = [
    "BACKEND_NAMES",
    "BackendAvailability",
    "check_backends",
    "create_backend",
    "engine_config",
    "load_crash_advice",
]

BACKEND_NAMES = ("rkllm", "llamacpp", "openai")
# A reachable OpenAI-compatible server answers /models at once; a longer wait only delays `doctor`.
OPENAI_PROBE_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class BackendAvailability:
    available: bool
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"available": self.available, "reason": self.reason}


def check_backends(
    settings: Settings, profile: BoardProfile | None, paths: Paths, *, rkllm_lib: str | None = None
) -> dict[str, BackendAvailability]:
    """Whether each backend could run here, and why not. Never raises; may probe the OpenAI server."""
    return {
        "llamacpp": _llamacpp_availability(settings),
        "rkllm": _rkllm_availability(settings, profile, rkllm_lib),
        "openai": _openai_availability(settings),
    }


def create_backend(
    settings: Settings,
    profile: BoardProfile | None,
    paths: Paths,
    *,
    backend: str = "auto",
    model: str | None = None,
    rkllm_lib: str | None = None,
    exclude: Mapping[str, str] | None = None,
) -> tuple[Backend, dict[str, str]]:
    """Build the backend to use (not yet loaded) and the backends skipped on the way, with reasons.

    ``backend="auto"`` means the settings' choice, and when that is "auto" too, the profile's
    ``backend_order`` (llama.cpp is always the last resort); ``exclude`` names backends to pass over
    with the reason (one that crashed at load this session). Raises BackendError
    naming every reason when nothing can run, or the reason when the chosen backend cannot.
    """
    if model is not None:
        settings = dataclasses.replace(settings, model=model)
    if rkllm_lib is not None:
        settings = dataclasses.replace(settings, rkllm_lib=rkllm_lib)
    chosen = backend if backend != "auto" else settings.backend
    if chosen not in ("auto", *BACKEND_NAMES):
        raise BackendError(f"unknown backend {chosen!r}; choose one of auto, {', '.join(BACKEND_NAMES)}")
    order = [chosen] if chosen != "auto" else _backend_order(profile)
    skipped: dict[str, str] = {}
    for name in order:
        if exclude and name in exclude:
            skipped[name] = exclude[name]
            continue
        availability = _availability(name, settings, profile)
        if availability.available:
            return _build(name, settings, profile, paths), skipped
        skipped[name] = availability.reason
    if chosen != "auto":
        raise BackendError(f"the {chosen} backend is not available: {skipped[chosen]}")
    reasons = "; ".join(f"{name}: {reason}" for name, reason in skipped.items())
    raise BackendError(f"no backend can run here ({reasons})")


def load_crash_advice(backend: str, crash: str) -> str:
    """What a crash of the model process while loading means, and what to do about it."""
    if backend != "rkllm":
        return f"{backend} crashed while loading the model ({crash})"
    if "SIGILL" in crash:
        return (
            f"RKLLM crashed while loading the model ({crash}: an instruction this CPU does not have). "
            "The prebuilt 1.3.0 runtime does this on some RK3588 boards (airockchip/rknn-llm issue 518): "
            "install the 1.2.3 runtime with a model converted for 1.2.x, or use llama.cpp"
        )
    return (
        f"RKLLM crashed while loading the model ({crash}). A model converted for another runtime line, "
        "or an NPU driver older than 0.9.7, does this: `edgehost doctor` checks both"
    )


def engine_config(name: str, settings: Settings, profile: BoardProfile | None) -> dict[str, Any]:
    """The plain JSON-able config the worker passes to the engine factory ``name``."""
    # A profile's 0 threads means "let the runtime decide"; without a profile, use every CPU.
    threads = settings.threads or (profile.threads if profile else os.cpu_count()) or None
    config: dict[str, Any] = {
        "model_path": str(_model_path(name, settings)),
        "n_ctx": settings.context_length or (profile.context_length if profile else DEFAULT_CONTEXT_LENGTH),
        "threads": threads,
        "affinity": list(profile.affinity) if profile else [],
        **(profile.sampling if profile else SamplingDefaults()).as_dict(),
    }
    if name == "rkllm":
        config.update(
            rkllm_lib=settings.rkllm_lib,
            rkllm_abi=settings.rkllm_abi,
            cpu_mask=profile.rkllm_cpu_mask if profile else 0,
            cpu_count=profile.rkllm_cpu_count if profile else 0,
        )
    return config


def _backend_order(profile: BoardProfile | None) -> list[str]:
    order = [name for name in (profile.backend_order if profile else []) if name in BACKEND_NAMES]
    return order if "llamacpp" in order else [*order, "llamacpp"]


def _availability(name: str, settings: Settings, profile: BoardProfile | None) -> BackendAvailability:
    if name == "llamacpp":
        return _llamacpp_availability(settings)
    if name == "rkllm":
        return _rkllm_availability(settings, profile, settings.rkllm_lib)
    return _openai_availability(settings)


def _build(name: str, settings: Settings, profile: BoardProfile | None, paths: Paths) -> Backend:
    if name == "openai":
        from edgehost.llm.openai_backend import OpenAIBackend

        return OpenAIBackend.from_settings(settings.openai)
    from edgehost.llm.worker_backend import WorkerBackend

    config = engine_config(name, settings, profile)
    # The system prompt's KV cache, kept for the next start (llm/prompt_cache.py).
    config["prompt_cache_dir"] = str(paths.cache_dir / "prompts")
    return WorkerBackend(engine=name, config=config, log_dir=paths.log_dir)


def _model_path(name: str, settings: Settings) -> Path:
    if settings.model:
        path = Path(settings.model).expanduser()
        if name != "llamacpp" or path.suffix.lower() == ".gguf":
            return path
    return default_model_path()


def _llamacpp_availability(settings: Settings) -> BackendAvailability:
    if importlib.util.find_spec("llama_cpp") is None:
        return BackendAvailability(
            False, "llama-cpp-python is not installed: pip install 'edgehost[llamacpp]'"
        )
    try:
        path = _model_path("llamacpp", settings)
    except BackendError as exc:
        return BackendAvailability(False, str(exc))
    if not path.is_file():
        return BackendAvailability(False, f"model file not found: {path}")
    return BackendAvailability(True, f"llama.cpp on the CPU with {path.name}")


def _rkllm_availability(
    settings: Settings, profile: BoardProfile | None, rkllm_lib: str | None
) -> BackendAvailability:
    try:
        from edgehost.llm.rkllm import availability
    except ImportError:
        return BackendAvailability(False, "the RKLLM backend is not part of this build")
    try:
        available, reason = availability(settings, profile, rkllm_lib or settings.rkllm_lib)
    except Exception as exc:  # a broken probe must not break doctor or the fallback
        return BackendAvailability(False, f"RKLLM check failed: {exc}")
    return BackendAvailability(bool(available), str(reason))


def _openai_availability(settings: Settings) -> BackendAvailability:
    url = settings.openai.base_url.rstrip("/") + "/models"
    headers = {}
    key = os.environ.get(settings.openai.api_key_env) if settings.openai.api_key_env else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        response = httpx2.get(url, headers=headers, timeout=OPENAI_PROBE_TIMEOUT_S)
    except httpx2.HTTPError as exc:
        return BackendAvailability(
            False, f"no OpenAI-compatible server at {settings.openai.base_url} ({exc})"
        )
    if response.status_code != 200:
        return BackendAvailability(False, f"{url} answered HTTP {response.status_code}")
    return BackendAvailability(True, f"OpenAI-compatible server at {settings.openai.base_url}")
