"""Resources attached to a question: the text the model reads for each, and the compact mention the
faces show in its place (the window's bubble, the web page, a conversation reopened from history).

The agent stores a question sent with attachments as one user message, the attachments' texts and the
question joined by blank lines (agent/loop.py). Each text starts with a header that names the resource
and counts its characters, ``[resource note://today, 1234 characters]``, so the message can be taken
apart again exactly, whatever blank lines the resource's text holds. The format is the store's
(store/_attached.py): its search matches the question and the resources' URIs, not their texts.
"""

from __future__ import annotations

from dataclasses import dataclass

from edgehost.store import attachment_text, split_attachments

__all__ = ["AttachedResource", "attachment_text", "split_question"]

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


def split_question(content: str) -> tuple[str, tuple[AttachedResource, ...]]:
    """A stored user message taken apart: the question the user typed and the resources attached to it
    (none for a message sent without attachments, returned whole)."""
    question, attached = split_attachments(content)
    return question, tuple(AttachedResource(uri, text) for uri, text in attached)
