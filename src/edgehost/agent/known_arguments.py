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
or directory (``path`` described as a directory, or undescribed in a tool named for directories or
for a search: the filesystem server's ``list_directory`` and ``search_files``). The folder argument
of a tool that changes something is the folder it changes (``create_directory``'s new one), and a
file path is never filled: which folder or file to change or read is the user's to say. Pure functions, except that a server's
arguments are checked for being existing folders.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

__all__ = [
    "FILE_NAME",
    "PATH_ARGUMENT",
    "WRITTEN_PATH",
    "filled_by_host",
    "is_folder_argument",
    "is_place_argument",
    "known_arguments",
    "offered_values",
    "served_folder",
    "settled_arguments",
    "texts_within",
]

# An argument named for the place a tool works in: repo_path, repository_path, project_dir,
# workspace_folder, working_dir, root, root_path. Not repo_url, project_id, report_name, a bare "repo"
# (a hosting service's repository name) or root_cause.
_PLACE_NAME = re.compile(
    r"^(?:(?:repo|repository|project|workspace|working)_?(?:path|dir|directory|folder|root)|root(?:_?(?:path|dir|directory|folder))?)$",
    re.I,
)
# An argument named for a folder: directory, folder, dir, target_dir, source_folder, dir_path.
_FOLDER_NAME = re.compile(r"^(?:\w+_)?(?:dir|directory|folder)(?:_?path)?$", re.I)
# A "path" described as a folder ("Directory relative to ...", "The folder to list").
_FOLDER_DESCRIPTION = re.compile(r"^\s*(?:the\s+)?(?:new\s+)?(?:directory|folder)\b", re.I)
# A tool named for folders, or for a search (its path is the folder it looks in).
_FOLDER_TOOL = re.compile(r"directory|folder|(?:^|_)dir(?:_|$)|(?:^|_)search(?:_|$)", re.I)
# A flag of the program that starts a server, whose folder is where it runs or keeps its own things,
# not what it serves: uv --directory/--project, npm --prefix, docker -v/-w, --config-dir, --cache-dir.
_RUNNER_FLAG = re.compile(
    r"^(?:--directory|--project|--prefix|--cwd|-C|-w|--workdir|-v|--volume|--mount|--[\w-]*(?:config|cache|data|log|state)[\w-]*)$"
)
# A path written whole in a question: from the root or the home folder (not a URL's "//host").
WRITTEN_PATH = re.compile(r"(?<![\w/.~:])(~?/[\w\-.][\w\-./]*)")
FILE_NAME = re.compile(r"\.\w{1,5}$")
# An argument whose name says it is a path (file_path, source, destination_folder): one the question
# names, where a folder argument may be one the host knows.
PATH_ARGUMENT = re.compile(r"path|file|folder|directory|source|destination", re.IGNORECASE)


def is_place_argument(name: str) -> bool:
    """Whether the argument ``name`` is the place a tool works in (repo_path, root ...)."""
    return bool(_PLACE_NAME.match(name))


def is_folder_argument(name: str, schema: Any, tool_name: str) -> bool:
    """Whether the argument ``name`` of ``tool_name`` (its JSON ``schema``) is a folder's path: named
    for a place or a folder, or a ``path`` described as a folder or, undescribed, of a tool named for
    folders or for a search (the filesystem server's search_files: where it searches). A schema that
    says it is a URL, or holds its own choices, is not."""
    if not isinstance(schema, Mapping) or schema.get("type", "string") != "string":
        return False
    if "enum" in schema or "const" in schema or schema.get("format") == "uri":
        return False
    description = str(schema.get("description") or "")
    if is_place_argument(name) or _FOLDER_NAME.match(name):
        return True
    if "path" not in name.lower():
        return False
    return bool(
        _FOLDER_DESCRIPTION.match(description) or (not description and _FOLDER_TOOL.search(tool_name))
    )


@functools.lru_cache(maxsize=256)
def served_folder(args: tuple[str, ...], roots: tuple[str, ...] = (), cwd: str | None = None) -> str | None:
    """The one folder a server was started on: the existing folders among its arguments (``PATH``,
    ``--flag PATH``, ``--flag=PATH``; relative ones from its ``cwd``) and its configured roots, leaving
    out the folders of a runner's flags (_RUNNER_FLAG); None when there are none or several. Cached:
    asked on every listing of the tools, it looks at the disk once per configuration."""
    found: list[str] = []
    after_runner_flag = False
    for arg in [*args, *roots]:
        flag, _, inline = arg.partition("=") if arg.startswith("-") else ("", "", "")
        if after_runner_flag or (flag and _RUNNER_FLAG.match(flag)):
            after_runner_flag = bool(flag and not inline and _RUNNER_FLAG.match(flag))
            continue
        value = inline or arg
        if value.startswith("-") or not (value.startswith(("/", "~", ".")) or os.sep in value):
            continue
        path = os.path.abspath(os.path.join(cwd or os.getcwd(), os.path.expanduser(value)))
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
        and (read_only or is_place_argument(name))
    }


def offered_values(name: str, folder: str, question: str, named_folders: Sequence[str] = ()) -> list[str]:
    """What a known argument may take, best first: the paths the question writes whole ("/home/anna/
    site"); for a folder argument, not a place, the folders it names inside the served one ("the photos
    folder": ``folder/photos``, from ``named_folders``); then the served folder. "The branch called
    fix-typo" names no repository."""
    written = [p.rstrip(".") for p in WRITTEN_PATH.findall(question) if not FILE_NAME.search(p.rstrip("."))]
    inside = (
        []
        if is_place_argument(name)
        else [
            os.path.join(folder, f)
            for f in named_folders
            if not f.startswith(("/", "~")) and not FILE_NAME.search(f)
        ]
    )
    return list(dict.fromkeys([*written, *inside, folder]))


def settled_arguments(
    arguments: Mapping[str, Any],
    known: Mapping[str, str],
    question: str,
    named_folders: Sequence[str] = (),
    *,
    host_chose: bool,
) -> dict[str, Any]:
    """``arguments`` with each known argument the call left out or empty filled in; for a call the host
    chose, also one whose value is none of those the host would offer (offered_values): without a
    grammar (RKLLM, a remote server) nothing held the model to them, and it wrote repo_path "commits".
    A folder the question names is taken inside the served one."""
    settled = dict(arguments)
    for name, folder in known.items():
        value = arguments.get(name)
        offered = offered_values(name, folder, question, named_folders)
        if not str(value or "").strip():
            settled[name] = folder
        elif host_chose and value not in offered:
            inside = os.path.join(folder, str(value))
            settled[name] = inside if inside in offered else folder
    return settled


def filled_by_host(
    arguments: Mapping[str, Any],
    known: Mapping[str, str],
    question: str,
    written: str | None = None,
    *,
    kept_texts: Collection[str] = frozenset(),
) -> tuple[str, ...]:
    """The arguments whose value in ``arguments`` is the host's and not written in the question: a
    known argument the grammar offered or the host filled in; where the host read the question
    other than as ``written`` (a file it names by its words, a pronoun resolved: agent/named_files.py,
    agent/references.py), a text value of that reading the user did not write ("todo.md" for "my todo
    list"); and a list or object holding one of ``kept_texts``, what a server keeps that the host
    offered the call (agent/kept_values.py: "garage code is 4512" for "Forget the garage code"), that
    the user did not write."""
    known_filled = [
        name
        for name, folder in known.items()
        if isinstance(arguments.get(name), str)
        and arguments[name].startswith(folder)
        and arguments[name] not in question
    ]
    typed = (question if written is None else written).lower()
    kept = [
        name
        for name, value in arguments.items()
        if name not in known_filled
        and isinstance(value, (list, dict))
        and any(text in kept_texts and text.lower() not in typed for text in texts_within(value))
    ]
    if written is None:
        return (*known_filled, *kept)
    read = [
        name
        for name, value in arguments.items()
        if name not in known_filled
        and isinstance(value, str)
        and value
        and value in question
        and value not in written
    ]
    return (*known_filled, *read, *kept)


def texts_within(value: Any) -> list[str]:
    """The non-empty texts a value holds, at any depth of its lists and objects."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [text for item in items for text in texts_within(item)]
