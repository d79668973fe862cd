"""Files and folders a question names by their words, in the folders the servers serve.

"Add 'pay the electricity bill' to my todo list" writes no file name. Read as written, no tool that
changes a file may be called (agent/routing.py: a tool that may destroy something needs the value it
changes), and a path the host offered would be a word of the question. The folder the files server
serves holds todo.md: the user means it. So the host reads the question with the file it names after
its words, "... my todo list (todo.md)", for routing, the values it offers and the answer's check;
the chat keeps what the user wrote.

A file is named when the words of its name without the extension ("todo", "soup", "meeting-notes" as
"meeting notes") stand in the question right after "my", "the", "our" or "this" ("my soup recipe",
"the old log"; not "five years old", nor "the old quiz-draft note", where the name written after is
the one meant); a folder the same way ("my recipes"). Only in the folders a server was started on
(host/executor.py), up to MAX_DEPTH folders down and MAX_ENTRIES entries in all (a turn reads a folder
listing, not a disk); only where the question writes no path of its own and exactly one file or
folder is named: two files called "notes" leave the question as it is.

Where the words name no one file, what the files say may. A folder named in the singular ("according
to my recipe" of the folder recipes/) means one file of it; a question of what the asker once wrote or
told ("what did i write down about the wifi", agent/_query_cues.asks_what_i_recorded) means one of the
served files. The one meant is the file whose name and text hold the question's words best, by BM25
over what the files say (the first MAX_READ_BYTES of at most MAX_FILES_READ files, text only): clearly
best, scoring CLEAR_LEAD times the next or more. "How long do I boil the spaghetti, according to my
recipe?" reads recipes/pasta.md, which tells how; the word "spaghetti" is no file's name, and a
host that offered it as the path would have the tool read nothing. "Do any of my recipes use garlic?"
names the folder in the plural: all of it is meant, and it stays named.

A question about a file the user has is a task, however much it reads like a chat ("Does my soup
recipe need an onion?"): only the file holds the answer. Routing is told so (agent/routing.py), and
routes it among the servers whose folder holds the file, with those that serve no folder
(tools_for_named_files): a server started on a folder acts in it, so a server on another folder, not
one that holds it, cannot reach the file however well its tool's words fit.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from edgehost.agent._bm25 import Bm25Index, alike, terms
from edgehost.agent._query_cues import asks_what_i_recorded
from edgehost.agent.question_values import WORD, path_values
from edgehost.agent.tools import ToolSpec

__all__ = ["files_in", "tools_for_named_files", "with_named_files"]

MAX_DEPTH = 2
MAX_ENTRIES = 500
MIN_NAME_LETTERS = 3
MAX_FILES_READ = 200
MAX_READ_BYTES = 8 * 1024
CLEAR_LEAD = 2.0
_OWNING = frozenset({"my", "the", "our", "this"})
_NAME_PARTS = re.compile(r"[-_. ]+|(?<=[a-z])(?=[A-Z])")
# A word written as a name of its own ("quiz-draft", "report_2", "v2"): after the words of a listed
# file's name ("the old quiz-draft note"), it is the name meant, not the listed one (old.log).
_NAME_LIKE = re.compile(r"[-_\d]")


def with_named_files(question: str, folders: Iterable[str]) -> tuple[str, tuple[str, ...]]:
    """``question`` as the host reads it: with the one file or folder of ``folders`` it names by its
    words after it, in brackets (module docstring); and the folders of ``folders`` that hold what it
    names, by its words or written whole ("Does notes.txt mention the dentist?"), () for none; of a
    file meant by what it says, the folder whose copy says it."""
    folders = list(dict.fromkeys(folders))
    written = path_values(question)
    if written:
        return question, tuple(f for f in folders if any(_holds(f, path) for path in written))
    words = [w.lower() for w in WORD.findall(question)]
    owned = [i for i in range(1, len(words)) if words[i - 1] in _OWNING]  # where a named file may start
    recorded = asks_what_i_recorded(question)
    if not owned and not recorded:
        return question, ()  # nothing to look for: the folders are not listed
    listings = {folder: files_in(folder) for folder in folders}
    every = [(folder, relative) for folder in folders for relative in listings[folder]]
    # Two folders may hold one name: it names one file or folder however many list it.
    relatives = dict.fromkeys(relative for _folder, relative in every)
    named = [relative for relative in relatives if owned and _names(words, owned, relative)]
    if len(named) > 1:
        return question, ()
    if named and named[0].endswith("/") and _in_singular(words, named[0]):
        told = _told_in(question, [f for f in every if f[1].startswith(named[0])])
    else:
        told = None if named or not recorded else _told_in(question, every)
    if told is not None:  # the file whose text says it: the folder whose copy says it
        return f"{question} ({told[1]})", (told[0],)
    if not named:
        return question, ()
    return f"{question} ({named[0]})", tuple(f for f in folders if named[0] in listings[f])


def tools_for_named_files(tools: Sequence[ToolSpec], holders: Sequence[str]) -> list[ToolSpec]:
    """The ``tools`` that can reach what a question names, where served folders ``holders`` hold it
    (with_named_files): a server started on a folder acts in that folder, so of the servers that serve
    one, only those whose folder holds it or a folder that does; every tool where none does. With the
    built-in files server on an empty folder and a filesystem server on the user's documents, "read
    notes.txt" ranked the two servers' read tools alike and read the empty folder."""
    if not holders:
        return list(tools)
    return [
        t
        for t in tools
        if t.served_folder is None or any(_within(holder, t.served_folder) for holder in holders)
    ]


def _within(folder: str, served: str) -> bool:
    """Whether ``folder`` is the folder ``served`` or one inside it (both whole paths)."""
    return folder == served or folder.startswith(served.rstrip(os.sep) + os.sep)


def _holds(folder: str, path: str) -> bool:
    """Whether ``path`` (relative to ``folder``, or whole) is a file or folder inside ``folder``."""
    root = Path(folder).resolve()
    whole = (root / Path(path).expanduser()).resolve()
    return whole.is_relative_to(root) and whole.exists()


def files_in(folder: str) -> list[str]:
    """The files and folders of ``folder`` as paths relative to it (a folder's with a "/" at its end), up
    to MAX_DEPTH folders down and MAX_ENTRIES entries read, hidden ones left out; [] for a folder that
    cannot be read."""
    found: list[str] = []
    pending = [("", 0)]
    budget = MAX_ENTRIES
    while pending and budget > 0:
        relative, depth = pending.pop(0)
        try:
            with os.scandir(os.path.join(folder, relative)) as entries:
                listed = sorted(itertools.islice(entries, budget), key=lambda e: e.name)
        except OSError:
            continue
        budget -= len(listed)
        for entry in listed:
            if entry.name.startswith("."):
                continue
            path = f"{relative}/{entry.name}" if relative else entry.name
            if entry.is_file():
                found.append(path)
            elif entry.is_dir():
                found.append(f"{path}/")
                if depth + 1 < MAX_DEPTH:
                    pending.append((path, depth + 1))
    return found


def _names(words: list[str], owned: list[int], relative: str) -> bool:
    """Whether the question's ``words`` name the file ``relative`` from one of the ``owned`` places
    (just after an owning word: module docstring)."""
    name = relative.rstrip("/").rsplit("/", 1)[-1]
    stem = name if relative.endswith("/") else name.rsplit(".", 1)[0]
    parts = [p.lower() for p in _NAME_PARTS.split(stem) if p]
    if not parts or sum(len(p) for p in parts) < MIN_NAME_LETTERS:
        return False
    return any(
        start + len(parts) <= len(words)
        and all(alike(w, p) for w, p in zip(words[start : start + len(parts)], parts, strict=False))
        and not _NAME_LIKE.search(words[start + len(parts)] if start + len(parts) < len(words) else "")
        for start in owned
    )


def _in_singular(words: list[str], folder: str) -> bool:
    """Whether the question names ``folder`` (a plural, "recipes/") by a word in the singular ("my
    recipe"): one file of it is meant."""
    name = folder.rstrip("/").rsplit("/", 1)[-1].lower()
    return name.endswith("s") and name[:-1] in words


def _told_in(question: str, files: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """Of ``files`` (each a folder and a path relative to it), the one whose name and text hold the
    question's words clearly best (module docstring); None where none does."""
    documents, kept = [], []
    for folder, relative in [f for f in files if not f[1].endswith("/")][:MAX_FILES_READ]:
        text = _text_of(os.path.join(folder, relative))
        if text is not None:
            documents.append(terms(f"{relative} {text}"))
            kept.append((folder, relative))
    if not kept:
        return None
    scores = Bm25Index(documents).scores(terms(question))
    ranked = sorted(zip(scores, kept, strict=True), reverse=True)
    best, second = ranked[0][0], ranked[1][0] if len(ranked) > 1 else 0.0
    return ranked[0][1] if best > 0 and best >= CLEAR_LEAD * second else None


def _text_of(path: str) -> str | None:
    """The first MAX_READ_BYTES of a text file; None for a file that cannot be read or is not text."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(MAX_READ_BYTES)
    except OSError:
        return None
    if b"\0" in head:
        return None
    return head.decode("utf-8", errors="ignore")
