"""A question's misspelt words read as the words they stand for, for ranking tools and reading verbs.

"is there anythign about basil in my recipies" and "show me teh hisotry of comits" reach the
embedding models as word pieces they never saw together: the sentence loses what it is about.
Each lower-case word of four letters or more that the offered tools' own text does not use and that
is rare in English (under KNOWN on the Zipf scale, about one in three million words) is read as a
word one edit away that keeps its first letter, when one such word stands out:

- a slip of a hurried hand, when only one word is one slip away that the tools use or that is
  common (COMMON on the Zipf scale) and a hundred times as common as the word typed: two letters
  swapped ("opne" is "open", not "one"), a double letter typed once ("shoping" is "shopping", not
  "showing") or a letter typed twice ("commmit");
- else a word of the tools' names, descriptions or argument names, when only one is one edit away
  (a letter left out, added or changed: "foler" with a tool that speaks of folders is "folder");
- else the commonest English word one edit away, when it is as common as that and ten times as
  common as the next ("recipie" is "recipe"; "lern" may be "learn" or "lean", and stays as typed).

A word is not read as itself less an ending ("unstaged" is "unstage" done, not a slip for it), and
words that say nothing of a tool (_bm25.STOPWORDS) are never what is meant: a rare word one edit from
one is a way of writing, not a slip ("wats" is "what's", not "was"). Names, file names, paths and
words joined by an apostrophe, a dot, a slash or a hyphen are left as typed; so is every word the
tools use ("repo", "diff", "uptime") and every word people write often enough ("todo", "wifi",
"dont"). Some guesses are wrong ("wilting" is rare enough to be read as "willing"): only the tool
ranker (as_meant) and the verbs of the question cues (agent/_query_cues.py, with ACTIONS' words in
the place of the tools') read the corrected text; arguments, the question probe and the model read
the question as typed.

The word counts are wordfreq's (Apache-2.0 code, CC-BY-SA data: Wikipedia, subtitles, news, books,
web text, Reddit and Twitter), loaded once, in about 0.4 s (prepare, when the tools are embedded).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache

from edgehost.agent._bm25 import STOPWORDS
from edgehost.agent.tools import ToolSpec

__all__ = ["as_meant", "prepare", "read_as_meant"]

SHORTEST = 4
# Zipf: log10 of a word's count per billion words ("the" 7.7, "recipe" 4.2, "recipie" 1.2).
KNOWN = 2.5
COMMON = 3.0
CLEAR_LEAD = 1.0
# What is meant is a hundred times as common as what was typed: "wats" (2.2) is a way of writing
# "what's", not a slip for "watts" (3.5).
MUCH_COMMONER = 2.0
# A word of lower-case letters alone, not part of a name, a path, a file name or a contraction.
_TYPED_WORD = re.compile(rf"(?<![\w./\\'’-])[a-z]{{{SHORTEST},}}(?![\w/\\'’-]|\.\w)")
_FIRST_WORD = re.compile(rf"^(\W*)([A-Z][a-z]{{{SHORTEST - 1},}})(?![\w/\\'’-]|\.\w)")
_TOOL_WORD = re.compile(r"[a-z]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


@cache
def _english() -> Mapping[str, float] | None:
    """English words with their Zipf frequency; None when wordfreq is not installed."""
    try:
        from wordfreq import get_frequency_dict
    except ImportError:  # a dependency; without it, questions are read as typed
        return None
    return {word: math.log10(share) + 9 for word, share in get_frequency_dict("en", wordlist="best").items()}


@lru_cache(maxsize=64)
def _tool_words(tools: tuple[ToolSpec, ...]) -> frozenset[str]:
    """The words of the tools' names, descriptions and argument names, as written (not stemmed:
    "commits" is one of git's words)."""
    found: set[str] = set()
    for tool in tools:
        properties = (tool.input_schema or {}).get("properties")
        names = list(properties) if isinstance(properties, dict) else []
        text = " ".join([tool.tool_name, tool.description or "", *map(str, names)]).replace("_", " ")
        found.update(_TOOL_WORD.findall(_CAMEL.sub(" ", text).lower()))
    return frozenset(found)


def _one_edit(word: str) -> tuple[set[str], set[str]]:
    """The words one edit from ``word`` that keep its first letter: the slips of a hurried hand first
    (two letters swapped, a double letter typed once or a letter typed twice), then every other."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(1, len(word) + 1)]
    slips = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    slips |= {a + b[0] + b for a, b in splits if b}
    slips |= {a + b[1:] for a, b in splits if b and (b[0] == a[-1] or b[1:2] == b[0])}
    others = {a + b[1:] for a, b in splits if b}
    others |= {a + c + b[1:] for a, b in splits if b for c in letters}
    others |= {a + c + b for a, b in splits for c in letters}
    return slips - {word}, others - slips - {word}


def _meant(word: str, tool_words: frozenset[str], english: Mapping[str, float]) -> str:
    slips, others = _one_edit(word)
    # Never a word that says nothing of a tool, nor the word less an ending ("unstaged" is "unstage"
    # done, not a slip for it).
    unmeant = STOPWORDS | {word[:-1]} if word.endswith(("s", "d")) else STOPWORDS
    slips, others = slips - unmeant, others - unmeant
    floor = max(COMMON, english.get(word, 0.0) + MUCH_COMMONER)
    slipped = sorted(w for w in slips if w in tool_words or english.get(w, 0.0) >= floor)
    if slipped:
        return slipped[0] if len(slipped) == 1 else word
    tools = sorted(others & tool_words)
    if tools:
        return tools[0] if len(tools) == 1 else word
    found = sorted(((english[w], w) for w in others if w in english), reverse=True)
    if not found:
        return word
    (top, best), second = found[0], (found[1][0] if len(found) > 1 else 0.0)
    return best if top >= floor and top - second >= CLEAR_LEAD else word


def prepare(tools: Sequence[ToolSpec]) -> None:
    """Load the word counts and read the tools' words now, not when the first question is ranked."""
    if _english() is not None:
        _tool_words(tuple(tools))


def as_meant(query: str, tools: Sequence[ToolSpec]) -> str:
    """``query`` with each misspelt word read as the word it stands for (see the module's text), the
    offered tools' words first; ``query`` itself when none is, or when the word counts are not
    installed."""
    return read_as_meant(query, _tool_words(tuple(tools)))


def read_as_meant(text: str, words: frozenset[str]) -> str:
    """``text`` with each misspelt word read as the word it stands for, ``words`` in the place of the
    tools' words (agent/_query_cues.py reads a question's verbs with the verbs of ACTIONS)."""
    english = _english()
    if english is None:
        return text

    def meant(word: str) -> str:
        if word in words or english.get(word, 0.0) >= KNOWN:
            return word
        return _meant(word, words, english)

    read = _TYPED_WORD.sub(lambda match: meant(match.group(0)), text)
    # The first word, capitalised as a sentence opens ("Delte notes.txt"); a name there is no slip for a
    # word a hundred times as common.
    return _FIRST_WORD.sub(lambda match: match.group(1) + meant(match.group(2).lower()).capitalize(), read)
