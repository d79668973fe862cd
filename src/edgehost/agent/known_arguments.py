"""Arguments EdgeHost fills from what it knows of a server, not from the question (issue 33).

Every tool of the reference git server requires ``repo_path``. A user asks "Show me the latest
commits" and never types the repository's path; a small model then fills it with a word of the
question ("commits", "git"), and the call fails. The host knows the value: it started the server on
one folder (``--repository PATH``, the filesystem server's allowed directory given as an argument,
or the one root configured for it).

So a *required* argument that names a folder of a tool whose server serves exactly one folder is
known: the host offers that folder when the question names none, fills it where the model left it
out, and the tool card says EdgeHost filled it. A folder argument is one whose name says repository,
root, workspace or project (the place the tool works in), or, for a tool that only reads, a folder
or directory (``path`` described as a directory, or undescribed in a tool named for directories:
the filesystem server's ``list_directory``). The folder argument of a tool that changes something
is the folder it changes (``create_directory``'s new one), and a file path is never filled: which
folder or file to change or read is the user's to say. Pure functions, except that a server's
arguments are checked for being existing folders.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["filled_by_host", "is_folder_argument", "known_arguments", "served_folder", "with_known"]

# An argument named for the place a tool works in ("repo_path", "root", "workspace").
_PLACE_NAME = re.compile(r"repo|root|workspace|project", re.I)
# An argument named for a folder ("folder", "directory", "working_dir").
_FOLDER_NAME = re.compile(r"folder|director|(?:^|_)dir(?:_|$)", re.I)
# A "path" described as a folder ("Directory relative to ...", "The folder to list").
_FOLDER_DESCRIPTION = re.compile(r"^\s*(?:the\s+)?(?:new\s+)?(?:directory|folder)\b", re.I)
_FOLDER_TOOL = re.compile(r"directory|folder|(?:^|_)dir(?:_|$)", re.I)
_PATH_NAME = re.compile(r"path", re.I)


def is_folder_argument(name: str, schema: Any, tool_name: str) -> bool:
    """Whether the argument ``name`` of ``tool_name`` (its JSON ``schema``) is a folder's path."""
    if not isinstance(schema, Mapping) or schema.get("type", "string") != "string":
        return False
    description = str(schema.get("description") or "")
    if _PLACE_NAME.search(name) or _FOLDER_NAME.search(name):
        return True
    if not _PATH_NAME.search(name):
        return False
    return bool(
        _FOLDER_DESCRIPTION.match(description) or (not description and _FOLDER_TOOL.search(tool_name))
    )


def served_folder(args: Sequence[str], roots: Sequence[str] = ()) -> str | None:
    """The one folder a server was started on: the existing folders among its arguments (``PATH``,
    ``--flag PATH``, ``--flag=PATH``) and its configured roots; None when there are none or several."""
    found: list[str] = []
    for arg in [*args, *roots]:
        value = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
        if value.startswith("-") or not (value.startswith(("/", "~")) or os.sep in value):
            continue
        path = os.path.abspath(os.path.expanduser(value))
        if os.path.isdir(path) and path not in found:
            found.append(path)
    return found[0] if len(found) == 1 else None


def known_arguments(
    tool_name: str, input_schema: Mapping[str, Any], folder: str | None, *, read_only: bool
) -> dict[str, str]:
    """The required folder arguments of a tool whose server serves ``folder``, each with it: the place
    it works in, and, for a tool that only reads (``read_only``), any folder (module docstring)."""
    if folder is None:
        return {}
    properties = input_schema.get("properties")
    required = input_schema.get("required")
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return {}
    return {
        name: folder
        for name, schema in properties.items()
        if name in required
        and is_folder_argument(name, schema, tool_name)
        and (read_only or bool(_PLACE_NAME.search(name)))
    }


def with_known(arguments: Mapping[str, Any], known: Mapping[str, str]) -> dict[str, Any]:
    """``arguments`` with each known argument the call left out or empty filled in."""
    missing = [name for name in known if not str(arguments.get(name) or "").strip()]
    return {**arguments, **{name: known[name] for name in missing}}


def filled_by_host(arguments: Mapping[str, Any], known: Mapping[str, str], question: str) -> tuple[str, ...]:
    """The known arguments whose value in ``arguments`` is the host's and not written in the question
    (the grammar offered it, or the host filled it in)."""
    return tuple(
        name for name, value in known.items() if arguments.get(name) == value and value not in question
    )
