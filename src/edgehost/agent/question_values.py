"""The values a question writes, read as people write them (issue 33): the runs of its words a text
value may be, and the numbers, lists, series, clock times, time zones and paths in it.

- runs of words: quoted phrases whole, then every run of one to MAX_SPAN_WORDS words inside a clause
  (no comma, full stop or bracket inside) that does not begin or end with a filler or command word
  (EDGE_WORDS);
- numbers: "12,000" is 12000, "two" is 2, "7%" is 7 and 0.07; a bracketed list ("[200, 300]") is a
  list, and its numbers are not counted alone;
- series: "chicken and mushrooms", "red, green or blue";
- clock times ("3pm" is 15:00), the IANA zones of the cities named ("Tokyo" is Asia/Tokyo), paths and
  file names, and the folder a question names ("the recipes folder").

Dates are read apart (agent/question_dates.py). Pure functions; agent/grounded_arguments.py offers
these values to a call's arguments.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from edgehost.agent.known_arguments import WRITTEN_PATH

__all__ = [
    "CLAUSE_BREAK",
    "CLAUSE_WORDS",
    "EDGE_WORDS",
    "EXAMPLE_CLAUSE",
    "MAX_SPAN_WORDS",
    "NUMBER_WORDS",
    "WORD",
    "clauses",
    "clock_times",
    "folder_values",
    "named_timezones",
    "path_values",
    "placed_paths",
    "question_spans",
    "quoted_phrases",
    "series_as_written",
    "written_lists",
    "written_numbers",
    "written_series",
]

MAX_SPAN_WORDS = 4


# Where a description gives examples, to the end of its sentence: "e.g. Denver, CO", "(e.g., 'UTC')".
EXAMPLE_CLAUSE = re.compile(
    r"\b(?:e\.\s?g\.?|for example|for instance|such as)[:,]?\s[^;)]*?(?=[;)]|\.\s|\.?$)", re.I
)
# Words a value does not start or end with: "the photos" is "photos", "Save" is not a value, nor is a
# pronoun ("forget the bit about his age" named no entity "his"; agent/references.py reads a
# follow-up's pronoun as the name it stands for).
# fmt: off
EDGE_WORDS = frozenset({
    "a", "an", "the", "my", "your", "our", "this", "that", "these", "those", "to", "in", "on", "at",
    "of", "for", "from", "into", "with", "and", "or", "is", "are", "be", "me", "please", "what",
    "whats", "what's", "which", "who", "how", "when", "where", "show", "tell", "give", "find", "it",
    "its", "i", "you", "was", "do", "does", "did", "have", "has", "much", "many", "save", "add", "list",
    "read", "delete", "remove", "rename", "create", "make", "write", "send", "echo", "repeat",
    "remember", "forget", "note", "convert", "called", "named", "by", "near", "about", "between",
    "under", "over", "after", "before", "during", "within", "using", "via", "than", "per", "up",
    "across", "around", "through", "since", "until", "like", "as", "if", "then", "so", "but", "get",
    "calculate", "compute", "search", "look", "fetch", "book", "predict", "generate", "determine",
    "check", "need", "want", "can", "could", "would", "should", "will", "let", "know", "help", "also",
    "just", "were", "some", "any", "there", "here", "we", "us", "he", "she", "him", "his", "her", "hers",
    "they", "them", "their", "theirs", "record",
})


# Words a value holding a name, a place or a kind does not have inside it: "Chicago that were made",
# "Violin from Stradivarius". A free text may (FITTING_VALUES of agent/selection.py ranks these last).
CLAUSE_WORDS = frozenset({
    "that", "which", "who", "whose", "were", "was", "is", "are", "am", "been", "will", "would", "could",
    "should", "by", "from", "into", "near", "between", "during", "than", "since", "until", "after",
    "before", "in", "at", "for", "to", "with", "and", "or", "but", "if", "when", "where", "while",
    "using", "via", "on", "about", "over", "under", "per", "as",
})


# fmt: on
# Set phrases that say when or how, never what: "What do you know about me so far?" offered "far" as
# what to search the memory for, "keep that in mind from now on" offered "mind" and "now". Not those
# that may be what a user writes ("thank you" on a card, a song "These Days", "list of course books").
SET_PHRASES = re.compile(
    r"\b(?:so\s+far|right\s+now|just\s+now|for\s+now|from\s+now\s+on|at\s+the\s+moment|at\s+all"
    r"|by\s+the\s+way|nowadays|in\s+mind|any\s?more|if\s+possible)\b",
    re.IGNORECASE,
)
# Where a value cannot run on: a comma, a full stop, a colon or semicolon, a question or exclamation
# mark, brackets ("Hotel Paradise, Las Vegas" is two values).
CLAUSE_BREAK = re.compile(r"[,.;:?!()\[\]]")
# What WORD reads after a contraction's or a possessive's apostrophe: "he's", "don't", "we'll", "I'm".
_CONTRACTION_TAILS = frozenset({"s", "t", "ll", "re", "ve", "d", "m"})
_APOSTROPHES = ("'", "’")


# fmt: off
NUMBER_WORDS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}


# fmt: on
# A number as written: thousands separated ("12,000", not inside a list "[200,300]"), a decimal, a
# percentage, or a number word ("two dice"; "one" is left out: "which one", "one of").
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_WRITTEN_NUMBER = re.compile(
    r"(?<![\w,\[.])(-?\d{1,3}(?:,\d{3})+)(?![\d,])(\.\d+)?(%)?|(?<![\w.])(-?\d+(?:\.\d+)?)(%)?"
    rf"|\b({_TENS})[- ]({_UNITS})\b|\b(" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
MAX_ABBREVIATION = 3  # letters of a word a full stop abbreviates ("St.", "Dr.", "Mrs.")
# Longer than this, a run of digits is no count an argument takes (and int() refuses past 4300 digits).
MAX_NUMBER_CHARACTERS = 30


_BRACKETED = re.compile(r"\[[\d\s,.\-\[\]]*\]")


# A quote opens where no letter is before it and closes where none is after it: "Anna's birthday ...
# don't" quotes nothing, "'Anna's cake'" quotes "Anna's cake".
_QUOTED = re.compile(r"(?<!\w)'([^'\n]+?(?:'\w[^'\n]*?)*)'(?!\w)|\"([^\"]+)\"|‘(.+?)’(?!\w)|“([^”]+)”")


WORD = re.compile(r"\w[\w./:@+\-]*\w|\w")


# A file name ("notes.txt", "syslog.1", "logs/app.log") or a relative path; a number the question writes
# ("17.5", "3.14") reads like one with its extension, and is none, nor is an abbreviation ("e.g", "i.e").
_NUMBER_NAME = re.compile(r"^[\d.]+$")
_FILE_LIKE = re.compile(r"^(?!(?:e\.g|i\.e)$)(?:[\w\-]+(?:/[\w\-.]+)*\.\w{1,5}|[\w\-.]+/[\w\-./]*)$")


_FOLDER_WORDS = frozenset({"folder", "directory", "dir"})
# The words after which a question writes a thing's name: "a folder called archive", "a branch named test".
NAMING_WORDS = frozenset({"called", "named", "titled"})
# Words that say which folder or what kind, not its name: "a new folder", "the main folder", "its own folder".
_FOLDER_KINDS = frozenset(
    {
        "new",
        "empty",
        "separate",
        "whole",
        "main",
        "same",
        "other",
        "another",
        "own",
        "top",
        "parent",
        "current",
    }
)
# A folder written with its "/" at the end ("archive/", "recipes/2024/"; WORD leaves the "/" out), also
# as the host reads a question with a folder it names, in brackets ("(recipes/)", agent/named_files.py).
_SLASHED_FOLDER = re.compile(r"(?<![\w/.~:])([\w\-.]+(?:/[\w\-.]+)*/)(?=[\s,;!?)]|\.?$)")


_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b", re.IGNORECASE)


def quoted_phrases(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]


def question_spans(text: str) -> list[str]:
    """The values a small model may copy from ``text``: quoted phrases whole, then every run of one to
    MAX_SPAN_WORDS words that does not start or end with a filler word or a contraction's tail,
    shorter runs first, those of one length in order of appearance. A run is written as the question
    writes it across an apostrophe ("he's scared", "Okoye's entry"); "Biscuit's" offers "Biscuit",
    never "Biscuit s"."""
    spans: list[str] = quoted_phrases(text)
    for clause in _clause_matches(text):
        words = [match.group(0).lower() for match in clause]
        tails = [_is_tail(text, match) for match in clause]
        runs = []
        for start in range(len(clause)):
            last, length = start, 0
            while last < len(clause) and length < MAX_SPAN_WORDS:
                length += not tails[last]
                runs.append((length, start, last))
                last += 1
        for _length, start, last in sorted(runs):
            if words[start] in EDGE_WORDS or words[last] in EDGE_WORDS or tails[start] or tails[last]:
                continue
            if last + 1 < len(clause) and tails[last + 1] and words[last + 1] != "s":
                continue  # "don" of "don't"
            spans.append(_written(text, clause[start : last + 1]))
    return list(dict.fromkeys(s.strip() for s in spans if s.strip()))


def clauses(text: str) -> list[list[str]]:
    """The words of ``text`` in runs that no comma, full stop or other break (CLAUSE_BREAK) cuts."""
    return [[match.group(0) for match in clause] for clause in _clause_matches(text)]


def _is_tail(text: str, match: re.Match[str]) -> bool:
    """Whether ``match`` is what follows the apostrophe of a contraction or a possessive: the "s" of
    "Biscuit's", the "t" of "don't" (WORD reads them as words of their own)."""
    start = match.start()
    return (
        match.group(0).lower() in _CONTRACTION_TAILS
        and start >= 2
        and text[start - 1] in _APOSTROPHES
        and text[start - 2].isalnum()
    )


def _written(text: str, run: Sequence[re.Match[str]]) -> str:
    """The words of ``run`` as one value: apart by a space, or by the apostrophe that joins them."""
    parts = [run[0].group(0)]
    for before, match in itertools.pairwise(run):
        gap = text[before.end() : match.start()]
        parts.append((gap if gap in _APOSTROPHES else " ") + match.group(0))
    return "".join(parts)


def _clause_matches(text: str) -> list[list[re.Match[str]]]:
    """clauses' words as matches of WORD in ``text``; a set phrase (SET_PHRASES) breaks a clause
    and is no part of one."""
    clauses: list[list[re.Match[str]]] = [[]]
    end = 0
    phrases = [match.span() for match in SET_PHRASES.finditer(text)]
    for match in WORD.finditer(text):
        if any(start <= match.start() < stop for start, stop in phrases):
            clauses.append([])
            continue
        gap = text[end : match.start()]
        if clauses[-1] and CLAUSE_BREAK.search(gap) and not _abbreviated(clauses[-1][-1].group(0), gap):
            clauses.append([])
        clauses[-1].append(match)
        end = match.end()
    return [clause for clause in clauses if clause]


def _abbreviated(word: str, gap: str) -> bool:
    """Whether the full stop after ``word`` ends an abbreviation ("St. Louis", "Dr. Smith"), not a
    sentence: a short capitalised word, the stop its only break."""
    return gap.strip() == "." and len(word) <= MAX_ABBREVIATION and word[:1].isupper() and word.isalpha()


def written_numbers(text: str, *, decimals: bool = True) -> list[tuple[int | float, int, int]]:
    """The numbers ``text`` writes, with where each stands (value, start, end): "12,000" is 12000, "two"
    2; a percentage is its value and its fraction ("7%" gives 7 and 0.07); without ``decimals`` a
    number with a fraction is left out. Numbers inside a bracketed list are not counted alone."""
    found: list[tuple[int | float, int, int]] = []
    # A number inside a bracketed list belongs to the list (written_lists), not to a value of its own.
    listed = [span for span, _value in _bracketed_lists(text)]
    for match in _WRITTEN_NUMBER.finditer(text):
        if any(start <= match.start() < end for start, end in listed):
            continue
        grouped, fraction, grouped_percent, plain, percent, tens, units, word = match.groups()
        if tens:
            values: list[int | float] = [
                NUMBER_WORDS[tens.lower()] + _UNITS.split("|").index(units.lower()) + 1
            ]
        elif word:
            values = [NUMBER_WORDS[word.lower()]]
        else:
            written = grouped.replace(",", "") + (fraction or "") if grouped else plain
            if len(written) > MAX_NUMBER_CHARACTERS:
                continue
            value = float(written) if "." in written else int(written)
            if isinstance(value, float) and not decimals:
                continue
            values = [value]
            if (grouped_percent or percent) and decimals:
                values.append(round(value / 100, 10))
        found.extend((value, match.start(), match.end()) for value in values)
    return found


def written_lists(text: str) -> list[list[Any]]:
    """The lists of numbers ``text`` writes in brackets ("[200, 300, 400]", "[[10, 20], [30, 40]]")."""
    return [value for _span, value in _bracketed_lists(text)]


def _bracketed_lists(text: str) -> list[tuple[tuple[int, int], list[Any]]]:
    """Each bracketed run of ``text`` that reads as a JSON list, with where it stands."""
    lists = []
    for match in _BRACKETED.finditer(text):
        try:
            value = json.loads(match.group(0))
        except ValueError:
            continue
        if isinstance(value, list) and value:
            lists.append((match.span(), value))
    return lists


def written_series(text: str) -> list[list[str]]:
    """The series of values ``text`` writes, joined by "and" or "or" and commas ("chicken and
    mushrooms", "red, green or blue", "interest rates and unemployment rates"): each item a run of up
    to MAX_SPAN_WORDS words that no filler word starts or ends, as long as the last item (the words
    before it may be the question's: "uses chicken and mushrooms")."""
    series = []
    for clause in _series_clauses(text):
        lowered = [w.lower() for w in clause]
        for joint, word in enumerate(lowered):
            if word not in ("and", "or"):
                continue
            start = joint + 1
            while start < min(len(clause), joint + 3) and clause[start].lower() in EDGE_WORDS:
                start += 1  # "chicken and some mushrooms"
            last = _run(clause, start, step=1)
            items = [last] if last else []
            end = joint - 1 if joint and clause[joint - 1] == "," else joint  # "salt, pepper, and garlic"
            while items:
                item = _run(clause, end - 1, step=-1, longest=len(last))
                if not item:
                    break
                items.insert(0, item)
                end -= len(item)
                if end < 1 or clause[end - 1] != ",":
                    break
                end -= 1
            if len(items) >= 2:
                series.append([" ".join(item) for item in items])
    return [list(s) for s in dict.fromkeys(tuple(s) for s in series)]


def series_as_written(text: str) -> list[str]:
    """The series ``text`` writes across commas, each as one text as written ("eggs, milk and
    flour"): what a free text of a list's items (a file's content, a message) says whole. A series
    without a comma is a run of question_spans already."""
    found = []
    for items in written_series(text):
        last = items[-1].split()
        # The last item ends where a clause begins: "salt, pepper and garlic to soup.md".
        cut = next((i for i, word in enumerate(last) if i and word.lower() in CLAUSE_WORDS), len(last))
        # Whole words, within one clause: "eggs" is not the start of "eggshell".
        written = re.search(
            rf"\b{re.escape(items[0])}\b[^.;:?!]*?\b{re.escape(' '.join(last[:cut]))}\b", text
        )
        if written is not None and "," in written.group(0):
            found.append(written.group(0))
    return found


def _series_clauses(text: str) -> list[list[str]]:
    """The words of ``text`` with its commas as words of their own, in runs no other break cuts."""
    runs: list[list[str]] = [[]]
    for token in re.finditer(rf"{WORD.pattern}|[,.;:?!()\[\]]", text):
        if token.group(0) == ",":
            runs[-1].append(",")
        elif CLAUSE_BREAK.fullmatch(token.group(0)):
            runs.append([])
        else:
            runs[-1].append(token.group(0))
    return [run for run in runs if run]


def _run(words: list[str], start: int, *, step: int, longest: int = MAX_SPAN_WORDS) -> list[str]:
    """The run of value words from ``start`` going ``step`` (1: on, -1: back), at most ``longest``
    words (a name may be longer), none of them a comma, "and" or "or", its first and last word no
    filler word."""
    run: list[str] = []
    index = start
    while 0 <= index < len(words) and len(run) < MAX_SPAN_WORDS:
        word = words[index]
        if word == "," or word.lower() in ("and", "or") or (not run and word.lower() in EDGE_WORDS):
            break
        # Past ``longest`` words only a name goes on ("New York City and Los Angeles").
        if len(run) >= longest and not (word[:1].isupper() and all(w[:1].isupper() for w in run)):
            break
        run.append(word)
        index += step
    while run and run[-1].lower() in EDGE_WORDS | CLAUSE_WORDS:
        run.pop()
    return run[::-1] if step < 0 else run


def path_values(text: str) -> list[str]:
    """Paths the question writes whole ("/tmp", "~/notes/todo.txt", "archive/"), file names
    ("notes.txt"), the folder it names ("the recipes folder", "called photos"), and a folder the host
    read it with, in brackets with its "/" ("(recipes/)", agent/named_files.py)."""
    return _named_paths(_paths_written(text, WORD.findall(text)))


def _paths_written(text: str, words: list[str]) -> list[str]:
    """What path_values reads, before a number's name ("2024") and repeats are taken out."""
    found = _written_paths(text)
    found += [
        w
        for w in words
        if _FILE_LIKE.match(w) and not any(f"/{p}".rstrip("/").endswith(f"/{w}") for p in found)
    ]
    return [*found, *_named_folders(words, called_alone=True)]


# The words that put a named folder inside another: "a folder named receipts inside notes".
_INSIDE = frozenset({"in", "inside", "under", "within"})
_OWNERS = frozenset({"the", "my", "our", "your"})


def placed_paths(text: str) -> list[str]:
    """The files and folders of path_values with the folder the question puts them in: "receipts
    inside notes" is notes/receipts, "ideas.md in notes" notes/ideas.md (paths from the served
    folder's root). A move reads the two paths apart (agent/path_roles.py)."""
    words = WORD.findall(text)
    named = _paths_written(text, words)  # with a number's name: "a folder called 2024 in photos"
    placed = []
    for index, word in enumerate(words[:-2]):
        if word not in named or words[index + 1].lower() not in _INSIDE:
            continue
        rest = [w for w in words[index + 2 : index + 5] if w.lower() not in _OWNERS]
        if not rest or rest[0].lower() in EDGE_WORDS | _FOLDER_WORDS or _NUMBER_NAME.match(rest[0]):
            continue
        # A capitalised word is a folder only where the question says so: "ideas.md in English" is no path.
        if rest[0][:1].islower() or (len(rest) > 1 and rest[1].lower() in _FOLDER_WORDS):
            placed.append(f"{rest[0].rstrip('/')}/{word}")
    return _named_paths(placed)


def folder_values(text: str) -> list[str]:
    """The paths of path_values the question names as folders: written with a "/" at the end, or by a
    word for one ("the recipes folder", "a folder called archive"; "a file called ideas" is no folder)."""
    folders = [p for p in _written_paths(text) if p.endswith("/")]
    return _named_paths([*folders, *_named_folders(WORD.findall(text), called_alone=False)])


def _written_paths(text: str) -> list[str]:
    """The paths ``text`` writes whole ("/tmp", "~/notes/todo.txt") and the folders it writes with a
    "/" at the end ("archive/")."""
    return [p.rstrip(".") for p in WRITTEN_PATH.findall(text)] + _SLASHED_FOLDER.findall(text)


def _named_paths(found: list[str]) -> list[str]:
    """``found`` once each, in order, without the names of digits and dots alone ("17.5", "2024"): a
    number, not a file or a folder ("2024/", written with its "/", stays one)."""
    return [path for path in dict.fromkeys(found) if not _NUMBER_NAME.match(path)]


def _named_folders(words: list[str], *, called_alone: bool) -> list[str]:
    """The words named as folders: before a word for one ("recipes folder"), after "called" or "named"
    where one stands before it ("folder called photos"), or after "called" or "named" alone where
    ``called_alone`` ("create one called photos")."""
    named = []
    for index, word in enumerate(words):
        before = [w.lower() for w in words[max(index - 2, 0) : index]]
        after = words[index + 1].lower() if index + 1 < len(words) else ""
        called = bool(before) and before[-1] in NAMING_WORDS
        if (
            (after in _FOLDER_WORDS and word not in _FOLDER_KINDS)  # "the Main folder" is one's name
            or (called and (called_alone or before[0] in _FOLDER_WORDS))
        ) and word.lower() not in EDGE_WORDS | _FOLDER_WORDS:
            named.append(word)
    return named


@cache
def _zones_by_city() -> dict[str, str]:
    from zoneinfo import available_timezones

    zones: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        if "/" in zone and zone.split("/")[0] in {
            "Africa",
            "America",
            "Asia",
            "Atlantic",
            "Australia",
            "Europe",
            "Pacific",
            "Indian",
        }:
            zones.setdefault(zone.rsplit("/", 1)[-1].replace("_", " ").lower(), zone)
    return zones


def named_timezones(text: str) -> list[str]:
    """The IANA zones of the cities the question names ("Tokyo" gives "Asia/Tokyo")."""
    zones = _zones_by_city()
    return list(dict.fromkeys(zones[span.lower()] for span in question_spans(text) if span.lower() in zones))


def clock_times(text: str) -> list[str]:
    """The clock times the question writes, as HH:MM ("3pm" gives "15:00")."""
    times = []
    for hour, minute, half in _CLOCK.findall(text):
        if not minute and not half:
            continue  # a bare number is not a time
        value = int(hour) % 12 + (12 if half.lower() == "pm" else 0) if half else int(hour)
        if value < 24:
            times.append(f"{value:02d}:{minute or '00'}")
    return list(dict.fromkeys(times))
