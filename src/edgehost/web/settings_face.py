"""The page's Settings panel: what a board without a screen needs of the window's Settings dialog (the
backend, the board profile, context and threads, how long an approval waits, the calls per answer, who
chooses the tools), saved through Host.update_settings; a change the model is loaded with reloads it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from edgehost.host.host import MODEL_SETTINGS
from edgehost.host.settings_choices import profile_choices
from edgehost.settings import BACKEND_LABELS, ROUTING_LABELS
from edgehost.web.wire import CommandError

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["PAGE_SETTINGS", "save_settings", "settings_listing"]

# What the page edits; a number set to 0 (context, threads) means "from the board profile".
PAGE_SETTINGS = (
    "backend",
    "profile",
    "context_length",
    "threads",
    "approval_timeout_s",
    "max_calls_per_turn",
    "routing",
)
_FROM_PROFILE = ("context_length", "threads")


async def settings_listing(host: Host) -> dict[str, Any]:
    """What GET /api/settings answers: the values and the choices of each setting the page edits."""
    detected, profiles = await asyncio.to_thread(profile_choices, host.paths)
    values = {name: getattr(host.settings, name) for name in PAGE_SETTINGS}
    for name in _FROM_PROFILE:
        values[name] = values[name] or 0
    return {
        "values": values,
        "choices": {
            "backend": list(BACKEND_LABELS.items()),
            "profile": [[None, detected], *profiles],
            "routing": list(ROUTING_LABELS.items()),
        },
    }


async def save_settings(host: Host, given: Mapping[str, Any]) -> dict[str, Any]:
    """Save the settings the page sent; reload the model when one it is loaded with changed. What the
    reply adds: the names that changed, and whether the model loads again. Raises CommandError naming a setting and what it takes."""
    unknown = sorted(set(given) - set(PAGE_SETTINGS))
    if unknown:
        raise CommandError(f"the page does not change {', '.join(unknown)}")
    values = dict(given)
    for name in _FROM_PROFILE:
        if values.get(name) == 0:
            values[name] = None
    if values.get("profile") is not None:
        _detected, profiles = await asyncio.to_thread(profile_choices, host.paths)
        if values["profile"] not in {name for name, _label in profiles}:
            raise CommandError(f"profile: no board profile {values['profile']!r}")
    try:
        changed = host.update_settings(values)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot save the settings: {exc.strerror or exc}") from None
    reloads = bool(changed & MODEL_SETTINGS)
    if reloads:
        await host.switch_model(host.settings.backend, host.settings.model)
    return {"changed": sorted(changed), "reloads_model": reloads}
