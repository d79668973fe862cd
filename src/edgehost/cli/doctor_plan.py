"""What `edgehost doctor` says will actually be used: the board profile (who chose it, by which rule, from
which folder), the backend (and why the ones before it in the order were passed over), and the threads,
CPU pinning and context length the model process gets.

It asks the code that decides rather than repeating its rules: boards.choose_profile, the backend factory
(create_backend, engine_config) and the worker's own pinning rule (llm.worker.plan_affinity).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any

from edgehost.boards import (
    BoardInfo,
    BoardProfile,
    ProfileChoice,
    ProfileSet,
    big_cores,
    choose_profile,
    read_profiles,
    user_profiles_dir,
)
from edgehost.cli.context import CliContext
from edgehost.llm.base import Backend, BackendError
from edgehost.llm.worker import cpu_list, plan_affinity

__all__ = ["backend_plan", "inference_plan", "print_plan", "profile_plan"]

Problem = dict[str, str]


def profile_plan(ctx: CliContext, info: BoardInfo) -> tuple[ProfileChoice, dict[str, Any], list[Problem]]:
    """The profile choice, where profiles were read from, and the problems of both.

    Raises UsageError for a ``--profile`` that names no profile (the settings' one falls back)."""
    found = read_profiles(user_profiles_dir(ctx.paths))
    choice = choose_profile(info, found.profiles, ctx.profile_override or ctx.settings.profile)
    problems = [
        {
            "problem": f"{error} (this board profile is left out)",
            "hint": f"fix the file, or move it out of {found.user_dir}; the shipped profiles are used meanwhile",
        }
        for error in found.problems
    ]
    problems += [{"problem": w.problem, "hint": w.hint} for w in choice.warnings]
    return choice, _folders(found, choice.profile), problems


def _folders(found: ProfileSet, profile: BoardProfile) -> dict[str, Any]:
    user_dir = found.user_dir
    return {
        "shipped_dir": str(found.shipped_dir),
        "user_dir": str(user_dir) if user_dir is not None else None,
        "user_dir_exists": user_dir is not None and user_dir.is_dir(),
        "user_profiles": found.user_profiles,
        "overridden": found.overridden,
        "errors": [str(error) for error in found.problems],
        "in_use_from": profile.source,
    }


def backend_plan(ctx: CliContext, profile: BoardProfile, rkllm_lib: str | None) -> dict[str, Any]:
    """The backend the app would load, asked of the factory the app uses (create_backend), with the
    backends passed over before it and why; ``error`` when none can run."""
    from edgehost.llm.factory import create_backend

    setting = ctx.settings.backend
    chosen_by = f"the 'backend' setting ({setting})" if setting != "auto" else "the profile's backend order"
    plan: dict[str, Any] = {
        "name": None,
        "chosen_by": chosen_by,
        "order": list(profile.backend_order),
        "skipped": {},
        "error": None,
    }
    try:
        backend, skipped = create_backend(ctx.settings, profile, ctx.paths, rkllm_lib=rkllm_lib)
    except BackendError as exc:
        plan["error"] = str(exc)
        return plan
    plan["name"], plan["skipped"] = backend.capabilities.backend, skipped
    _discard(backend)
    return plan


def _discard(backend: Backend) -> None:
    """Close a backend that was built but never loaded (an OpenAI backend holds an HTTP client)."""
    with contextlib.suppress(Exception):
        asyncio.run(backend.close())


def inference_plan(
    ctx: CliContext, profile: BoardProfile, info: BoardInfo, backend: str | None
) -> dict[str, Any] | None:
    """Threads, CPU pinning and context length the model process gets (factory.engine_config), each with
    where it comes from; None when no backend runs here or the backend is a server (openai)."""
    from edgehost.llm.factory import engine_config

    if backend is None or backend == "openai":
        return None
    settings = ctx.settings
    try:
        config = engine_config(backend, settings, profile)
    except BackendError:
        return None
    affinity = [int(cpu) for cpu in config.get("affinity") or []]
    # The detected CPUs (a fake tree's under EDGEHOST_SYSFS_ROOT); else those this process may use.
    available = {cpu.id for cpu in info.cpus} or os.sched_getaffinity(0)
    pinned, pinning = plan_affinity(affinity, available)
    big = set(big_cores(info.cpus)) or set(profile.big_cores)
    plan: dict[str, Any] = {
        "backend": backend,
        "threads": config.get("threads"),
        "threads_from": "the 'threads' setting"
        if settings.threads
        else "the profile"
        if profile.threads
        else "the runtime's default",
        "affinity": affinity,
        "pinned_cpus": sorted(pinned),
        "pinning": pinning,
        "on_big_cores": bool(pinned) and pinned <= big,
        "context_length": config.get("n_ctx"),
        "context_from": "the 'context_length' setting" if settings.context_length else "the profile",
    }
    if backend == "rkllm":
        mask = int(config.get("cpu_mask") or 0)
        plan["rkllm_cpus"] = [cpu for cpu in range(mask.bit_length()) if mask >> cpu & 1]
        plan["rkllm_cpu_count"] = int(config.get("cpu_count") or 0) or len(plan["rkllm_cpus"])
    return plan


def print_plan(report: dict[str, Any]) -> None:
    """The Profiles, Backend and Threads lines of doctor's text report."""
    folders = report["profiles"]
    if folders["user_profiles"]:
        replaced = (
            f"; replacing the shipped {', '.join(folders['overridden'])}" if folders["overridden"] else ""
        )
        mine = f"{', '.join(folders['user_profiles'])}{replaced}"
    else:
        mine = "none" if folders["user_dir_exists"] else "none; the folder does not exist"
    print(f"Profiles: shipped in {folders['shipped_dir']}; yours in {folders['user_dir']} ({mine})")
    backend = report["backend"]
    if backend["name"] is None:
        print(f"Backend:  none can run ({backend['error']})")
    else:
        passed = "; ".join(f"{name}: {reason}" for name, reason in backend["skipped"].items())
        print(f"Backend:  {backend['name']} ({passed or 'chosen by ' + backend['chosen_by']})")
    plan = report["inference"]
    if plan is None:
        if backend["name"] == "openai":
            print("Threads:  decided by the OpenAI-compatible server")
        return
    if plan["backend"] == "rkllm":
        cpus = cpu_list(plan["rkllm_cpus"]) or "its default CPUs"
        threads = (
            f"RKLLM on {plan['rkllm_cpu_count'] or 'its default number of'} CPUs ({cpus}, from the profile)"
        )
    elif plan["threads"]:
        threads = f"{plan['threads']} (from {plan['threads_from']})"
    else:
        threads = "the runtime's default number"
    pinning = plan["pinning"] + (" (the big cores)" if plan["on_big_cores"] else "")
    print(
        f"Threads:  {threads}; {pinning}; context {plan['context_length']} tokens (from {plan['context_from']}, "
        "capped by the model's own limit)"
    )
