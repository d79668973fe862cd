"""How a question sent with resources attached is stored, and what a search matches in it.

The agent stores such a question as one user message: each resource's text under a header that names it
and counts its characters, ``[resource note://today, 1234 characters]``, then the question typed, joined
by blank lines (agent/loop.py). The count takes the message apart again exactly, whatever blank lines a
resource's text holds. host/attachments.py shows the parts; the store searches the question and the
resources' URIs, not their texts (a log attached is not what the user asked about).
"""

from __future__ import annotations

import re

__all__ = ["attachment_text", "searchable_text", "split_attachments"]

_HEADER = re.compile(r"\[resource (?P<uri>[^\n]+?), (?P<length>\d+) characters\]\n")
# Written before the header counted characters: by the window ("[resource URI]") and by `edgehost chat`
# ("Attached resource URI:"). Such a message is taken apart at blank lines, as well as that can be done.
_OLD_HEADER = re.compile(r"\[resource (?P<uri>[^\n\]]+)\]\n|Attached resource (?P<cli_uri>[^\n]+):\n")
_OLD_BOUNDARY = re.compile(r"\n\n(?=\[resource [^\n\]]+\]\n|Attached resource [^\n]+:\n)")  # before one
_SEPARATOR = "\n\n"  # between the attachments and the question, as agent/loop.py joins them
# What a message must start with to hold attachments (the migration looks only at those).
HEADER_STARTS = ("[resource ", "Attached resource ")


def attachment_text(uri: str, text: str) -> str:
    """What the model reads of a resource attached to a question: a header naming it, then its text."""
    return f"[resource {uri}, {len(text)} characters]\n{text}"


def split_attachments(content: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A stored user message taken apart: the question typed and the (URI, text) of each resource
    attached to it (none for a message sent without attachments, returned whole)."""
    attached: list[tuple[str, str]] = []
    rest = content
    while (header := _HEADER.match(rest)) is not None:
        end = header.end() + int(header["length"])
        if not rest.startswith(_SEPARATOR, end):
            break  # a question that only looks like a header
        attached.append((header["uri"], rest[header.end() : end]))
        rest = rest[end + len(_SEPARATOR) :]
    if attached:
        return rest, tuple(attached)
    return _split_old_question(content)


def searchable_text(role: str, content: str) -> str | None:
    """What a search matches in a message whose text holds more than that: a question's attached
    resources by their URIs, not their texts, then the question typed. None for any other message (its
    whole text is searched)."""
    if role != "user" or not content.startswith(HEADER_STARTS):
        return None
    question, attached = split_attachments(content)
    if not attached:
        return None
    return "\n".join([*(uri for uri, _text in attached), question])


def _split_old_question(content: str) -> tuple[str, tuple[tuple[str, str], ...]]:
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
        attached.append((header["uri"] or header["cli_uri"], part[header.end() :]))
    return question, tuple(attached)
