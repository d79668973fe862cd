"""What crosses the page's WebSocket: host events out as JSON, commands in, checked.

Pure functions of their arguments (no Starlette, no sockets), so the protocol is tested on its own.
An event goes out as ``{"seq": N, "event": "TextDelta", "data": {...}}``; a command comes in as
``{"id": K, "command": "submit", ...}`` and is answered with ``{"reply": K, "ok": true, ...}`` or
``{"reply": K, "ok": false, "error": "..."}``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from edgehost.agent.approval import ApprovalDecision
from edgehost.host.attachments import AttachedResource, split_question
from edgehost.host.denials import denial_text
from edgehost.host.events import MessageAppended, ModelDownloadProgressed, ToolExecutionFinished, TurnStarted
from edgehost.host.model_cards import describe_progress

__all__ = [
    "COMMANDS",
    "Command",
    "CommandError",
    "approval_decision",
    "attachments_json",
    "event_json",
    "parse_command",
    "to_json",
]

# The commands a page may send, with the fields each must carry (name -> type).
COMMANDS: Mapping[str, Mapping[str, type | tuple[type, ...]]] = {
    "resume": {"after": int},
    "submit": {"text": str},
    "draft": {"text": str},  # the question as typed, when typing pauses: embedded ahead (Host.anticipate)
    "cancel": {},
    "approve": {"request_id": str, "allow": bool},
    "enable_server": {"name": str, "enabled": bool},
    "enable_tool": {"name": str, "enabled": bool},
    # The Models panel: a catalog entry's name or REPO:FILE of the hub; the path of a model file here.
    "download_model": {"name": str},
    "cancel_download": {"name": str},
    "use_model": {"path": str},
    "remove_model": {"name": str},
    "save_settings": {"values": dict},  # the Settings panel: web/settings_face.py PAGE_SETTINGS
    # From the registry (web/registry_face.py): an entry's registry name, the index of a way to run it,
    # its server name and the form's values; the command it makes, or it added and started.
    "registry_plan": {"name": str, "option": int, "server": str, "values": dict},
    "registry_add": {"name": str, "option": int, "server": str, "values": dict},
    "install_node": {},  # Node.js from PyPI into the data folder, for the npm servers
    # What a rendered view of an MCP App asks of its own server (web/views_face.py).
    "view_call": {"server": str, "name": str},
    "view_read": {"server": str, "uri": str},
    "view_context": {"server": str, "uri": str},
    "view_log": {"server": str},
    "view_closed": {"view": str},  # its calls still waiting (for an approval) are withdrawn
}
MAX_COMMAND_BYTES = 1 << 20  # a question with an attachment; more is not a chat message


class CommandError(ValueError):
    """A command the page should not have sent: the message says what is wrong with it."""


@dataclass(frozen=True)
class Command:
    id: Any  # echoed in the reply; the page's own counter
    name: str
    fields: Mapping[str, Any]


def to_json(value: Any) -> Any:
    """``value`` as JSON-ready data: dataclasses as objects, tuples as lists, enums by value."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def event_json(seq: int, event: Any) -> dict[str, Any]:
    """One host event as the page receives it; a download's progress also in the window's words, and a
    denied call's ``denial`` (why it did not run, host/denials.py) as the window says it; a question (a
    turn's start, the user's message) also as the page shows it: ``question``, the text typed, and
    ``attachments``, the resources sent with it (attachments_json)."""
    data = to_json(event)
    if isinstance(event, ModelDownloadProgressed):
        data["text"] = describe_progress(event)
    elif isinstance(event, ToolExecutionFinished) and event.status == "denied":
        data["denial"] = denial_text(event.decided_by, event.error)  # as the window and the history say it
    elif isinstance(event, TurnStarted) or isinstance(event, MessageAppended) and event.role == "user":
        question, attached = split_question(
            event.user_text if isinstance(event, TurnStarted) else event.content
        )
        data["question"] = question
        data["attachments"] = attachments_json(attached)
    return {"seq": seq, "event": type(event).__name__, "data": data}


def attachments_json(attached: Iterable[AttachedResource]) -> list[dict[str, str]]:
    """The resources sent with a question as the page's chips show them: "▤ today · 43 B", the URI on
    hover (not their texts)."""
    return [{"uri": a.uri, "name": a.name, "size": a.size, "label": a.label} for a in attached]


def parse_command(text: str | bytes) -> Command:
    """A command from the page. Raises CommandError naming what is wrong."""
    if len(text) > MAX_COMMAND_BYTES:
        raise CommandError(f"a command is at most {MAX_COMMAND_BYTES} bytes")
    try:
        message = json.loads(text)
    except ValueError as exc:
        raise CommandError(f"not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise CommandError("a command is a JSON object")
    name = message.get("command")
    if not isinstance(name, str) or name not in COMMANDS:
        raise CommandError(f"unknown command {name!r}; one of {', '.join(COMMANDS)}")
    for key, kind in COMMANDS[name].items():
        value = message.get(key)
        # bool is an int in Python: a count must not be true, a switch must not be 1.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CommandError(f"{name}: {key!r} must be {_kind_name(kind)}")
    if name == "submit":
        if not message["text"].strip():
            raise CommandError("submit: 'text' is empty")
        conversation = message.get("conversation_id")
        if conversation is not None and (not isinstance(conversation, int) or isinstance(conversation, bool)):
            raise CommandError("submit: 'conversation_id' must be a number or null")
    if name == "approve":
        arguments = message.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise CommandError("approve: 'arguments' must be an object")
        if message.get("scope") not in (None, "once", "conversation", "always"):
            raise CommandError("approve: 'scope' is once, conversation or always")
    fields = {k: v for k, v in message.items() if k not in ("id", "command")}
    return Command(message.get("id"), name, fields)


def approval_decision(fields: Mapping[str, Any]) -> ApprovalDecision:
    """The decision an `approve` command carries, recorded as decided on the web page."""
    if fields["allow"]:
        return ApprovalDecision(
            allow=True,
            scope=fields.get("scope") or "once",
            arguments=fields.get("arguments"),
            decided_by="web",
        )
    # No reason typed: none, as in the window (every face then says "you denied it", host/denials.py).
    reason = str(fields.get("reason") or "").strip() or None
    return ApprovalDecision(allow=False, reason=reason, decided_by="web")


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "a number", bool: "true or false", dict: "an object"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)
