"""A follow-up's pronoun read as what it stands for in the previous question.

"My sister Anna's birthday is on 12 May" then "Also, she lives in Lyon.": alone, the follow-up's only
name is "Lyon", and the host filled the memory entity with it. Read with its pronoun resolved, "Also,
Anna lives in Lyon.", routing, the arguments the host offers and the check of the answer all see the
name the user means. The user's message is kept as written; only the host's reading changes.

Resolved, only where the previous question leaves one reading:
- "she", "he", "him", "his", "her" stand for the previous question's first proper name: a capitalised
  word inside a sentence (not its first word, not "I", not a month or a day's name) and the
  capitalised words that follow it ("Dr Ruiz"; "she" was "Dr" alone), without its "'s". A sentence's
  first word is a name when it begins one the host knows is kept (agent/kept_names.py): after "Lena
  is Max's sister, record that", "she" was read as Max, and Lena's new fact went to him.
  "his age" becomes "Biscuit's age"; "her" is
  read as owning what follows ("her age") unless a pronoun, an article or a preposition follows.
- "it" stands for the only file or folder the previous question names ("Open notes.txt", then "now
  delete it"), when the follow-up names none of its own. "it is", "is it" and "it's" are left alone
  ("what time is it?").
- a follow-up that carries on from the previous question and asks for a change acts on the only file
  or folder the previous question names, when it names none of its own and has no "it": it is read
  with that file after it in brackets, as agent/named_files.py writes a file named by its words. It
  carries on when it opens with "now", "then", "next", "also" or "and" ("Now add a line saying the
  dentist is on Thursday" after "Open notes.txt"; alone, "add a line" went to the memory server), or
  points at a part of a text by its place ("cross off the second item" after "read todo.md").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from edgehost.agent._query_cues import asks_for_change
from edgehost.agent.kept_names import writes_name_at
from edgehost.agent.question_dates import is_month, is_weekday
from edgehost.agent.question_values import path_values

_PERSON = re.compile(r"\b(?P<word>she|he|him|his|her)\b(?P<after>\s+(?P<next>\w+))?", re.IGNORECASE)
# Words after "her" that make it the object ("tell her I said hi", "ask her about it"), not "her age".
_NOT_OWNED = frozenset({
    "i", "you", "we", "they", "he", "she", "it", "that", "this", "what", "how", "to", "about", "a",
    "an", "the", "and", "or", "but", "in", "on", "at", "for", "with", "from", "if", "when", "again",
    # ... and the words that say how or when ("forget her completely", "call her back").
    "completely", "entirely", "fully", "altogether", "too", "now", "then", "anymore", "already",
    "instead", "forever", "please", "here", "there", "back", "up", "out", "off", "down", "over",
})  # fmt: skip
_IT = re.compile(r"(?<!\bis\s)\bit\b(?!\s+is\b|')", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"'(]\s*)$")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:'s)?\b")
# A name's next word: "Ruiz" of "Dr Ruiz" (or "Dr. Ruiz"), "Walt" of "Grandpa Walt".
_NAME_GOES_ON = re.compile(r"(?P<stop>\.)? (?P<word>[A-Z][a-z]+)(?:'s)?\b")
# The titles written with a full stop inside a name ("Dr. Ruiz"); after another word it ends a sentence.
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "mx", "prof", "st", "rev", "capt"})
_CARRYING_ON = re.compile(
    r"^\W*(?:now|then|next|also|and)\b|\bthe\s+(?:first|second|third|fourth|fifth|last|next|top|bottom)"
    r"\s+(?:item|line|entry|row|paragraph|bullet|point|task|sentence|word)s?\b",
    re.IGNORECASE,
)


def resolved_references(question: str, earlier: Sequence[str], kept: Collection[str] = ()) -> str:
    """``question`` with its pronouns replaced by what they stand for in the last of ``earlier`` (the
    conversation's questions before it, newest last); unchanged where there is nothing to resolve
    or more than one reading (module docstring). ``kept``: the names the host knows are kept."""
    if not earlier:
        return question
    previous = earlier[-1]
    resolved = _resolve_thing(_resolve_person(question, previous, kept), previous)
    return _with_implied_thing(resolved, previous)


def _resolve_person(question: str, previous: str, kept: Collection[str]) -> str:
    if not _PERSON.search(question):
        return question
    name = _first_proper_name(previous, kept)
    if name is None or name in question:
        return question

    def replace(match: re.Match[str]) -> str:
        word, after, following = match.group("word").lower(), match.group("after") or "", match.group("next")
        possessive = word == "his" or (
            word == "her" and bool(following) and following.lower() not in _NOT_OWNED
        )
        return (f"{name}'s" if possessive else name) + after

    return _PERSON.sub(replace, question)


def _resolve_thing(question: str, previous: str) -> str:
    if not _IT.search(question) or path_values(question):
        return question
    paths = path_values(previous)
    if len(paths) != 1:
        return question
    return _IT.sub(paths[0], question)


def _with_implied_thing(question: str, previous: str) -> str:
    if path_values(question) or not _CARRYING_ON.search(question) or not asks_for_change(question):
        return question
    paths = path_values(previous)
    return f"{question} ({paths[0]})" if len(paths) == 1 else question


def _first_proper_name(text: str, kept: Collection[str] = ()) -> str | None:
    """The first capitalised word of ``text`` that is not a sentence's first word (unless it begins a
    ``kept`` name), "I", a month or a day's name, with the capitalised words that follow it ("Dr Ruiz",
    "Uncle Rafi"), without "'s"."""
    for match in _CAPITALISED.finditer(text):
        word = match.group().removesuffix("'s")
        opens = _SENTENCE_START.search(text[: match.start()]) and not writes_name_at(
            text, match.start(), kept
        )
        if opens or is_weekday(word) or is_month(word):
            continue
        end = match.end()
        while not text.endswith("'s", 0, end) and (following := _next_name_word(text, end)):
            end = following.end()
        return text[match.start() : end].removesuffix("'s")
    return None


def _next_name_word(text: str, end: int) -> re.Match[str] | None:
    """The capitalised word after ``end`` that goes on the name before it: not a day's or a month's
    name, and after a full stop only where the word before is a title ("Dr. Ruiz"; "I met Tom. Anna
    said hi" is two sentences)."""
    following = _NAME_GOES_ON.match(text, end)
    if following is None:
        return None
    word = following.group("word")
    after_title = text[text.rfind(" ", 0, end) + 1 : end].lower() in _TITLES
    if (following.group("stop") and not after_title) or is_weekday(word) or is_month(word):
        return None
    return following
