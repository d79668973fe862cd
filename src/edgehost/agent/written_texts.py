"""Texts a question writes for a tool to keep or put in place: what to replace and with what, a line
to add, a text written out after saying so, and the facts it tells (issue 33).

- a replacement: "so it says Monday instead of Friday" (written_replacement);
- an addition: "add 'pay the electricity bill' to my todo list", "add a line saying ..."
  (written_addition), without where it goes;
- a text written out: "a file called ideas.txt that says: paint the fence blue" (written_out);
- facts told to be kept: "Remember that my bike lock code is 4512" (told_facts), whole.

Pure functions; agent/grounded_arguments.py and agent/paired_arguments.py offer these values.
"""

from __future__ import annotations

import re

from edgehost.agent.question_values import CLAUSE_BREAK, MAX_SPAN_WORDS, quoted_phrases

__all__ = ["MIN_FACT_WORDS", "told_facts", "written_addition", "written_out", "written_replacement"]


# A replacement the question asks for, what goes first ("replace Friday with Monday", "change 'rent: 900'
# to 'rent: 950'", "swap butter for oil", "from Friday to Monday", "change the rent in budget.md from 900
# to 950"), or what comes first ("so it says Monday instead of Friday"). A value is a quoted phrase, a
# number with its decimals, or up to four words within a clause.
_VALUE = r"(?:'[^']+'|\"[^\"]+\"|\d+(?:[.,]\d+)+(?![\w.,])|[^\s,.;:!?'\"]+(?:\s+[^\s,.;:!?'\"]+){0,3}?)"
_VALUE_END = r"(?=\s*(?:$|[,.;:!?])|\s+(?:in|on|at|inside|within|please|so|and|of)\b)"
# A character of the sentence before "from ... to" that writes no addition: "Edit journal.md and add that I
# drove from Lyon to Paris" adds a line, it replaces no Lyon.
_NO_ADDITION = r"(?:(?!\b(?:add|adding|append|and|that|with|saying|about)\b)[^.!?]|\.(?=\S))"
_GOES_FIRST = re.compile(
    rf"\b(?:replace|replacing)\s+(?P<old>{_VALUE})\s+(?:with|by)\s+(?P<new>{_VALUE}){_VALUE_END}"
    rf"|\b(?:change|changing|switch|swap|correct|update|fix|turn)\s+(?:it\s+)?(?:from\s+)?(?P<old2>{_VALUE})"
    rf"\s+(?:to|into|for)\s+(?P<new2>{_VALUE}){_VALUE_END}"
    rf"|\b(?:change|changing|update|correct|fix|edit|set)\b{_NO_ADDITION}*?\bfrom\s+(?P<old3>{_VALUE})"
    rf"\s+to\s+(?P<new3>{_VALUE}){_VALUE_END}",
    re.IGNORECASE,
)
_INSTEAD = re.compile(rf"\s+instead\s+of\s+(?P<old>{_VALUE}){_VALUE_END}", re.IGNORECASE)
# Words before what comes, in "so it says Monday instead of Friday": where the new value starts.
_SAYING = frozenset({"say", "says", "said", "read", "reads", "be", "is", "to", "with", "use", "put", "write"})
# Words that name what a value is rather than being it: "the word cat" is "cat".
_NAMING = frozenset({"the", "a", "an", "word", "words", "phrase", "line", "text", "entry", "value", "string"})


def written_replacement(text: str) -> tuple[str, str] | None:
    """(the text to replace, the text to put in its place) when the question asks for a replacement
    (the patterns above); None otherwise."""
    found = _GOES_FIRST.search(text)
    if found is not None:
        old = found.group("old") or found.group("old2") or found.group("old3")
        new = found.group("new") or found.group("new2") or found.group("new3")
        old = re.split(r"\s+from\s+", old, flags=re.IGNORECASE)[-1]  # "the date from Friday"
    else:
        instead = _INSTEAD.search(text)
        if instead is None:
            return None
        before = CLAUSE_BREAK.split(text[: instead.start()])[-1].split()
        words: list[str] = []
        for word in reversed(before[-MAX_SPAN_WORDS:]):
            if word.lower() in _SAYING:
                break
            words.insert(0, word)
        old, new = instead.group("old"), " ".join(words)
    pair = (_bare_value(old), _bare_value(new))
    return pair if all(pair) and pair[0] != pair[1] else None


# What the question asks to add to a file or a list: "add a line saying the dentist is on Thursday",
# "add 'pay the electricity bill' to my todo list", "append milk and eggs to notes.txt".
_ADDED_LINE = re.compile(
    r"\b(?:add|append|put|write)\s+(?:a\s+|one\s+)?(?:new\s+)?(?:line|item|entry|note)\s+"
    r"(?:saying|that\s+says|reading|with)\s+(?P<what>(?:[^.!?\n]|\.(?=\w))+)",
    re.IGNORECASE,
)
# Where it goes: "to my list", "at the end of notes.txt".
_ADDED_INTO = r"\s+(?:to|onto|on|in|into|at\s+the\s+(?:end|bottom)\s+of)\s+"
_ADDED_TO = re.compile(
    rf"\b(?:add|append|put|jot\s+down|write\s+down)\s+(?P<what>.+?){_ADDED_INTO}"
    r"(?:my|the|our|this|that|your|[\w\-/]+\.\w{1,5}\b)",
    re.IGNORECASE,
)
# A file a text goes to: a name of two letters or more with an extension, no number ("4.30", "e.g.").
_DESTINATION_FILE = r"(?![\d.]+(?![\w\-]))[\w\-/]{2,}\.[A-Za-z]\w{0,4}\b"
# Where a text written out ends and its destination begins: "... to my notes", "... to notes.txt", "...,
# name it todo.txt", or a file in brackets after it, as the host reads a follow-up (agent/references.py):
# "add a line saying the dentist is on Thursday (notes.txt)". "meet in the park" keeps its park.
_TEXT_DESTINATION = re.compile(
    rf"{_ADDED_INTO}(?:(?:my|our|this|your)\s|(?:the\s+|a\s+)?{_DESTINATION_FILE}).*$"
    rf"|,[^,]*?\s{_DESTINATION_FILE}.*$"
    r"|\s*\([\w\-/]+(?:\.\w{1,5}|/)\)\s*$",
    re.IGNORECASE,
)
# A text the question writes out after a word that says it is the text: "a file called ideas.txt that
# says: paint the fence blue", "a note saying call mum back". In a question ("What is Bob saying about
# the budget?") the words after it are asked about, not written.
_WRITTEN_OUT = re.compile(
    r"\b(?:that\s+says|which\s+says|saying|that\s+reads|with\s+the\s+(?:text|words|line))\s*:?\s+"
    r"(?P<what>(?:[^.!?\n]|\.(?=\w))+)",
    re.IGNORECASE,
)
_ASKED = re.compile(r"\?\s*$|^\s*(?:who|what|which|when|where|why|how|is|are|was|were|do|does|did)\b", re.I)


def written_out(text: str) -> list[str]:
    """The texts the question writes out whole after a word that says so (_WRITTEN_OUT), unquoted and
    without the file they go to: what a free text (a file's content, a message) is to hold, where runs
    of its words cut it."""
    if _ASKED.search(text):
        return []
    found = []
    for said in _WRITTEN_OUT.finditer(text):
        what = _TEXT_DESTINATION.sub("", said.group("what")).strip()
        found.append(_unquoted(what) or what)
    return [what for what in found if what]


def written_addition(text: str) -> str | None:
    """The text the question asks to add to a file or a list ("add 'buy eggs' to my todo list" gives
    "buy eggs"; "add a line saying the dentist is on Thursday" gives "the dentist is on Thursday");
    None when it asks for no addition."""
    said = _ADDED_LINE.search(text)
    if said is not None:
        line = _TEXT_DESTINATION.sub("", said.group("what")).strip()
        return _unquoted(line) or line or None
    added = _ADDED_TO.search(text)
    return (_bare_value(added.group("what")) or None) if added is not None else None


def _unquoted(value: str) -> str | None:
    """What ``value`` quotes, when it is one quoted phrase and nothing else ("'buy eggs'")."""
    quoted = quoted_phrases(value)
    return quoted[0] if len(quoted) == 1 and value[1:-1] == quoted[0] else None


def _bare_value(value: str) -> str:
    value = value.strip()
    unquoted = _unquoted(value)
    if unquoted is not None:
        return unquoted
    words = value.split()
    while len(words) > 1 and words[0].lower() in _NAMING:
        words.pop(0)
    return " ".join(words)


# Where a told fact ends: a sentence's end, a colon or semicolon, or a comma before more words ("I'm
# allergic to peanuts, please keep that in mind").
_FACT_BREAK = re.compile(r"[.!?;:]+(?=\s|$)|,\s+")
# The verbs a request to keep, note or drop something opens with ("Commit this to memory", "please keep
# that in mind", "forget the bit about his age"): such a clause asks, it tells nothing.
_REQUESTS = frozenset(
    {
        "remember", "memorize", "memorise", "note", "keep", "add", "save", "store", "write", "record",
        "put", "commit", "log", "jot", "forget", "delete", "remove", "erase", "wipe", "drop", "tell",
    }
)  # fmt: skip
# The words a clause may open with before its request ("please", "don't let me forget it", "make sure
# you remember it", "could you note that ...").
_LEAD_INS = frozenset(
    {
        "please", "pls", "kindly", "also", "and", "now", "ok", "okay", "oh", "hey", "so", "actually", "just",
        "don't", "dont", "do", "not", "never", "let", "me", "make", "sure", "you", "can", "could", "would",
    }
)  # fmt: skip
# "remember that <fact>", "note down that <fact>", "keep in mind that <fact>".
_THAT_FACT = re.compile(r"^[^,]*?\bthat\s+(?P<fact>\S.*)$", re.IGNORECASE)
MIN_FACT_WORDS = 2  # "I'm vegetarian"
_DROPPING = frozenset({"forget", "delete", "remove", "erase", "wipe", "drop"})
# What a request to keep something points at rather than tells ("keep that in mind", "commit this to
# memory"), and the words that carry it there ("that in mind").
_POINTERS = frozenset({"this", "that", "it", "these", "those", "in", "to", "into", "on", "for"})


def told_facts(text: str) -> list[str]:
    """The statements the question tells, whole and in its words, for an argument that holds what is
    said (a memory's observations): "Commit this to memory: my bike lock code is 4512." gives "my
    bike lock code is 4512", "Please remember that my desktop PC has 32 GB of RAM" gives "my desktop
    PC has 32 GB of RAM", "I'm allergic to peanuts, please keep that in mind" gives "I'm allergic to
    peanuts". A question asks, it tells nothing ("Could you remember that Tom likes jazz?" tells what
    its request does); a clause that opens with a request ("forget the bit about his age") tells only
    what follows its "that"."""
    facts = []
    for sentence in re.split(r"(?<=[.!?])\s+", text.strip()):
        asked = sentence.rstrip().endswith("?")  # tells only what a request in it tells
        for piece in _FACT_BREAK.split(sentence):
            words = piece.split()
            while words and words[0].lower().strip(",") in _LEAD_INS:
                words.pop(0)
            if words and words[0].lower() in _REQUESTS:
                words = _requested_fact(words)
            elif asked:
                continue
            if len(words) >= MIN_FACT_WORDS:
                facts.append(" ".join(words))
    return list(dict.fromkeys(facts))


def _requested_fact(words: list[str]) -> list[str]:
    """The fact a clause opening with a request tells: what follows its "that" ("remember that my dog
    is five"); for a request to keep something, what follows the verb ("remember my locker is number
    12"), unless it points at the fact rather than tells it ("keep that in mind")."""
    told = _THAT_FACT.match(" ".join(words))
    fact = told.group("fact").split() if told is not None else []
    if fact and fact[0].lower() not in _POINTERS:
        return fact
    if words[0].lower() in _DROPPING:
        return []
    rest = words[2:] if len(words) > 1 and words[1].lower() == "down" else words[1:]
    return rest if rest and rest[0].lower() not in _POINTERS else []
