"""What a question says besides its meaning, for ranking tools (decision 7) and routing (decision 11).

Sentence embeddings blur verbs ("read notes.txt" sits as close to write_file as to read_file) and know
nothing of argument types. Four small cues close most of that gap; each is measured by
bench/selection_recall.py against the plain blend:

- action words: a question's verbs folded onto the verbs tool names use ("forget" -> delete,
  "remember" -> create/add, "rename" -> move, "what's in" -> read), added to its BM25 terms;
- argument fit: a tool gains for each typed argument (path, directory, URL, time zone, clock time,
  date in a set layout, number) the question has a value for (a file name such as todo.md is no directory), as many as it has values of that kind ("rename draft.txt to final.txt"
  fills move_file's source and destination, edit_file's one path), and loses for each *required*
  typed argument whose kind the question holds no value of;
- caution: a tool that may change something (not annotated read-only) loses a little against the
  read-only ones unless the question asks for a change;
- something kept: a request for a change that speaks of a thing already kept ("also", "too", "her
  entry", "what you know about Max") favours a tool whose description says it changes what exists
  ("Add new observations to existing entities") over one that makes a new thing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from edgehost.agent._bm25 import terms
from edgehost.agent.known_arguments import FILE_NAME, PATH_ARGUMENT, is_folder_argument
from edgehost.agent.places import wants_zone
from edgehost.agent.question_dates import DATE_FORMAT, written_dates
from edgehost.agent.question_values import clock_times, named_timezones, path_values, written_numbers
from edgehost.agent.tools import ToolSpec
from edgehost.agent.typed_words import read_as_meant

__all__ = [
    "ACTIONS",
    "acts_on_existing",
    "argument_fit",
    "asks_for_change",
    "asks_for_words",
    "asks_only_to_add",
    "asks_something",
    "asks_to_keep",
    "asks_what_i_recorded",
    "deletes",
    "speaks_of_kept",
    "takes_away_changes_alone",
    "tool_verbs",
    "verbs_asked",
    "asks_how_or_whether",
    "expanded_terms",
    "cannot_fill",
    "lacks_required_values",
    "question_cues",
    "required_free_arguments",
]

# The verbs of tool names, and the words people use for them.
ACTIONS: Mapping[str, str] = {
    "read": "read show open view display see content inside look",
    "write": "write save store put",
    "edit": "edit replace change append modify update fix correct amend",
    "move": "move rename put",
    "delete": "delete remove forget drop erase wipe purge unstage cross strike discard scrap",
    "create": "create make new add remember note keep",
    "list": "list inside content folder directory",
    "search": "find search look mention locate",
    "get": "get show much many",
    "sum": "add plus sum total",
    "echo": "repeat echo back say",
}
# "take" asked for, at the start of a clause or after so / and / then / please / just / you: "took off my
# ring", "my flight takes off at 9", "taking Friday off" tell, they ask nothing.
_ASKED_TAKE = r"(?:^|(?<=[,.;:!?]\s)|(?<=\bso\s)|(?<=\band\s)|(?<=\bthen\s)|(?<=\bplease\s)|(?<=\bjust\s)|(?<=\byou\s))take"
# Phrasal verbs, which mean what neither of their words says alone ("get rid of" is not "get";
# "pull up" a note is to show it), each with the one verb of ACTIONS that means the same: plain
# English, as a dictionary gives it, not words of any server's tools.
_PHRASAL_VERBS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"\b(?:{forms})\b", re.I), verb)
    for forms, verb in (
        (
            r"get(?:s|ting)?\s+rid\s+of|got\s+rid\s+of|throw(?:s|ing)?\s+(?:away|out)|threw\s+(?:away|out)"
            r"|clear(?:s|ing)?\s+out|do\s+away\s+with"
            rf"|{_ASKED_TAKE}\s+(?:out|away)(?!\s+of)|{_ASKED_TAKE}\s+[^.!?]{{1,40}}?\s+off\s+(?:my|your|his|her|their|the)",
            "delete",
        ),
        (
            r"track(?:s|ing)?\s+down|hunt(?:s|ing)?\s+(?:for|down)|dig(?:s|ging)?\s+(?:up|out)"
            r"|look(?:s|ing)?\s+for",
            "search",
        ),
        (r"(?:pull|bring|call)(?:s|ing)?\s+up|brought\s+up|read(?:s|ing)?\s+(?:out|back)", "show"),
        (r"tack(?:s|ed|ing)?(?=\s[^.!?]{0,60}?\b(?:on|onto)\b)", "append"),
        (r"set(?:s|ting)?\s+up", "create"),
        (r"jot(?:s|ted|ting)?\s+(?:\w+\s+){0,3}?down", "note"),
    )
)
# The words that take something away (ACTIONS' delete, in any form, and its phrasal verbs), and the
# words for changes as things that may follow them: "discard the changes", "throw away my local edits".
_TAKING_AWAY_WORDS = (
    re.compile(rf"\b(?:{'|'.join(ACTIONS['delete'].split())})\w{{0,3}}\b", re.I),
    *(pattern for pattern, verb in _PHRASAL_VERBS if verb == "delete"),
)
_CHANGES_NEXT = re.compile(
    r"(?:\s+(?:all|the|my|your|our|any|those|these|that|this|local|recent|last|latest|uncommitted|unsaved"
    r"|unstaged|new|few|of))*\s+(?:changes?|edits?|modifications?|tweaks?|amendments?)\b",
    re.I,
)
# What a word stands for where it asks to recall, not to store.
_LOOKED_UP = frozenset({"search", "read"})
# In a question ("What do you remember about Anna?") these words ask to recall.
_RECALLED = frozenset({"remember", "note", "know"})
_QUESTION = re.compile(
    r"^\s*(?:what|who|whom|which|when|where|why|how|do|does|did|is|are|can|could)\b|\?\s*$", re.I
)
# Words a question may open with before what it asks: "so how would I ...", "ok, should I ...",
# "Thanks. Separately, what's a .gitignore file?".
_LEAD_IN = (
    r"^\W*(?:(?:and|so|but|ok|okay|hey|hi|please|thanks|thank\s+you|cool|great|got\s+it|separately|also"
    r"|then|now)\W+)*"
)
# The openings of a question that asks for an explanation or advice about a change, not for the change.
_HOW_OR_WHETHER = re.compile(
    _LEAD_IN
    + r"(?:how\s+(?:do|does|can|could|should|would|to|is|are)\b|what\s+(?:happens|would\s+happen|if)\b"
    r"|why\b|should\s+(?:i|we|you)\b|is\s+it\s+(?:safe|wise|ok|okay|dangerous|bad|a\s+good|a\s+bad)\b"
    r"|when\s+should\b)",
    re.I,
)
# The openings of a question about how the asker would do something ("How do I check disk space from
# the command line?", "how would I delete a remote branch"): it asks for instructions. Not "How to ...",
# which also opens requests ("How to obtain the details of the R vs Adams case?"), nor "How can you ...".
_HOW_I_WOULD = _LEAD_IN + r"how\s+(?:do|can|could|should|would)\s+(?:i|we|one)\b"
# The openings of a request for the assistant's own suggestions ("Can you suggest a good commit message
# for fixing a typo?", "Give me three tips for sleeping better", "Any tips for ...?", "What would you
# recommend ...?"): it asks for words, though it may name what a tool changes.
_SUGGESTION = (
    _LEAD_IN + r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:suggest|recommend|brainstorm)\b|(?:give|share|offer)\s+(?:me\s+|us\s+)?(?:some\s+|a\s+few\s+|\w+\s+)?"
    r"(?:good\s+|quick\s+)?(?:tips|ideas|advice|suggestions|pointers|recommendations)\b(?!\.\w)"
    r"|(?:any|some)\s+(?:tips|ideas|advice|suggestions)\b(?!\.\w)"
    r"|(?:what|which)\s+(?:\w+\s+)?(?:would|do)\s+you\s+(?:suggest|recommend)\b)"
)
# The openings of a question of what a term means ("what does TOPS mean?", "what is a detached HEAD in
# git?", "Explain in one sentence what a CPU is", "wats a pull request"): a definition. Not "what does
# the homepage say", nor "what is the size of ...", which ask for a thing's own content or state.
_DEFINITION = (
    _LEAD_IN + r"(?:(?:can|could|would)\s+you\s+(?:please\s+)?)?(?:"
    r"(?:what|wat|wht)\s+(?:does|do)\s+[^?]{1,40}?\s(?:mean|stand\s+for|do)\b"
    r"|(?:what(?:'s|\s+is|\s+are)|wats|whats|wat\s+is)\s+(?:a|an)\s+\S"
    r"|expla\w*\b[^?.]{0,30}?\b(?:what|how|why)\s+(?:a|an)\s+\S"
    r"|define\b|what\s+is\s+the\s+meaning\s+of\b)"
)
# The openings of a question that asks for advice or a reason ("Should I squash my commits?", "Is it
# safe to delete the .cache folder?", "Why does Linux show so little free memory?").
_ADVICE = (
    _LEAD_IN + r"(?:(?:should|shoud)\s+(?:i|we|our|my|one)\b"
    r"|is\s+it\s+(?:safe|wise|ok|okay|dangerous|bad|a\s+good|a\s+bad|worth)\b"
    r"|(?:why|y)\s+(?:does|do|is|are|did|would|can)\b)"
)
_ASKS_FOR_WORDS = re.compile(f"{_HOW_I_WOULD}|{_SUGGESTION}|{_DEFINITION}|{_ADVICE}", re.I)
# A question of what the asker once told or wrote ("Did I ever mention somebody called Ibrahim?", "what
# did i write down about the wifi", "What's my garage code? I'm sure I told you before.", "How long do I
# boil it, according to my recipe?"): only the asker's records hold the answer.
_RECORDED = re.compile(
    r"\b(?:did|have|had)\s+i\s+(?:ever\s+|already\s+|once\s+)?(?:mention\w*|say|said|tell|told|write|written"
    r"|wrote|note\w*|save\w*|store\w*|put|record\w*|keep|kept)\b"
    r"|\bi(?:'ve|\s+have)?\s+(?:once\s+|already\s+)?(?:told|said\s+to|mentioned\s+to)\s+you\b"
    r"|\baccording\s+to\s+my\b",
    re.I,
)
# A request to keep what the asker says ("Remember that my sister lives in Lyon.", "my car is a 2019
# Skoda Octavia, keep that in mind", "Note that down.", "don't forget that"): a statement to the
# probe, which read 3 of the 18 in the calibration sets as chat out of fold. "remember" counts where
# it begins a request, not after a subject ("how can I remember names", "do you remember things?") nor
# before a question word ("remember when we ...").
_KEEP = re.compile(
    r"(?:^|[,.;:!?]\s*|\b(?:please|pls|and|also|so|just|now|could\s+you|can\s+you|would\s+you|will\s+you)\s+)"
    r"(?:remember|memori[sz]e|note\s+down|jot\s+down)\b(?!\s+(?:when|how|what|why|who|where|if|whether)\b)"
    r"|\b(?:keep|bear)\s+(?:that|this|it)\s+in\s+mind\b"
    r"|\b(?:note|jot|write|put)\s+(?:that|this|it)\s+down\b"
    r"|\bmake\s+a\s+note\s+(?:that|of)\b"
    r"|\bdon[’']?t\s+(?:let\s+me\s+)?forget\s+(?:that|this|it)\b",
    re.I,
)
# An act the question asks about as done, by the asker or anyone ("did I ever write ...", "have you
# saved ...", "did anyone commit ..."): its verb is looked up, not asked for.
_PAST_ACT = re.compile(
    r"\b(?:did|have|has|had)\s+(?:i|you|we|they|he|she|anyone|anybody|someone|somebody|\w+\s+else)\s+"
    r"(?:ever\s+|already\s+|once\s+|last\s+|just\s+)?(?P<verb>\w+)",
    re.I,
)
# A verb the question says not to do or would hate to see done, or the asker's own forgetting ("don't
# let me forget it", "never delete the logs", "I'd hate to forget that", "I don't want to forget it",
# "before I forget", "I keep forgetting what I put in ..."): no tool verb is asked for by it. "My
# sister Anna's birthday is on 12 May, don't let me forget it" read as a deletion, and its follow-up
# "Also, she lives in Lyon." deleted Anna.
NEGATED = r"(?:don[’']?t|do\s+not|never|won[’']?t|will\s+not)"  # what says a verb is not to be done
_NOT_ASKED = re.compile(
    rf"\b{NEGATED}\s+(?:let\s+(?:me|us|you)\s+|ever\s+|you\s+|want\s+(?:you\s+)?to\s+)?(?P<verb>\w+)"
    r"|\b(?:hate|hating|hated)\s+to\s+(?P<averse>\w+)"
    r"|\b(?:i|we)(?P<own>(?:[’'](?:ll|d)|\s+(?:will|might|may|would|always|often|sometimes|keep|kept|tend\s+to|just))*"
    r"\s+forg[eo]t\w*)",
    re.I,
)
# Words by which a request speaks of something already kept, to change it ("Sophie speaks Japanese too,
# add that to her entry", "Update what you know about my dentist", "Also, she lives in Lyon").
_KEPT = re.compile(
    r"\b(?:also|too|as\s+well|update|entry|already|no\s+longer|any\s?more)\b"
    r"|\bwhat\s+you\s+(?:know|remember|have|kept|keep)\b",
    re.I,
)
# What a tool's description says where it changes something that exists.
_EXISTING = re.compile(r"\bexisting\b", re.I)
# The openings of a request to work out a value from one it gives, the number right after its verb
# ("Convert 100 Fahrenheit to Celsius", "could you calculate 15% of 80"; not "Convert the CPU
# temperature to Fahrenheit, is it over 100?").
_WORKS_OUT = re.compile(
    _LEAD_IN + r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:convert|calculate|compute|work\s+out)"
    r"\s+(?:what\s+(?:is\s+)?)?(?:about\s+)?-?\d",
    re.I,
)
# Actions that change something, and other words that ask for a change.
_CHANGING_ACTIONS = frozenset({"write", "edit", "move", "delete", "create", "sum", "echo"})
# The changes that may take something away: deleting it, or editing it into something else.
_TAKING_AWAY = frozenset({"delete", "edit"})
_CHANGING_WORDS = frozenset(
    terms("commit stage checkout switch branch start turn toggle stop run compress download fetch send")
)
# A word after one that opens a thing's name ("which branch", "the last commit", "my run"): a noun.
_NAMED_THING = re.compile(
    r"\b(the|a|an|which|what|this|that|my|your|our|its|their|each|every)"
    r"(?:\s+(?:current|latest|last|first|next|previous|new|old|other))*\s+\w+",
    re.I,
)
_URL = re.compile(r"https?://\S+|\b[\w-]+\.(?:com|org|net|io|dev)\b")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")
_NAMES = re.compile(r"https?://\S+|\S+\.\w{1,5}\b|\S+/\S*")
# The argument kinds that can take each naming value of a question.
# A date argument's description that also takes dates relative to today.
_RELATIVE_DATES = re.compile(r"\b(?:relative|today|tomorrow|yesterday|ago|natural language)\b", re.I)
_PLACES = {"file": {"path"}, "directory": {"path", "directory"}, "url": {"url"}}


@cache
def _action_of() -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for action, words in ACTIONS.items():
        for word in terms(words):
            found.setdefault(word, set()).add(action)
    return {word: frozenset(actions) for word, actions in found.items()}


def is_action_word(word: str) -> bool:
    """Whether ``word`` stands for a tool verb (ACTIONS) or asks for a change: "Switch", "delete"."""
    return any(term in _action_of() or term in _CHANGING_WORDS for term in terms(word))


def _plain_words(query: str) -> list[str]:
    """The query's terms outside file names and addresses ("notes.txt" is not the verb "note"), each
    phrasal verb read as the one verb it means (_PHRASAL_VERBS) and each misspelt word as the word it
    stands for, ACTIONS' words first ("delte", "serch", "chnage": agent/typed_words.py)."""
    plain = _NAMES.sub(" ", query)
    for phrase, verb in _PHRASAL_VERBS:
        plain = phrase.sub(f" {verb} ", plain)
    return terms(read_as_meant(plain, _action_words()))


@cache
def _action_words() -> frozenset[str]:
    return frozenset(_action_of())


def _done_verbs(query: str) -> set[str]:
    """The terms of the verbs of acts the question asks about as done (_PAST_ACT)."""
    return {word for match in _PAST_ACT.finditer(query) for word in terms(match.group("verb"))}


def _without_unasked_verbs(query: str) -> str:
    """``query`` with each verb it says not to do, or says the asker does (_NOT_ASKED), blanked where
    it stands: "Delete old.log but don't delete new.log" still asks for the first deletion."""
    return _NOT_ASKED.sub(lambda m: query[m.start() : m.start(m.lastgroup or 0)] + " ", query)


def _actions(query: str) -> list[tuple[str, frozenset[str]]]:
    """Each plain word of the query with the tool verbs it stands for: in a question, "remember"
    stands for search and read, and so does the verb of an act the question asks about as done ("what
    did I write down about the wifi", "did anyone ever commit something about the cactus?"): the
    writing is looked up, not done again. A verb the question says not to do ("don't let me forget
    it") or the asker's own forgetting ("before I forget") is no word of it (_without_unasked_verbs)."""
    table = _action_of()
    asking = asks_something(query)
    done = _done_verbs(query)
    return [
        (word, _LOOKED_UP if (asking and word in _RECALLED) or word in done else table.get(word, frozenset()))
        for word in _plain_words(_without_unasked_verbs(query))
    ]


def verbs_asked(query: str) -> frozenset[str]:
    """The tool verbs (ACTIONS' keys) the question's words stand for, as _actions reads them."""
    return frozenset(a for _word, actions in _actions(query) for a in actions)


@lru_cache(maxsize=4096)
def tool_verbs(tool: ToolSpec) -> frozenset[str]:
    """The tool verbs (ACTIONS' keys) the words of the tool's name stand for (delete_entities:
    delete; read_graph: read)."""
    return frozenset(a for word in terms(tool.tool_name) for a in _action_of().get(word, ()))


def expanded_terms(query: str) -> list[str]:
    """The query's BM25 terms followed by the tool verbs its words stand for."""
    return terms(query) + [a for _word, actions in _actions(query) for a in sorted(actions)]


def asks_something(query: str) -> bool:
    """Whether ``query`` is a question (by its first word or its question mark), not a statement."""
    return _QUESTION.search(query) is not None


def asks_how_or_whether(query: str) -> bool:
    """Whether the question asks how a thing is done, whether it is wise, or what would happen ("How
    do I undo my last commit?", "Should I delete old logs?", "What happens if I reset?"): it asks for
    an explanation, even where it names a change."""
    return _HOW_OR_WHETHER.search(query) is not None


def asks_for_words(query: str) -> bool:
    """Whether the question asks for words no tool's call gives: how the asker would do something
    ("How do I check free memory on Linux?"), the assistant's suggestions ("Can you suggest a
    commit message?", "Give me three tips for ..."), what a term means ("What does RAM stand
    for?"), advice or a reason ("Should I ...?", "Is it safe to ...?", "Why does ...?")."""
    return _ASKS_FOR_WORDS.search(query) is not None


def asks_what_i_recorded(query: str) -> bool:
    """Whether the question asks what the asker once told or wrote down ("Did I ever mention ...?",
    "Who did I say was leading the migration?"): a task for a tool that keeps records, however much
    it reads like a chat."""
    return _RECORDED.search(query) is not None


def asks_to_keep(query: str) -> bool:
    """Whether the question asks the assistant to keep what it says ("remember that ...", "keep that
    in mind", "note it down"): a task for a tool that keeps records, however much it reads like a
    statement."""
    return _KEEP.search(query) is not None


def speaks_of_kept(query: str) -> bool:
    """Whether the question speaks of something already kept ("also", "too", "her entry", "what you
    know about ..."): a change to it adds to what exists rather than making a new one."""
    return _KEPT.search(query) is not None


@lru_cache(maxsize=4096)
def acts_on_existing(tool: ToolSpec) -> bool:
    """Whether the tool changes something that exists: its description says so ("Add new observations
    to existing entities"), or its name says it deletes (what it deletes exists). "Drop 'vegetarian'
    from Pete's entry" speaks of something kept and asks to remove from it: the kept bonus must not
    go to the one tool that adds."""
    return _EXISTING.search(tool.description) is not None or deletes(tool)


@lru_cache(maxsize=4096)
def deletes(tool: ToolSpec) -> bool:
    """Whether the tool's name says it deletes (delete_entities, remove_file, drop_table)."""
    return "delete" in tool_verbs(tool)


def asks_only_to_add(query: str) -> bool:
    """Whether the question's words ask for changes and none of them takes anything away: "Remember
    that my NAS has 8 GB of RAM" asks to keep a fact, "move notes.txt into archive" to move a file;
    neither asks a tool that deletes for anything. An edit may ("Update what you know about my
    dentist: the practice has moved" drops the old address), and a question without a word for its
    change says nothing of what it takes away."""
    asked = verbs_asked(query) & _CHANGING_ACTIONS
    return bool(asked) and not asked & _TAKING_AWAY


def takes_away_changes_alone(query: str) -> bool:
    """Whether each word of the question that takes something away takes away changes made to a thing,
    not the thing: "discard the changes I made to notes.txt", "throw away my local edits to app.py".
    A tool that deletes takes the thing itself, the whole file; a question that asks for its changes
    to go asks no such tool for anything."""
    ends = [match.end() for pattern in _TAKING_AWAY_WORDS for match in pattern.finditer(query)]
    return bool(ends) and all(_CHANGES_NEXT.match(query, end) for end in ends)


def asks_for_change(query: str) -> bool:
    """Whether the question asks to change something (write, delete, commit, start ...). A word of
    _CHANGING_WORDS after a word that opens a thing's name is that thing, not the act: "which branch is
    checked out?" asks what is, and called git_checkout with the branch "checked"."""
    found = _actions(query)
    if any(actions & _CHANGING_ACTIONS for _word, actions in found):
        return True
    acted = {word for word, _actions in _actions(_NAMED_THING.sub(r"\1 ", query))}
    return bool(acted & _CHANGING_WORDS - _done_verbs(query))


def question_cues(query: str) -> dict[str, int]:
    """How many values of each typed kind the question holds (for argument_fit; compute once per
    question)."""
    paths = path_values(query)
    return {
        "path": len(paths),
        "file": sum(1 for p in paths if FILE_NAME.search(p)),
        "directory": sum(1 for p in paths if not FILE_NAME.search(p)),
        "url": len(_URL.findall(query)),
        "zone": len(named_timezones(query)),
        "time": len(clock_times(query)),
        "date": len(written_dates(query)),
        "number": len(_NUMBER.findall(query)),
    }


_MANY = 1_000  # the values of its kind a list argument takes: any number


@lru_cache(maxsize=4096)
def _argument_kinds(tool: ToolSpec) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
    """How many arguments of ``tool`` are of each typed kind, and the kinds of its required ones. An
    argument EdgeHost knows the value of (agent/known_arguments.py) asks nothing of the question."""
    kinds = {
        name: _kind(name, schema, tool.tool_name)
        for name, schema in tool.properties.items()
        if name not in tool.known_arguments
    }
    # A list takes as many values of its kind as the question has ("Open notes.txt and todo.md" fills
    # read_multiple_files' paths twice, read_file's path once).
    counts: Counter[str] = Counter()
    for name, kind in kinds.items():
        if kind is not None:
            counts[kind] += _MANY if _is_list(tool.properties[name]) else 1
    required = tuple(kind for name, kind in kinds.items() if kind is not None and name in tool.required)
    return tuple(counts.items()), required


def _is_list(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "array"


def _kind(name: str, schema: Any, tool_name: str) -> str | None:
    if not isinstance(schema, Mapping):
        return None
    description = str(schema.get("description") or "")
    text = f"{name} {description}".lower()
    if "url" in text or schema.get("format") == "uri":
        return "url"
    if is_folder_argument(name, schema, tool_name):
        return "directory"
    if wants_zone(name, description):
        return "zone"
    if "HH:MM" in description:
        return "time"
    # A date in a set layout ("format: yyyy-mm-dd") is one the question writes, which
    # agent/grounded_arguments.py lays out so (agent/question_dates.py: "March 3, 2024", "tomorrow",
    # "next Friday"): "visits last year" gives no start_date, a range being no date. Not one that also
    # takes "today" or "2 weeks ago" as written, nor a date-time (a date alone does not fill it).
    if (schema.get("format") == "date" or DATE_FORMAT.search(description)) and not _RELATIVE_DATES.search(
        description
    ):
        return "date"
    if PATH_ARGUMENT.search(name):
        return "path"
    if schema.get("type") in ("number", "integer"):
        return "number"
    return None


def lacks_required_values(cues: Mapping[str, int], tool: ToolSpec) -> bool:
    """Whether the question (its ``cues``) holds no value of some typed argument ``tool`` requires
    (a path, a URL, a time zone ...) that EdgeHost does not know itself."""
    _counts, required = _argument_kinds(tool)
    return any(not cues[kind] for kind in required)


def _gives_no_required_values(cues: Mapping[str, int], tool: ToolSpec) -> bool:
    """Whether ``tool`` requires two or more typed values EdgeHost does not know (a time and two
    time zones, a source and a destination), and the question (its ``cues``) holds a value of none
    of their kinds: "Convert 100 Fahrenheit to Celsius" gives convert_time no time and no zone."""
    _counts, required = _argument_kinds(tool)
    return len(required) >= 2 and not any(cues[kind] for kind in required)


def cannot_fill(query: str, tool: ToolSpec) -> bool:
    """Whether ``query`` cannot fill a call of ``tool``: it writes fewer numbers than the tool
    requires, or none of the two or more typed values it requires, or it asks to work out something
    from a number it gives and the tool takes nothing (_numbers_missing, _gives_no_required_values,
    _takes_no_value_given)."""
    return (
        _numbers_missing(query, tool) > 0
        or _gives_no_required_values(question_cues(query), tool)
        or _takes_no_value_given(query, tool)
    )


def _takes_no_value_given(query: str, tool: ToolSpec) -> bool:
    """Whether ``query`` asks to work a number it writes into something ("Convert 100 Fahrenheit to
    Celsius", "calculate 15% of 80") and ``tool`` takes no argument EdgeHost does not know: it reads
    its own state (board__temperatures, the board's sensors) and cannot be given the number."""
    return not set(tool.properties) - set(tool.known_arguments) and _WORKS_OUT.search(query) is not None


def _numbers_missing(query: str, tool: ToolSpec) -> int:
    """How many more numbers ``tool`` requires (its required number arguments without choices of their
    own, that EdgeHost does not know) than ``query`` writes ("Calculate the prime factors of 100"
    gives one of the four a compound-interest tool needs)."""
    return max(0, _required_numbers(tool) - len({start for _v, start, _e in written_numbers(query)}))


@lru_cache(maxsize=4096)
def required_free_arguments(tool: ToolSpec, kinds: tuple[str, ...]) -> tuple[str, ...]:
    """The arguments of the JSON types ``kinds`` that ``tool`` requires, with no choices and no default
    of their own, and that EdgeHost does not know."""
    return tuple(
        name
        for name, schema in tool.properties.items()
        if name in tool.required
        and name not in tool.known_arguments
        and isinstance(schema, Mapping)
        and schema.get("type") in kinds
        and not {"enum", "const", "default"} & set(schema)
    )


def _required_numbers(tool: ToolSpec) -> int:
    return len(required_free_arguments(tool, ("integer", "number")))


def argument_fit(cues: Mapping[str, int], tool: ToolSpec) -> int:
    """+1 for each typed argument of ``tool`` the question has a value for (``cues``, from
    question_cues: of each kind, as many arguments as the question has values), -1 for each required
    typed argument whose kind the question holds no value of."""
    counts, required = _argument_kinds(tool)
    filled = sum(min(count, cues[kind]) for kind, count in counts)
    missing = sum(1 for kind in required if not cues[kind])
    # A file name, a folder or an address says what the question is about: a tool that cannot take
    # it is off the point (a file name is no directory).
    takes = {kind for kind, _count in counts}
    unplaced = sum(1 for value, kinds in _PLACES.items() if cues[value] and not takes & kinds)
    return filled - missing - unplaced
