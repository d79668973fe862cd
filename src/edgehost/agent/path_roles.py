"""Which of the two paths a question writes is moved (or copied) and which is where it goes.

A tool that moves, copies or renames takes a source and a destination. Offered the question's two
paths for each, the 135M model wrote one of them for both; and "move shopping.txt into the recipes
folder" gave the folder itself as the destination, which the files servers refuse (it exists) or read
as a new name. So, as currencies and time zones are paired (agent/currencies.py, agent/places.py):

- a file and a folder the question names as one (question_values.folder_values: "the recipes
  folder", "a folder called archive", "archive/", or a folder the host read the question with): the
  file goes into the folder, so for a tool that moves or copies (``into``) the destination is the
  folder's path with the file's name ("recipes/shopping.txt"), whatever their order ("put my notes in
  the archive folder (notes.txt)": the host wrote the file it named last); for another tool (an
  archive's extraction) the folder itself. Taken "from" the folder ("copy notes.txt from the backup
  folder"), the file in the folder is the source and the file's name the destination;
- otherwise two paths in the order written, the one after "from" or "out of" the source ("rename
  notes.txt to ideas.txt", "restore notes.txt from backup/notes.txt"), only where both stand in the
  question's own words, not in the brackets the host adds: there the order says nothing.

None where the question writes no two paths, or a path is part of a longer name in quotes ("move
'meeting notes.txt' ...": "notes.txt" is not the file). Pure functions.
"""

from __future__ import annotations

import re

from edgehost.agent.known_arguments import FILE_NAME
from edgehost.agent.question_values import folder_values, path_values, quoted_phrases

__all__ = ["path_roles"]

# What the host wrote after the question: a file or folder it names by its words (named_files).
_HOST_BRACKETS = re.compile(r"\s*\([^()]*\)\s*$")


def path_roles(text: str, *, into: bool = True) -> tuple[str, str] | None:
    """The source and the destination of a move or a copy ``text`` asks for, where it writes two paths
    (module docstring); ``into``: the tool moves or copies, so a file goes into a folder by its name.
    None otherwise."""
    paths = path_values(text)
    if len(paths) != 2 or any(p in q and p != q for p in paths for q in quoted_phrases(text)):
        return None
    named_folders = {f.rstrip("/") for f in folder_values(text)}
    folders = [p for p in paths if p.rstrip("/") in named_folders]
    files = [p for p in paths if p not in folders and FILE_NAME.search(p)]
    if len(folders) == 1 and len(files) == 1:
        folder, moved = folders[0], files[0]
        inside = f"{folder.rstrip('/')}/{moved.rsplit('/', 1)[-1]}"
        if _taken_from(text, folder):
            return inside, moved.rsplit("/", 1)[-1]
        return moved, inside if into else folder
    own_words = _HOST_BRACKETS.sub("", text)
    if any(p not in own_words for p in paths):
        return None
    first, second = sorted(paths, key=own_words.find)
    return (second, first) if _taken_from(own_words, second) else (first, second)


def _taken_from(text: str, path: str) -> bool:
    """Whether ``text`` takes something from ``path`` ("from the backup folder", "out of archive/")."""
    return (
        re.search(rf"\b(?:from|out\s+of)\s+(?:(?:the|my|our|this|that)\s+)?{re.escape(path)}", text, re.I)
        is not None
    )
