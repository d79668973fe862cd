"""Grounded answers (decision 11): after a tool ran, an answer that ignores its result is not passed
off as the answer; the user sees the result itself.

The rule, kept simple enough to test and to explain to a user. An answer that follows a successful
tool call is *ungrounded* when

1. it is empty (the model had nothing to add): it has no word or number, only markup or blanks
   (a code fence, "```", seen after a file was written); or
2. it repeats itself (the backend stopped it for looping, or one sentence of it occurs three times), or
3. it states a number that is in none of the turn's tool results, the arguments of its calls or the
   user's question — a number "is in" a source when it is equal to one there, or is one there
   rounded or cut to fewer places (45 or 45.2 for 45.23, 978 for 978.8), or counts the items of a
   list there; or
4. every result is empty (``{"zones": []}``, ``[]``, no text): whatever the model says, the user reads
   that the tool returned nothing, with the model's text beside it; or
5. the question asks for an amount ("how much memory is free?", "how hot…", "how many…", "what time…")
   and the results hold numbers, but the answer states none of them ("The RAM is nearly full."); or
6. it gives a number under the name of another: a key of a structured result written in the answer
   (``available_mb`` or ``available mb``) and followed at once by a number (``available_mb - 2003.7``,
   ``available mb: 2003.7``, ``available_mb is 2003.7``) that is not that key's value, though it may
   be another's (the used memory given as the free memory); or a number that is only one key's
   value, written in a clause that names another key in words and not its own (``2407.5 MB of memory
   available`` when 2407.5 is ``used_mb``: the clause says "available", or "free", and not "used"); or
7. the question names what it asks for in a key's words ("how much memory is *free*?": available_mb,
   free being a synonym of available) and the answer's numbers from the result are all values of other
   keys (it answers with the total); or
8. the question asks the time ("what time is it?") and a result holds a clock time (``01:54:53``), but
   the answer writes none of the result's hours and minutes ("The time is 2026-11-26, which is
   midnight": the date, and an hour of its own); or
9. it is a template left unfilled (``{PATH_RESULT}``, ``{{result}}``), or it breaks off where its
   content should begin: it ends with a colon ("The result is:", seen after a file was written), or
   with no stop after a word no sentence ends on ("The latest commit in my repo is"), an empty list
   item after either ("anything staged for commit right now is: -"); or
10. it says nothing of what happened: it has no number (those it has passed rule 3) and no word of
   the results, the calls' arguments or the question, where the results and arguments have words ("True." after a file was deleted, "This is not possible." after the
   board said it has no thermal sensors). Words are compared by their first five letters (deleted,
   delete), leaving out the commonest short words.
11. it writes code or an address that no source has: a line of a code block (```), or a web address,
   that is in none of the results, the calls' arguments or the question ("You can use the following
   command to restore old.log: ```bash sudo curl https://...```" after a file's last lines were read).
   A block that quotes what the tool read passes.
12. it is a call and not an answer: a tool's name and its arguments written as JSON (``{ "name":
   "git__git_add", "arguments": {...} }``), or in one of the call markers, which the loop did not run
   (it was malformed, or the turn had no round left). The user would read a request, not what happened.

13. it says the call failed where no result says so: an error, a failure, something "not found", "could
   not", "unable to", "does not exist", "no such", "not possible" or "permission denied" that none of
   the results writes, nor the error of another call of the turn that failed ("The wifi (note.txt) is
   a file with an error message "file not found"" after notes.txt was read). A log the tool read that
   holds ERROR lines lets the answer say "error"; "couldn't" and "could not" are one.
14. most of what it says comes from nowhere: INVENTED_WORDS or more of its words (compared as in rule
   10) are in none of the results, the calls' arguments or the question, and they are INVENTED_SHARE
   times those that are ("The 'Clara' refers to a member of the edge host, which is a server for the
   EdgeHost-based AI", after the memory server found Clara, the asker's sister who lives in Porto).
15.-17. it claims what the results do not (agent/answer_claims.py): a weekday or month no source names
   ("The answer is Sunday" after ``day_of_week: Friday``), that nothing was found where the tool found
   something, or a tool's ``server__tool`` name (a call or a result of its own making).
18. it repeats the question: every word and number of it is the question's, where the results say
   something the question does not, and it neither answers a yes-or-no question with yes or no nor
   negates what the question says ("What day is it?" after the clock gave Friday; not "The quick
   brown fox" after an echo of it, nor "My dog Biscuit is five years old" after the memory server kept
   just that).

In rule 5 a zero is no amount the answer must write: "there are no sensors" answers an empty list.

Two kinds of worked-out numbers count as the result's, each only where the answer says what it did,
so that a larger model's correct arithmetic passes (the catalog suggests a 1B model, which writes
"38 % of 7.7 GB" for used_mb 2996.1 of total_mb 7884.8):

- a number followed by a size or frequency unit (``7.7 GB``, ``2.3 GHz``) may be a source number
  divided or multiplied by 1000 or 1024, once or twice;
- a number followed by ``%`` or "percent" may be the share of two numbers of one object of a result
  (``used_mb`` of ``total_mb``), or what is left of it (100 minus that share).

Any other conversion (24-hour to 12-hour clock, °C to °F) counts as invented: the user then sees the
result beside the model's text, which is the safe side for a 135M model. Pure functions only. Rules 6
and 7 are agent/labelled_numbers.py's, rules 15 to 17 agent/answer_claims.py's; agent/answer_numbers.py
reads the numbers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from edgehost.agent.answer_claims import unfounded_claim
from edgehost.agent.answer_numbers import ENUMERATORS, NUMBER, decimal_of, finite, is_in, numbers_in
from edgehost.agent.labelled_numbers import answers_another_key, labelled_results, mislabelled

__all__ = [
    "NOTHING_RETURNED",
    "Grounding",
    "check_answer",
    "echoes",
    "has_words",
    "is_empty_result",
    "repeats_itself",
]

NOTHING_RETURNED = "the tool returned nothing"  # why any answer after only empty results is ungrounded
# A question whose answer is an amount the tool measured (rule 5).
_AMOUNT_QUESTION = re.compile(
    r"\bhow\s+(much|many|hot|warm|cold|long|big|large|fast|full|busy|old)\b|\bwhat\s+time\b"
    r"|\bwhat(?:'s|\s+is|\s+are)\s+the\s+(temperature|load|usage|size|uptime|time)\b(?!\s+zone)",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"\{[A-Z][A-Z0-9_]*\}|\{\{[^{}]*\}\}")
# A reply that breaks off (rule 9): it ends with a colon, or with no stop after a word no sentence
# ends on (an article, a form of "be", a preposition, a conjunction, a possessive): "The latest
# commit in my repo is", seen after git_log. Not "in", "on" or "that", which end "the fan is on",
# "you are logged in" and "I did that".
_BROKEN_OFF = re.compile(
    r"(?::|\b(?:a|an|the|is|are|was|were|be|of|to|at|for|with|from|by|into|and|or|but|because"
    r"|which|my|your|our|their|its))\s*$",
    re.IGNORECASE,
)
# A list item with nothing in it at the end of a reply ("Staged: -"): what a reply broke off on.
_EMPTY_ITEM = re.compile(r"\s+[-*•]$")
# A question asked to be answered yes or no, a reply that opens with the answer, and a negation (rule 18).
_YES_NO_QUESTION = re.compile(
    r"^\W*(?:is|are|am|was|were|do|does|did|can|could|has|have|had|will|would|should|shall)\b", re.IGNORECASE
)
_YES_OR_NO = re.compile(r"^\W*(?:yes|no|yeah|yep|nope)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|none|nothing)\b|n[’']t\b", re.IGNORECASE)
# A call written out (rule 12): JSON with a name and its arguments, or a dialect's markers.
_WRITTEN_CALL = re.compile(
    r"\"name\"\s*:\s*\"[^\"]*\"\s*,\s*\"(?:arguments|parameters)\"\s*:|\[TOOL_CALL\]|<tool_call\b|<function=",
    re.IGNORECASE,
)
# A failure an answer reports (rule 13).
_FAILURE = re.compile(
    r"\b(?:errors?|failed|failures?|not\s+found|could\s*n[o']t|unable\s+to|does\s*n[o']t\s+exist"
    r"|do\s*n[o']t\s+exist|no\s+such|not\s+possible|impossible|permission\s+denied)\b",
    re.IGNORECASE,
)
# What may follow a number that is a source number in another unit, or a share in percent.
_UNIT_AFTER = re.compile(r"\s?(?:[kKMGT]i?B|bytes?|[kMG]Hz)(?![\w])")
_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b|per cent\b)")
UNIT_FACTORS = tuple(Decimal(f) for f in (1000, 1024, 1000**2, 1024**2))
# A question that asks the time of day (rule 8), and a clock time as a result or an answer writes it.
_TIME_QUESTION = re.compile(
    r"\bwhat\s+time\b|\bthe\s+(?:current\s+|exact\s+)?time\b(?!\s+zone)", re.IGNORECASE
)
_CLOCK_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?![\d:])")
# A code fence's own line ("```", "```json"): markup, not words of an answer.
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})[\w+-]*[ \t]*$", re.MULTILINE)
# A code block (rule 11): its fence, a language name, then what it holds up to its closing fence or
# the answer's end (the model may stop inside it); and a web address.
_CODE_BLOCK = re.compile(r"(`{3,}|~{3,})[\w+-]*(.*?)(?:\1|\Z)", re.DOTALL)
_ADDRESS = re.compile(r"\bhttps?://[^\s`'\"<>()\[\]]+")
# An answer that copies the text EdgeHost gave the model about a call that did not run: this many
# words in a row of that text, or most of the answer's words in a row of it (at least ECHO_MIN_WORDS:
# "`Files__list_directory: /tmp`" names the call, it does not copy the error).
ECHO_RUN_WORDS = 6
ECHO_SHARE = 0.7
ECHO_MIN_WORDS = 4
REPEATED_SENTENCE_TIMES = 3


@dataclass(frozen=True)
class Grounding:
    grounded: bool
    reason: str = ""  # why not, in words a user can read ("it has numbers the result does not: 2307.2")
    invented: tuple[str, ...] = ()  # the numbers that are in no source
    nothing_to_go_on: bool = False  # the call failed or was refused: there is no result to contradict
    says_nothing: bool = False  # rule 10: the reply is left out, the result is the answer


def _list_lengths(value: Any) -> Iterable[int]:
    if isinstance(value, list):
        yield len(value)
        for item in value:
            yield from _list_lengths(item)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _list_lengths(item)


def _source_numbers(sources: Iterable[str]) -> set[Decimal]:
    found: set[Decimal] = set()
    for text in sources:
        found.update(d for d in map(decimal_of, numbers_in(text)) if d is not None)
        # A clock time's parts, also inside an ISO timestamp ("2026-11-26T10:54:53", where "10"
        # follows a letter and is no number of its own to numbers_in).
        found.update(
            Decimal(part) for match in _CLOCK_TIME.finditer(text) for part in match.group(0).split(":")
        )
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, ValueError):
            continue
        found.update(Decimal(n) for n in _list_lengths(value))
    return found


def _in_other_units(sources: set[Decimal]) -> set[Decimal]:
    """Each source number divided and multiplied by 1000 and 1024, once or twice (MB as GB, kHz as GHz)."""
    usable = [s for s in sources if finite(s)]
    return {s / f for s in usable for f in UNIT_FACTORS} | {s * f for s in usable for f in UNIT_FACTORS}


def _sibling_numbers(value: Any) -> Iterable[list[Decimal]]:
    """The numbers of each JSON object of ``value``, one list per object (its own values, not nested)."""
    if isinstance(value, Mapping):
        numbers = [
            d
            for item in value.values()
            if isinstance(item, (int, float)) and not isinstance(item, bool)
            if (d := decimal_of(str(item))) is not None and finite(d)
        ]
        if len(numbers) > 1:
            yield numbers
        for item in value.values():
            yield from _sibling_numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _sibling_numbers(item)


def _shares(results: Iterable[str]) -> set[Decimal]:
    """In percent: each number of a result's object as a share of a larger one of the same object
    (used_mb of total_mb), and what is left of it."""
    shares: set[Decimal] = set()
    for text in results:
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, ValueError):
            continue
        for numbers in _sibling_numbers(value):
            for part in numbers:
                for whole in numbers:
                    if 0 <= part <= whole and whole > 0 and part is not whole:
                        share = part / whole * 100
                        shares.update((share, 100 - share))
    return shares


@dataclass
class _Sources:
    """The numbers an answer may state: the sources' own, and (written with a unit or as a percentage)
    the ones worked out of them."""

    numbers: set[Decimal]
    results: Sequence[str]
    _converted: set[Decimal] | None = None
    _shares: set[Decimal] | None = None

    def explain(self, value: Decimal, text: str, end: int) -> bool:
        """Whether ``value``, written in ``text`` up to ``end``, is one of them."""
        if is_in(value, self.numbers):
            return True
        if _UNIT_AFTER.match(text, end):
            if self._converted is None:
                self._converted = _in_other_units(self.numbers)
            return is_in(value, self._converted)
        if _PERCENT_AFTER.match(text, end):
            if self._shares is None:
                self._shares = _shares(self.results)
            return is_in(value, self._shares)
        return False

    def unexplained(self, text: str) -> list[str]:
        """The numbers written in ``text`` that are none of them, as written."""
        return [
            match.group(0)
            for match in NUMBER.finditer(text)
            if (value := decimal_of(match.group(0))) is not None
            and not self.explain(value, text, match.end())
        ]


def repeats_itself(text: str, times: int = REPEATED_SENTENCE_TIMES) -> bool:
    """True when one sentence (of at least three words) occurs ``times`` times or more."""
    sentences = [" ".join(s.lower().split()) for s in re.split(r"(?<=[.!?])\s+|\n+", text)]
    counts: dict[str, int] = {}
    for sentence in sentences:
        if len(sentence.split()) >= 3:
            counts[sentence] = counts.get(sentence, 0) + 1
            if counts[sentence] >= times:
                return True
    return False


def check_answer(
    answer: str,
    *,
    results: Sequence[str],
    question: str = "",
    arguments: Sequence[Mapping[str, Any]] = (),
    stopped_for_repetition: bool = False,
    failed: Sequence[str] = (),
) -> Grounding:
    """Whether ``answer``, given after tools returned ``results``, is grounded in them (module docstring).
    ``failed``: what the turn's calls that did not run returned (an error, a refusal): an answer may
    report those failures."""
    if not has_words(answer):
        return Grounding(False, "the model wrote nothing after the tool")
    if stopped_for_repetition or repeats_itself(answer):
        return Grounding(False, "the model's reply repeats itself")
    if results and all(is_empty_result(text) for text in results):
        return Grounding(False, NOTHING_RETURNED)
    if _PLACEHOLDER.search(answer):
        return Grounding(False, "the model's reply is a template with nothing filled in")
    if _BROKEN_OFF.search(_EMPTY_ITEM.sub("", answer.rstrip()).rstrip("*_")):
        return Grounding(False, "the model's reply breaks off where its content should begin")
    if _WRITTEN_CALL.search(answer):
        return Grounding(False, "the model's reply is a tool call, not an answer")
    failure = _unreported_failure(answer, [*results, *failed])
    if failure:
        return Grounding(False, f"it says {failure!r}, which no result says: the call succeeded")
    called = [json.dumps(a, ensure_ascii=False, default=str) for a in arguments]  # the calls' arguments
    claim = unfounded_claim(answer, results, question, called)
    if claim:
        return Grounding(False, claim)
    sources = _Sources(
        _source_numbers([*results, question, *called]),
        results,
    )
    invented = tuple(dict.fromkeys(sources.unexplained(ENUMERATORS.sub("", answer))))
    if invented:
        return Grounding(False, f"it has numbers the result does not: {', '.join(invented)}", invented)
    labelled = labelled_results(results)
    wrong = mislabelled(answer, labelled)
    if wrong:
        return Grounding(False, f"it gives numbers under the wrong names: {', '.join(wrong)}")
    other = answers_another_key(answer, question, labelled)
    if other:
        return Grounding(False, other)
    if _TIME_QUESTION.search(question):
        read = {(int(hour), minute) for text in results for hour, minute in _CLOCK_TIME.findall(text)}
        written = {(int(hour), minute) for hour, minute in _CLOCK_TIME.findall(answer)}
        if read and not read & written:
            return Grounding(False, "it does not give the time the tool read")
    if _AMOUNT_QUESTION.search(question):
        measured = _Sources(_source_numbers(results) - {Decimal(0)}, results)
        stated = [match.group(0) for match in NUMBER.finditer(answer)]
        if measured.numbers and len(measured.unexplained(answer)) == len(stated):
            return Grounding(False, "it answers a question about an amount without the result's numbers")
    unsourced = _not_in_sources(answer, [*results, question, *called])
    if unsourced:
        return Grounding(False, f"it writes {unsourced} that the result does not have")
    said = _stems(" ".join([*results, *called]))
    if said and not NUMBER.search(answer) and not _stems(answer) & (said | _stems(question)):
        return Grounding(False, "it says nothing of the result", says_nothing=True)
    asked = _stems(question)
    if (
        asked
        and _stems(answer) <= asked
        and _stems(" ".join(_values_in(results))) - asked
        and not _answers_yes_or_no(answer, question)
    ):
        return Grounding(False, "it repeats the question and says nothing of the result", says_nothing=True)
    worded = {stem for stem in _stems(answer) if not stem.isdigit()}  # numbers passed rule 3
    from_nowhere = worded - said - _stems(question)
    if len(from_nowhere) >= INVENTED_WORDS and len(from_nowhere) >= INVENTED_SHARE * len(
        worded - from_nowhere
    ):
        return Grounding(False, "most of what it says is in no result")
    return Grounding(True)


def _unreported_failure(answer: str, results: Sequence[str]) -> str:
    """The first failure ``answer`` reports that no result writes (rule 13), as written; "" if none."""
    written = _uncontracted(" ".join(results))
    for match in _FAILURE.finditer(answer):
        if _uncontracted(match.group(0)).rstrip("s") not in written:
            return match.group(0)
    return ""


def _uncontracted(text: str) -> str:
    """``text`` in lower case with its blanks made single spaces and "n't" written "not"."""
    return re.sub(r"n[’']t\b", " not", _spaced(text).lower())


def _not_in_sources(answer: str, sources: Sequence[str]) -> str:
    """What kind of text ``answer`` writes that is in none of ``sources`` (rule 11): "a command or
    code", "an address", or ""; the sources' JSON read as the strings it holds too."""
    blocks, addresses = list(_CODE_BLOCK.finditer(answer)), _ADDRESS.findall(_CODE_BLOCK.sub(" ", answer))
    if not blocks and not addresses:
        return ""
    known = _spaced(" ".join(_texts_of(sources)))
    for block in blocks:
        if any(_spaced(line) not in known for line in block.group(2).splitlines() if line.strip()):
            return "a command or code"
    if any(address.rstrip("/.,;:!?") not in known for address in addresses):
        return "an address"
    return ""


def _spaced(text: str) -> str:
    return " ".join(text.split())


def _texts_of(sources: Sequence[str]) -> Iterable[str]:
    """Each source, and the strings inside one that is JSON (a file's text in a structured result)."""
    for text in sources:
        yield text
        try:
            value = json.loads(text)
        except ValueError:
            continue
        yield from _strings_in(value)


def _answers_yes_or_no(answer: str, question: str) -> bool:
    """Whether ``answer`` answers a yes-or-no ``question`` with the question's own words ("Yes, today
    is Friday." to "Is today Friday?"), or says the question's words negated ("notes.txt is not
    staged")."""
    if _YES_NO_QUESTION.search(question) and _YES_OR_NO.search(answer):
        return True
    return _NEGATION.search(answer) is not None and _NEGATION.search(question) is None


def _values_in(results: Sequence[str]) -> Iterable[str]:
    """What ``results`` say: a text result whole, a JSON one's strings and numbers without its keys
    (``entityType`` is no word of what the memory server keeps)."""
    for text in results:
        try:
            value = json.loads(text)
        except ValueError:
            yield text
            continue
        yield from _strings_in(value, numbers=True)


def _strings_in(value: Any, numbers: bool = False) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings_in(item, numbers)
    elif isinstance(value, list):
        for item in value:
            yield from _strings_in(item, numbers)


# Rule 14: a reply with at least this many words from no source, this many times those from one.
INVENTED_WORDS = 5
INVENTED_SHARE = 3
# Words too common to show that an answer speaks of a result (rule 10).
_COMMON = frozenset(
    [
        "the",
        "and",
        "for",
        "you",
        "your",
        "are",
        "was",
        "were",
        "this",
        "that",
        "with",
        "not",
        "but",
        "has",
        "have",
        "had",
        "its",
        "from",
        "can",
        "all",
        "any",
        "there",
        "here",
        "what",
        "which",
        "who",
        "how",
        "when",
        "where",
        "will",
        "would",
        "yes",
        "now",
        "one",
    ]
)
STEM_LETTERS = 5


def _stems(text: str) -> set[str]:
    """The words (three letters or more, not the commonest) and numbers of ``text``, each cut to its
    first STEM_LETTERS letters (rule 10)."""
    words = re.findall(r"[^\W_]+", text.lower())
    return {w[:STEM_LETTERS] for w in words if (len(w) >= 3 and w not in _COMMON) or w.isdigit()}


def has_words(text: str) -> bool:
    """Whether ``text`` says anything: a letter or a digit outside the lines that open or close a code
    fence. "```\\n", "**" or blanks say nothing (rule 1)."""
    return re.search(r"[^\W_]", _FENCE_LINE.sub("", text)) is not None


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def _longest_common_run(a: Sequence[str], b: Sequence[str]) -> int:
    """The most words in a row that ``a`` and ``b`` share."""
    best = 0
    previous = [0] * (len(b) + 1)
    for word in a:
        current = [0] * (len(b) + 1)
        for j, other in enumerate(b, 1):
            if word == other:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def echoes(answer: str, texts: Sequence[str], phrases: Sequence[str] = ()) -> bool:
    """Whether ``answer`` repeats one of ``texts`` (what EdgeHost told the model about a call: a denial
    and its instruction, an error) rather than answering: it holds one of ``phrases`` (an instruction
    meant for the model only), in any case and spacing, or ECHO_RUN_WORDS words in a row of a text, or
    it is mostly (ECHO_SHARE of its words, ECHO_MIN_WORDS at least) one run of a text."""
    said = _words(answer)
    if not said:
        return False
    joined = " ".join(said)
    if any((wanted := " ".join(_words(phrase))) and f" {wanted} " in f" {joined} " for phrase in phrases):
        return True
    for text in texts:
        run = _longest_common_run(said, _words(text))
        if run >= ECHO_RUN_WORDS or run >= max(ECHO_SHARE * len(said), ECHO_MIN_WORDS):
            return True
    return False


def is_empty_result(text: str) -> bool:
    """A result that holds no data: no text, or JSON whose every value is empty (``{"zones": []}``,
    ``[]``, ``{}``, null or "")."""
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return not text.strip()
    return _empty(value)


def _empty(value: Any) -> bool:
    if isinstance(value, Mapping):
        return all(_empty(item) for item in value.values())
    if isinstance(value, list):
        return all(_empty(item) for item in value)
    return value is None or value == ""
