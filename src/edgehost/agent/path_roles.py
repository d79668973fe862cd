"""Which of the two paths a question writes is moved (or copied) and which is where it goes.

A tool that moves, copies or renames takes a source and a destination. Offered the question's two
paths for each, the 135M model wrote one of them for both; and "move shopping.txt into the recipes
folder" gave the folder itself as the destination, which the files servers refuse (it exists) or read
as a new name. So, as currencies and time zones are paired (agent/currencies.py, agent/places.py):

- a file and a folder (named as one: "the recipes folder", "archive/", or a folder the host read the
  question with, agent/named_files.py): the file goes into the folder, so the destination is the
  folder's path with the file's name ("recipes/shopping.txt"), whatever their order ("put my notes in
  the archive folder (notes.txt)": the host wrote the file it named last);
- otherwise two paths in the order written: the first is what moves, the second where it goes
  ("rename notes.txt to ideas.txt", "copy recipes/soup.md as soups/soup.md"). Only where both stand in
  the question's own words, not in the brackets the host adds: there the order says nothing.

Pure functions.
"""

from __future__ import annotations

import re

from edgehost.agent.question_values import FOLDER_WORDS, WORD, path_values

__all__ = ["path_roles"]

# What the host wrote after the question: a file or folder it names by its words (named_files).
_HOST_BRACKETS = re.compile(r"\s*\([^()]*\)\s*$")


def path_roles(text: str) -> tuple[str, str] | None:
    """The source and the destination of a move or a copy ``text`` asks for, where it writes two paths
    (module docstring); None otherwise."""
    paths = path_values(text)
    if len(paths) != 2:
        return None
    folders = [p for p in paths if _is_folder(p, text)]
    if len(folders) == 1:
        folder = folders[0]
        [moved] = [p for p in paths if p != folder]
        return moved, f"{folder.rstrip('/')}/{moved.rstrip('/').rsplit('/', 1)[-1]}"
    own_words = _HOST_BRACKETS.sub("", text)
    places = [own_words.find(p) for p in paths]
    if min(places) < 0:
        return None
    first, second = sorted(paths, key=lambda p: own_words.find(p))
    return first, second


def _is_folder(path: str, text: str) -> bool:
    """Whether the question names ``path`` as a folder: written with a "/" at its end, or followed by a
    word for one ("the recipes folder")."""
    if path.endswith("/"):
        return True
    words = [w.lower() for w in WORD.findall(text)]
    return any(
        word == path.lower() and index + 1 < len(words) and words[index + 1] in FOLDER_WORDS
        for index, word in enumerate(words)
    )
