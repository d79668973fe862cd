"""Okapi BM25 over short documents (tool names, descriptions, argument names)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["STOPWORDS", "Bm25Index", "alike", "terms", "words"]

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[a-z0-9]+")
# Words that appear in most questions and most descriptions and tell nothing about the tool.
# fmt: off
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "has", "have",
    "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "please", "that", "the",
    "their", "then", "there", "these", "this", "to", "was", "what", "when", "where", "which", "who",
    "will", "with", "you", "your",
})
# fmt: on


def _stem(word: str) -> str:
    """A light plural/verb-form folding ("files" -> "file", "entities" -> "entity"), no dictionary."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


# Two terms are one word when they start alike this far ("prediction", "predicted"; "detailed",
# "details").
STEM_PREFIX = 5


def alike(term: str, other: str) -> bool:
    """Whether two index terms (``terms``) are one word: equal, or alike in their first STEM_PREFIX
    letters."""
    return term == other or (len(term) >= STEM_PREFIX and term[:STEM_PREFIX] == other[:STEM_PREFIX])


def words(text: str) -> list[str]:
    """The words of a text as written, lower-cased: camelCase, snake_case, kebab-case and
    `server__tool` split ("dayOfMonth": day, of, month), nothing stemmed or left out."""
    return _WORD.findall(_CAMEL_BOUNDARY.sub(" ", text).lower())


def terms(text: str) -> list[str]:
    """Index terms of a text: its words (``words``) stemmed, without STOPWORDS."""
    return [_stem(w) for w in words(text) if w not in STOPWORDS]


class Bm25Index:
    """BM25 (Robertson/Sparck Jones IDF floored at 0, k1 and b as in Lucene) over pre-split documents."""

    def __init__(self, documents: Sequence[Sequence[str]], *, k1: float = 1.2, b: float = 0.75) -> None:
        self._k1 = k1
        self._b = b
        self._counts = [Counter(doc) for doc in documents]
        self._lengths = [len(doc) for doc in documents]
        self._average_length = (sum(self._lengths) / len(documents)) if documents else 0.0
        frequency: Counter[str] = Counter()
        for counts in self._counts:
            frequency.update(counts.keys())
        n = len(documents)
        self._idf = {term: math.log(1.0 + (n - df + 0.5) / (df + 0.5)) for term, df in frequency.items()}

    def scores(self, query: Sequence[str]) -> list[float]:
        """One score per document, in document order; 0.0 for a document sharing no term with the query."""
        results = []
        for counts, length in zip(self._counts, self._lengths, strict=True):
            norm = (
                self._k1 * (1.0 - self._b + self._b * length / self._average_length)
                if self._average_length
                else 0.0
            )
            score = 0.0
            for term in set(query):
                tf = counts.get(term, 0)
                if tf:
                    score += self._idf[term] * tf * (self._k1 + 1.0) / (tf + norm)
            results.append(score)
        return results
