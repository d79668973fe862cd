"""What the arguments of one object decide together about the values each is offered
(agent/grounded_arguments.py grounds each argument alone first): a list of statements takes the facts
the question tells whole and the names beside it the words of those facts; the words of a path are no
value of the other text arguments, nor are a date's or a clock time's where a date argument takes
them; a search that cannot look by name must be given a text to look for. Pure functions over the
declared properties (``own``) and the properties as grounded so far.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from edgehost.agent.known_arguments import PATH_ARGUMENT
from edgehost.agent.paired_arguments import free_texts, key_words, takes_a_moment
from edgehost.agent.question_dates import holds_a_moment
from edgehost.agent.question_values import question_spans, quoted_phrases
from edgehost.agent.value_fit import written_names
from edgehost.agent.written_texts import told_facts

__all__ = [
    "NAMES_A_FILE",
    "free_text_list",
    "moments_apart",
    "names_a_place",
    "offered_told_facts",
    "places_apart",
    "text_instead_of_names",
]

# The words of the name of a list that holds statements, not names: a memory's observations.
_STATEMENTS = frozenset({"observations", "contents", "facts", "statements", "notes"})
# An argument described as a file's name or a pattern of names, and a glob a question writes ("*.md").
NAMES_A_FILE = re.compile(r"\bfile\s?names?\b|\bglob\b", re.IGNORECASE)
# The words of a path or of a value, for telling whether they share one ("notes" and "txt").
_PARTS = re.compile(r"[^\W_]+")


def free_text_list(own: Mapping[str, Any], key: str, grounded: Any) -> bool:
    """Whether the argument ``key`` (``own``: the properties as declared; ``grounded``: its schema as
    grounded) is a list of text with no choices of its own."""
    declared = own.get(key)
    return (
        isinstance(grounded, Mapping)
        and grounded.get("type") == "array"
        and isinstance(declared, Mapping)
        and isinstance(declared.get("items"), Mapping)
        and declared["items"].get("type") == "string"
        and not {"enum", "const"} & (set(declared["items"]) | set(declared))
    )


def offered_told_facts(own: Mapping[str, Any], properties: dict[str, Any], text: str) -> dict[str, Any]:
    """``properties`` with each list of statements (a list of text named for contents, observations or
    facts: the memory server's observations) offered the facts the question tells, whole
    (written_texts.told_facts): offered runs of up to four words, the 135M model kept "code" of "my
    bike lock code is 4512" and "flowerpot" of "the spare key is under the blue flowerpot". The
    other text arguments beside it (the entity's name and type) are offered the words of those facts."""
    facts = told_facts(text)
    if not facts:
        return properties
    lists = [
        key
        for key, value in properties.items()
        if free_text_list(own, key, value) and key_words(key) & _STATEMENTS
    ]
    if not lists:
        return properties
    # What the facts are about is in them, or named where the request points at it: the entity's name
    # and type are words of a fact or a name ("Add to Ms Okoye's entry that she covers chemistry"), not
    # other words of the request ("Commit" of "Commit this to memory: ...").
    inside = {span for fact in facts for span in question_spans(fact)} | set(written_names(text))
    named = {
        key: {**properties[key], "enum": kept}
        for key in free_texts(own, properties)
        if isinstance(properties[key].get("enum"), list)
        and (kept := [v for v in properties[key]["enum"] if v in inside])
    }
    return {**properties, **named, **{key: {**properties[key], "enum": [facts]} for key in lists}}


def text_instead_of_names(own: Mapping[str, Any], properties: dict[str, Any], needed: set[str]) -> list[str]:
    """The text argument a search must be given where it cannot look by name: a tool that finds files
    by a name pattern or by the text they hold (search_files' pattern and contains, both optional)
    was offered no name, as the question writes none; left to the model, the 135M one gave neither,
    and the server refused the call. The first other text argument it is offered values for is then
    required, unless one already is."""
    unnamed = any(
        key not in properties
        and isinstance(value, Mapping)
        and NAMES_A_FILE.search(str(value.get("description") or ""))
        for key, value in own.items()
    )
    texts = [key for key in _offered_texts(own, properties) if properties[key]["enum"]]
    if not unnamed or not texts or needed & set(texts):
        return []
    return texts[:1]


def _offered_texts(own: Mapping[str, Any], properties: dict[str, Any]) -> list[str]:
    """The free text arguments of ``properties`` that are not paths or file names, offered a list of
    values."""
    return [
        key
        for key in free_texts(own, properties)
        if not names_a_place(key, own) and isinstance(properties[key].get("enum"), list)
    ]


def names_a_place(key: str, own: Mapping[str, Any]) -> bool:
    """Whether the argument ``key`` (of an object whose properties are ``own``) is a path, or a file's
    name or pattern by its description."""
    described = own.get(key)
    description = str(described.get("description") or "") if isinstance(described, Mapping) else ""
    return bool(PATH_ARGUMENT.search(key) or NAMES_A_FILE.search(description))


def places_apart(
    own: Mapping[str, Any],
    properties: dict[str, Any],
    named: frozenset[str],
    text: str,
    given: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """``properties`` with the words of the paths offered to a path argument taken from the other text
    arguments: the file or folder a question names is where the tool acts, not what it looks for.
    "Do any of my recipes use garlic? (recipes/)" offered search_files "recipes" as its pattern and
    as the text to find, and the 135M model searched the folder for the word "recipes"; offered "recipes
    use" beside "garlic", it searched for "recipes use": a run of words with a word of the place in it
    is taken out too. Words of the tool's name (``named``) go with them: "md files" of "find all the
    .md files" is the pattern "*.md" told again, not a text to find. A phrase ``text`` quotes is the
    user's own ("with the message 'Update README'"), and an argument left with nothing else keeps
    them. A place argument the host knows is read by what the question ``given`` it, not by the
    paths it writes (grounded_arguments._given_places)."""
    given = given or {}
    paths = [
        value
        for key, schema in properties.items()
        if names_a_place(key, own) and isinstance(schema, Mapping)
        for value in (given[key] if key in given else schema.get("enum") or ())
        if isinstance(value, str) and value
    ]
    if not paths:
        return properties
    in_paths = {word.lower() for path in paths for word in _PARTS.findall(path)} | named
    quoted = set(quoted_phrases(text))
    return _set_apart(
        own,
        properties,
        lambda v: v not in quoted and not in_paths.isdisjoint(w.lower() for w in _PARTS.findall(v)),
    )


def _set_apart(
    own: Mapping[str, Any],
    properties: dict[str, Any],
    taken: Callable[[str], bool],
    skip: Callable[[str], bool] = lambda _key: False,
) -> dict[str, Any]:
    """``properties`` with the values ``taken`` says another argument has taken out of each offered
    text argument's (but those ``skip`` names); an argument left with nothing else keeps them."""
    apart = {
        key: {**properties[key], "enum": kept}
        for key in _offered_texts(own, properties)
        if not skip(key) and (kept := [v for v in properties[key]["enum"] if not taken(v)])
    }
    return {**properties, **apart}


def moments_apart(own: Mapping[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
    """``properties`` with the values that write a date or a clock time taken from the other text
    arguments where a date or date-time argument is offered the question's: "Add a dentist
    appointment tomorrow at 3pm" offered the title "appointment tomorrow at 3pm" beside the start
    it gives. An argument left with nothing else keeps them."""
    if not any(
        takes_a_moment(key, own.get(key)) and isinstance(value, Mapping) and value.get("enum")
        for key, value in properties.items()
    ):
        return properties
    return _set_apart(
        own,
        properties,
        lambda v: isinstance(v, str) and holds_a_moment(v),
        lambda key: takes_a_moment(key, own.get(key)),
    )
