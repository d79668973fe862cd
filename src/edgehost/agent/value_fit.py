"""Which of the question's words each text argument of a call the host chose takes (decision 11).

grounded_schema offers every run of the question's words as a text argument's value, and
ToolSelector.with_fitting_values ranks them by meaning against the argument ("species: the species of
the animal"). Meaning alone, from a sentence-embedding model, is a weak judge of a run of words: it
likes the argument's own words ("player" for a player's name), a part of a name ("League" of "Premier
League") and runs that cross a clause ("Chicago that were made"). So each run's similarity is
adjusted by what its place in the question shows, and the arguments share the question out: one run
of words is the value of one argument at most ("Manchester United" is the team, not also the
league).

- the question's first word, followed by "to", "into", "on" ..., is the verb of the request and no
  value ("switch to develop" is the branch develop, not "switch");
- a run holding a word that names the argument ("player", "news"; written in lower case, so not part
  of a name: "Premier League" stays), or made only of its words, is not a value of it;
- a whole name (a run of capitalised words, "Los Angeles Lakers", "Museum of Modern Art"; not an
  amount's unit, "32 GB of RAM") gains NAME_BONUS; a run that cuts a name ("Lakers", "Bulls and Los")
  loses CUT_NAME_PENALTY; a whole name that holds a word of the argument's name says its kind
  ("Hotel Paradise" for hotel_name, "Premier League" for league) and gains CUE_BONUS;
- for an argument that wants a name but neither a place's nor a title, in a question that writes no
  name, what a statement is about ("my bike lock code is 4471", "the spare key is under ...") counts
  as a whole name;
- a run with a clause word inside ("in", "that", "from": question_values.CLAUSE_WORDS), or a name
  with other words around it ("years using Darwin"), loses CLAUSE_PENALTY;
- for an argument that wants a name, the one word right after "named", "called" or "titled" gains
  NAME_BONUS ("a new branch named experiment off main" is the branch "experiment", not "new");
- a run just after a word of the argument's name ("player, Serena Williams" for player_name, "case
  number CA123456", "ID rs6034464"), or just before one ("Darwin model"), gains CUE_BONUS;
- for an argument named for the kind of a thing ("slope_type", "roomType"), the one word written
  right before the thing ("a hill slope", "a deluxe room") is its kind and gains CUE_BONUS more: two
  words further on ("slope in terms of erosion") the run only stands near the thing's name;
- a name just after "in", "near", "at", "on", "to" or "from" is a place, a time or what is done
  ("Anna lives in Lyon", "works at Siemens", "on Fridays", "moved to Hamburg"): for an argument that
  wants a name but neither a place's nor a title (entityName, not movie_title: "starred in The
  Matrix"), it loses PLACE_PENALTY; one that owns what follows ("Julia's entry") is who the question
  is about, and gains CUE_BONUS;
- for an argument that wants a name ("artist_name", "song_title", or one described as "The name of
  the entity where the relation starts"), a whole name gains NAME_SLOT_BONUS
  more; for one that wants an identifier ("snp_id"), a word of letters and digits does. One that wants
  a name or a place ("branch_name", "location") is always fitted (agent/selection.py): "Chicago" and
  "feature-login" are far from most descriptions by meaning, and stand out by their place.

The arguments then take the values whose adjusted scores add up highest, no two sharing a word:
"Louvre Museum" is the museum's name and "Paris" its location, though "Louvre Museum" alone is
nearer to "location" than "Paris" is. Two arguments described alike (a relation's start and end) take
their values in the order the question writes them.

Pure functions over the question's words and the similarities; agent/selection.py supplies those.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from edgehost.agent._bm25 import alike, terms
from edgehost.agent._query_cues import is_action_word
from edgehost.agent.question_values import (
    CLAUSE_WORDS,
    EDGE_WORDS,
    EXAMPLE_CLAUSE,
    NAMING_WORDS,
    WORD,
    clauses,
)

__all__ = ["TEXT_WORDS", "Slot", "assign_values", "fit_adjustment", "span_places", "written_names"]

NAME_BONUS = 0.2
CUT_NAME_PENALTY = 0.15
CLAUSE_PENALTY = 0.1
CUE_BONUS = 0.15
CUE_WORDS_BEFORE = 2
# The sharing out weighs each argument's best few values, for up to this many arguments at once.
SHARED_CHOICES = 4
MAX_SHARED_ARGUMENTS = 6
# Lower-case words a name may hold between its capitalised ones ("Museum of Modern Art").
_NAME_JOINERS = frozenset({"of", "the", "de", "la", "del", "von", "van"})
_QUOTED_EXAMPLE = re.compile(r"(?<!\w)'[^']*'(?!\w)|\"[^\"]*\"")  # not "owner's ... organization's"
# An example the description gives unquoted, to the end of its sentence: "e.g. Denver, CO".
_EXAMPLE_TAIL = re.compile(
    r"\b(?:e\.\s?g\.?|for example|for instance|such as)[:,]?\s[^;)]*?(?=[;)]|\.\s|\.?$)", re.I
)
_IDENTIFIER = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[\w\-]+$")
NAME_SLOT_BONUS = 0.2
# The words of an argument's name that say it takes a text of the user's own words.
TEXT_WORDS = frozenset(terms("observations contents text messages notes body description query"))
PLACE_PENALTY = 0.1
_PLACE_BEFORE = frozenset({"in", "near", "at", "on", "to", "from"})
# Words after a statement's subject ("Tom now works at Siemens", "Lena is Max's sister"): a
# capitalised first word they follow is a name, not an imperative's verb ("Play Bohemian Rhapsody").
_AFTER_SUBJECT = frozenset(
    {"is", "was", "has", "had", "does", "did", "also", "now", "just", "still", "never", "no", "too"}
    # a negation's or a modal's first part ("Anna doesn't like jazz anymore", "Tom won't be back")
    | {"isn", "wasn", "hasn", "hadn", "doesn", "didn", "won", "can", "will", "would", "should", "might"}
)
_STATEMENT_VERB = re.compile(r"^[a-z]{2,}(?:s|ed)$")
_NOT_VERBS = frozenset({"this", "his", "its", "us", "yes", "as", "always", "perhaps", "thus", "less", "plus"})
# A description that opens by saying whose name or title the value is.
_NAME_OF = re.compile(r"\s*(?:the\s+)?(name|title)s?\s+of\b", re.I)
# A statement's subject (_fact_subjects): after one of these, before one of those, at most so many words.
_FACT_OPENERS = frozenset({"my", "our", "your", "his", "her", "their", "the"})
_FACT_VERBS = frozenset({"is", "are", "was", "were", "has", "have", "had"})
MAX_SUBJECT_WORDS = 3
# Two arguments are described alike when their names and descriptions share at least so many index
# terms and differ in at most so many: a relation's from and to share name, entity and relation, and
# differ in start and end.
ALIKE_SHARED_TERMS = 2
ALIKE_OWN_TERMS = 4
# The words of an argument's name that make it the kind of one thing (slope_type, roomType).
_KIND_WORDS = frozenset({"type", "kind"})
# The words of an argument's name that ask for a place.
_PLACE_SLOTS = frozenset({"location", "city", "place", "destination", "origin", "address", "venue", "area"})


@dataclass(frozen=True)
class Slot:
    """What an argument's name and description say of the values it takes: their index terms (without
    the examples the description gives: "e.g., 'fraud'", "e.g. Denver, CO" are values, not words of
    the slot), its
    name's alone, and whether it wants a name ("artist_name") or an identifier ("snp_id")."""

    terms: frozenset[str]
    name_terms: frozenset[str]

    @classmethod
    def of(cls, key: str, description: str) -> Slot:
        """The slot of argument ``key``; a description that says what the value is the name or title
        of ("from: The name of the entity where the relation starts") counts as its name's word."""
        plain = EXAMPLE_CLAUSE.sub(" ", _QUOTED_EXAMPLE.sub(" ", description))
        named_as = _NAME_OF.match(plain)
        own = frozenset(terms(key)) | ({named_as.group(1).lower()} if named_as else set())
        return cls(frozenset(terms(f"{key} {plain}")), own)

    @property
    def wants_name(self) -> bool:
        return bool(self.name_terms & {"name", "title"})

    @property
    def wants_name_not_place(self) -> bool:
        """A name that is neither a place's nor a title ("entityName", "player_name")."""
        return "name" in self.name_terms and not self.wants_place and "title" not in self.name_terms

    @property
    def wants_place(self) -> bool:
        return bool(self.name_terms & _PLACE_SLOTS)

    @property
    def wants_text(self) -> bool:
        """A text of the user's own words ("message", "content", "query"), not a name or a place."""
        return bool(self.name_terms & TEXT_WORDS)

    @property
    def wants_identifier(self) -> bool:
        return bool(self.name_terms & {"id", "code", "number"})

    @property
    def kind_of(self) -> str | None:
        """The thing an argument named for a kind is the kind of ("slope" of slope_type), or None."""
        things = self.name_terms - _KIND_WORDS
        return next(iter(things)) if len(things) == 1 and self.name_terms & _KIND_WORDS else None

    def names_itself(self, word: str) -> bool:
        """Whether ``word``, in lower case, is a word of the slot ("player" for player_name,
        "predictions" for one described as "the species that the rate will be predicted for")."""
        if word[:1].isupper():
            return False
        return any(alike(term, own) for term in terms(word) for own in self.terms)


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word.lower() not in EDGE_WORDS


def _name_runs(words: Sequence[str], breaks: frozenset[int]) -> tuple[tuple[int, int], ...]:
    """The maximal runs of capitalised words of ``words`` as (start, end) word indices, with joiners
    inside ("Museum of Modern Art") but not at either edge, and no break inside ("Museum of Modern Art,
    New York" is two: a word whose index is in ``breaks`` starts a new clause). The question's first
    word is capitalised as a sentence's: it starts no name ("Play Bohemian Rhapsody") unless a
    statement's verb follows it ("Ravi also owns a grey cat", "Sophie speaks Japanese") or another
    name does ("Anna and Tom split up")."""
    runs: list[tuple[int, int]] = []
    index = 0 if _opens_with_subject(words) else 1
    while index < len(words):
        if not _capitalised(words[index]):
            index += 1
            continue
        unit = index > 0 and words[index - 1].isdigit()  # "32 GB of RAM" is an amount, not a name
        end = index + 1
        while end < len(words) and end not in breaks:
            if _capitalised(words[end]):
                end += 1
            elif (
                words[end].lower() in _NAME_JOINERS
                and end + 1 < len(words)
                and end + 1 not in breaks
                and _capitalised(words[end + 1])
            ):
                end += 2
            else:
                break
        if not unit:
            runs.append((index, end))
        index = end
    return tuple(runs)


@lru_cache(maxsize=16)
def _fact_subjects(question: str) -> frozenset[tuple[int, int]]:
    """What the question's statements are about where it writes no name, as (start, end) word indices:
    the words between a possessive or "the" and the "is" or "has" that follows ("my bike lock code is
    4512", "the spare key is under the flowerpot"; not "my dog Biscuit is five" nor "my favourite band
    is Radiohead": the name is what the entity is)."""
    words, names = _layout(question)
    if names:
        return frozenset()
    found = set()
    for start, word in enumerate(words):
        if word.lower() not in _FACT_OPENERS:
            continue
        for end in range(start + 2, min(start + 2 + MAX_SUBJECT_WORDS, len(words))):
            if words[end].lower() in _FACT_VERBS:
                inside = words[start + 1 : end]
                if all(w.isalpha() and w.lower() not in CLAUSE_WORDS for w in inside):
                    found.add((start + 1, end))
                break
    return frozenset(found)


def _opens_with_subject(words: Sequence[str]) -> bool:
    """Whether the first of ``words`` is the subject of a statement: capitalised, not a word a
    request opens with, and followed by a verb's form or a word that follows a subject."""
    if len(words) < 2 or not _capitalised(words[0]):
        return False
    following = words[1]
    if following in _AFTER_SUBJECT:
        return True
    if following == "and" and len(words) > 2 and _capitalised(words[2]):
        return True  # two names, the subject of a statement: "Anna and Tom split up"
    return bool(_STATEMENT_VERB.match(following)) and following not in _NOT_VERBS


@lru_cache(maxsize=16)
def _layout(question: str) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    """The words of ``question`` and its names (_name_runs), read once for all its runs and arguments."""
    words: list[str] = []
    breaks: set[int] = set()
    for clause in clauses(question):
        breaks.add(len(words))
        words.extend(clause)
    return tuple(words), _name_runs(words, frozenset(breaks))


def written_names(question: str) -> list[str]:
    """The names ``question`` writes: its runs of capitalised words (_name_runs), "Ms Okoye", "Max"."""
    words, names = _layout(question)
    return [" ".join(words[start:end]) for start, end in names]


def span_places(words: Sequence[str], span: str) -> list[tuple[int, int]]:
    """Where ``span`` stands among ``words``, as (start, end) word indices, first first."""
    wanted = WORD.findall(span)
    return [
        (start, start + len(wanted))
        for start in range(len(words) - len(wanted) + 1)
        if wanted and list(words[start : start + len(wanted)]) == wanted
    ]


def _place(words: Sequence[str], span: str) -> tuple[int, int] | None:
    """Where ``span`` first stands among ``words``, as (start, end) word indices."""
    found = span_places(words, span)
    return found[0] if found else None


def fit_adjustment(question: str, span: str, slot: Slot) -> float | None:
    """What the place of ``span`` in ``question`` adds to its similarity to an argument (``slot``:
    module docstring); None when it names the argument rather than giving a value of it."""
    words, names = _layout(question)
    span_words = WORD.findall(span)
    if not span_words or any(slot.names_itself(w) for w in span_words):
        return None
    if terms(span) and set(terms(span)) <= slot.terms:
        return None  # only the slot's words, capitalised or not: "(Single Nucleotide Polymorphism)"
    places = span_places(words, span)
    if _opens_a_request(words, places):
        return None  # the verb of a request, not a value: "switch to develop", "Switch to the ..."
    if not places:
        return 0.0  # a quoted phrase that spans punctuation, or a described example
    # Where a span stands more than once, its best place tells ("Sophie speaks Japanese too, add that
    # to Sophie's entry": the owner of the entry).
    subjects = _fact_subjects(question)
    return max(_adjustment_at(words, names, subjects, span_words, span, slot, place) for place in places)


def _opens_a_request(words: Sequence[str], places: list[tuple[int, int]]) -> bool:
    """Whether a run standing only at ``places`` is the verb that opens a request: the first word,
    before "to", "into", "on" ..., in lower case or a word that stands for a tool verb ("Switch to the
    feature/login branch"; not "Paris to Lyon by car")."""
    return (
        places == [(0, 1)]
        and len(words) > 1
        and words[1].lower() in _PLACE_BEFORE | {"into"}
        and (words[0].islower() or is_action_word(words[0]))
    )


def _adjustment_at(
    words: Sequence[str],
    names: Sequence[tuple[int, int]],
    subjects: frozenset[tuple[int, int]],
    span_words: Sequence[str],
    span: str,
    slot: Slot,
    place: tuple[int, int],
) -> float:
    start, end = place
    adjustment = 0.0
    if slot.wants_name_not_place and place in subjects:
        adjustment += NAME_BONUS + NAME_SLOT_BONUS  # named by what it is: "bike lock code"
    for run_start, run_end in names:
        if (run_start, run_end) == (start, end):
            adjustment += NAME_BONUS + (NAME_SLOT_BONUS if slot.wants_name else 0.0)
            if any(set(terms(w)) & slot.name_terms for w in (span_words[0], span_words[-1])):
                adjustment += CUE_BONUS  # a name that says its kind: "Hotel Paradise" for hotel_name
        elif run_start < end and start < run_end and not (start <= run_start and run_end <= end):
            adjustment -= CUT_NAME_PENALTY
        elif start <= run_start and run_end <= end:
            adjustment -= CLAUSE_PENALTY  # a name with other words around it: "years using Darwin"
    if any(w.lower() in CLAUSE_WORDS for w in words[start + 1 : end - 1]):
        adjustment -= CLAUSE_PENALTY
    if slot.wants_name and start and words[start - 1].lower() in NAMING_WORDS and end - start == 1:
        adjustment += NAME_BONUS  # what follows "named" or "called" is the name: "a branch named experiment"
    if slot.wants_identifier and len(span_words) == 1 and _IDENTIFIER.match(span):
        adjustment += NAME_SLOT_BONUS  # "rs6034464" for snp_id
    if slot.wants_name_not_place and start and words[start - 1] in _PLACE_BEFORE:
        adjustment -= PLACE_PENALTY
    if slot.wants_name_not_place and (start, end) in names and end < len(words) and words[end] == "s":
        adjustment += CUE_BONUS  # the owner of what follows: "Julia's entry" ("'s" is a word of its own)
    thing = slot.kind_of
    if thing and end - start == 1 and end < len(words) and thing in terms(words[end]):
        adjustment += CUE_BONUS  # the kind written before the thing: "a hill slope" for slope_type
    beside = [*words[max(0, start - CUE_WORDS_BEFORE) : start], *words[end : end + 1]]
    if any((w.islower() or w.isupper()) and set(terms(w)) & slot.name_terms for w in beside):
        adjustment += CUE_BONUS
    return adjustment


def assign_values(
    question: str,
    similarities: Mapping[str, Mapping[str, float]],
    slots: Mapping[str, Slot],
) -> dict[str, list[tuple[str, float]]]:
    """For each argument (``similarities``: its candidates' similarity to it; ``slots``: what its name
    and description say), its candidates with their adjusted score, best first,
    the one it takes in the question's best sharing-out first (_shared_out). Arguments with no
    candidate left out."""
    scored: dict[str, list[tuple[str, float]]] = {}
    for key, values in similarities.items():
        adjusted = []
        for value, similarity in values.items():
            adjustment = fit_adjustment(question, value, slots[key])
            if adjustment is not None:
                adjusted.append((value, similarity + adjustment))
        if adjusted:
            scored[key] = sorted(adjusted, key=lambda pair: -pair[1])
    words = _layout(question)[0]
    chosen = _in_question_order(words, _shared_out(words, scored), slots)
    return {
        key: [chosen[key], *(pair for pair in values if pair != chosen[key])] if key in chosen else values
        for key, values in scored.items()
    }


def _in_question_order(
    words: Sequence[str], chosen: dict[str, tuple[str, float]], slots: Mapping[str, Slot]
) -> dict[str, tuple[str, float]]:
    """``chosen`` with the values of two arguments described alike ("The name of the entity where the
    relation starts" and "... ends") in the order the question writes them: "Anna and Tom split up"
    is a relation from Anna to Tom. Meaning cannot tell such arguments apart; their order can."""
    keys = [key for key in chosen if key in slots]
    for first, second in itertools.combinations(keys, 2):
        a, b = slots[first].terms, slots[second].terms
        if len(a & b) < ALIKE_SHARED_TERMS or len(a ^ b) > ALIKE_OWN_TERMS:
            continue
        here, there = _place(words, chosen[first][0]), _place(words, chosen[second][0])
        if here is not None and there is not None and here[0] > there[0]:
            chosen[first], chosen[second] = chosen[second], chosen[first]
    return chosen


def _shared_out(
    words: Sequence[str], scored: Mapping[str, list[tuple[str, float]]]
) -> dict[str, tuple[str, float]]:
    """One value for each argument, from its SHARED_CHOICES best, such that no two share a word of the
    question or are the same value, and the scores add up highest. When no such choice exists, or for
    more than MAX_SHARED_ARGUMENTS arguments, each keeps its own best."""
    keys = list(scored)
    choices = [scored[key][:SHARED_CHOICES] for key in keys]
    places = {value: _place(words, value) for options in choices for value, _score in options}
    best: tuple[float, tuple[tuple[str, float], ...]] | None = None
    combinations = itertools.product(*choices) if len(keys) <= MAX_SHARED_ARGUMENTS else ()
    for combination in combinations:
        spans = [place for value, _score in combination if (place := places[value]) is not None]
        if any(a[0] < b[1] and b[0] < a[1] for a, b in itertools.combinations(spans, 2)):
            continue
        if len({value for value, _score in combination}) < len(combination):
            continue  # one value read rather than copied ("2024-01-01" from "January 1, 2024") twice
        total = sum(score for _value, score in combination)
        if best is None or total > best[0]:
            best = (total, combination)
    if best is None:
        return {key: scored[key][0] for key in keys}
    return dict(zip(keys, best[1], strict=True))
