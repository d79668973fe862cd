"""Resources attached to a question: the text the model reads for each, and the compact mention the
faces show in its place (the window's bubble, the web page, a conversation reopened from history).

The agent stores a question sent with attachments as one user message, the attachments' texts and the
question joined by blank lines (agent/loop.py). Each text starts with a header that names the resource
and counts its characters, ``[resource note://today, 1234 characters]``, so the message can be taken
apart again exactly, whatever blank lines the resource's text holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["AttachedResource", "attachment_text", "split_question"]

_HEADER = re.compile(r"\[resource (?P<uri>[^\n]+?), (?P<length>\d+) characters\]\n")
# Written before the header counted characters: by the window ("[resource URI]") and by `edgehost chat`
# ("Attached resource URI:"). Such a message is taken apart at blank lines, as well as that can be done.
_OLD_HEADER = re.compile(r"\[resource (?P<uri>[^\n\]]+)\]\n|Attached resource (?P<cli_uri>[^\n]+):\n")
_OLD_BOUNDARY = re.compile(r"\n\n(?=\[resource [^\n\]]+\]\n|Attached resource [^\n]+:\n)")  # before one
_SEPARATOR = "\n\n"  # between the attachments and the question, as agent/loop.py joins them
_PREVIEW_CHARS = 400


@dataclass(frozen=True)
class AttachedResource:
    """One resource sent with a question: its URI and the text the model read."""

    uri: str
    text: str

    @property
    def name(self) -> str:
        """The last part of the URI's path ("architecture.md"), or the whole URI when it has none."""
        return self.uri.rstrip("/").rsplit("/", 1)[-1] or self.uri

    @property
    def size(self) -> str:
        """The text's size in words a person reads: "840 B", "12.3 kB", "1.5 MB"."""
        count = len(self.text.encode("utf-8"))
        if count < 1000:
            return f"{count} B"
        if count < 1_000_000:
            return f"{count / 1000:.1f} kB"
        return f"{count / 1_000_000:.1f} MB"

    @property
    def label(self) -> str:
        """The compact mention shown in the question's place: "architecture.md · 12.3 kB"."""
        return f"{self.name} · {self.size}"

    @property
    def preview(self) -> str:
        """The URI and the start of the text, for a tooltip."""
        start = self.text[:_PREVIEW_CHARS] + ("…" if len(self.text) > _PREVIEW_CHARS else "")
        return f"{self.uri}\n\n{start}"


def attachment_text(uri: str, text: str) -> str:
    """What the model reads of a resource attached to a question: a header naming it, then its text."""
    return f"[resource {uri}, {len(text)} characters]\n{text}"


def split_question(content: str) -> tuple[str, tuple[AttachedResource, ...]]:
    """A stored user message taken apart: the question the user typed and the resources attached to it
    (none for a message sent without attachments, returned whole)."""
    attached: list[AttachedResource] = []
    rest = content
    while (header := _HEADER.match(rest)) is not None:
        end = header.end() + int(header["length"])
        if not rest.startswith(_SEPARATOR, end):
            break  # a question that only looks like a header
        attached.append(AttachedResource(header["uri"], rest[header.end() : end]))
        rest = rest[end + len(_SEPARATOR) :]
    if attached:
        return rest, tuple(attached)
    return _split_old_question(content)


def _split_old_question(content: str) -> tuple[str, tuple[AttachedResource, ...]]:
    """A message with the headers written before they counted characters: the question is taken to be
    its last paragraph, each attachment to end where the next header starts."""
    if _OLD_HEADER.match(content) is None or _SEPARATOR not in content:
        return content, ()
    body, _, question = content.rpartition(_SEPARATOR)
    attached = []
    for part in _OLD_BOUNDARY.split(body):
        header = _OLD_HEADER.match(part)
        if header is None:  # cannot happen: each part starts at a header
            return content, ()
        attached.append(AttachedResource(header["uri"] or header["cli_uri"], part[header.end() :]))
    return question, tuple(attached)
