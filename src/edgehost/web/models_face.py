"""The page's Models panel, on the Host's model commands as the window's panel is: the board and its
models (host/model_cards.py), downloads (their progress and end arrive as host events), switching to a
model on the board, and removing a downloaded one by the rules `edgehost models rm` follows."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from edgehost.errors import UsageError
from edgehost.host.model_cards import model_cards
from edgehost.host.model_library import plan_removal
from edgehost.web.wire import CommandError

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["MODEL_COMMANDS", "models_listing", "run_model_command"]

MODEL_COMMANDS = frozenset({"download_model", "cancel_download", "use_model", "remove_model"})


async def models_listing(host: Host, *, show_all: bool = False) -> dict[str, Any]:
    """What GET /api/models answers: the board, where models go, and every model card."""
    board, cards = await model_cards(host, show_all=show_all)
    return {
        "board": board,
        "folder": str(host.paths.models_dir),
        "cards": [card.as_dict() for card in cards],
    }


async def run_model_command(host: Host, name: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """Run one of MODEL_COMMANDS; what the reply adds. Raises CommandError saying why it cannot run."""
    if name == "download_model":
        try:
            host.download_model(fields["name"])
        except KeyError as exc:  # neither a catalog entry nor REPO:FILE of the hub
            raise CommandError(str(exc.args[0]) if exc.args else f"no model {fields['name']!r}") from None
        return {}
    if name == "cancel_download":
        host.cancel_download(fields["name"])
        return {}
    if name == "use_model":
        path = fields["path"]
        # Only a model file this board lists: a page cannot make the host load any file it names.
        if path not in {m.path for m in await host.installed_models()}:
            raise CommandError(f"{path} is not a model on this board")
        await host.use_model(path)
        return {}
    if name == "remove_model":
        try:
            removal = await asyncio.to_thread(
                plan_removal, host.paths.models_dir, host.settings.model, fields["name"]
            )
            await asyncio.to_thread(removal.delete)
        except UsageError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"cannot delete {fields['name']}: {exc.strerror or exc}") from None
        return {"removed": removal.name, "freed_bytes": removal.size_bytes}
    raise CommandError(f"not a model command: {name!r}")
