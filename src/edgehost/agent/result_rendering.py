"""What the user reads of a tool's result after calls EdgeHost chose (decision 11): the result rendered
short and readable, then the model's reply; marked as the model's where it does not stand
(agent/grounding.py says when)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from edgehost.agent.grounding import NOTHING_RETURNED, Grounding, echoes, has_words, is_empty_result

__all__ = [
    "NOT_RUN",
    "answer_with_results",
    "render_result",
    "rendered_results",
    "ungrounded_answer_text",
    "without_result_frames",
]

SUMMARY_MAX_LINES = 12
SUMMARY_LINE_CHARS = 160


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _lines(value: Any, indent: str = "") -> Iterable[str]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, (Mapping, list)) and item:
                yield f"{indent}- {key}:"
                yield from _lines(item, indent + "  ")
            else:
                yield f"{indent}- {key}: {_scalar(item) if item not in ({}, []) else 'none'}"
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, Mapping) and all(not isinstance(v, (Mapping, list)) for v in item.values()):
                yield f"{indent}- " + ", ".join(f"{k} {_scalar(v)}" for k, v in item.items())
            elif isinstance(item, (Mapping, list)):
                yield f"{indent}-"
                yield from _lines(item, indent + "  ")
            else:
                yield f"{indent}- {_scalar(item)}"
    else:
        yield f"{indent}{_scalar(value)}"


def render_result(text: str, max_lines: int = SUMMARY_MAX_LINES) -> str:
    """A short, readable form of a tool result: structured content (JSON) as an indented list of
    ``key: value`` lines, other text as its first lines, a note written after the JSON (EdgeHost's,
    agent/unchanged_calls.py) under them; at most ``max_lines`` lines."""
    stripped = text.strip()
    try:
        value, end = json.JSONDecoder().raw_decode(stripped)
    except (json.JSONDecodeError, ValueError):
        value, end = None, 0
    if isinstance(value, (Mapping, list)):
        after = stripped[end:].strip()
        lines = (list(_lines(value)) or ["(empty)"]) + (["", *after.splitlines()] if after else [])
    else:
        lines = [line.rstrip() for line in stripped.splitlines()] or ["(empty)"]
    lines = [
        line if len(line) <= SUMMARY_LINE_CHARS else line[: SUMMARY_LINE_CHARS - 1] + "…" for line in lines
    ]
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"… ({len(lines) - max_lines} more lines in the tool card)"]
    return "\n".join(lines)


# A small model that has read framed results writes frames of its own, spelt its own way ("The quick
# brown fox [RESULT name=everything__echo]"): the backend's stop sequences match only the exact frames
# (agent/reply_round.py, RESULT_FRAMES). It copies the heading of a result the host rendered in an
# earlier answer too ("**memory__delete_relations** returned:" over observations it made up).
_RESULT_FRAME = re.compile(
    r"\[\s*/?\s*(?:end[\s_]*)?(?:tool[\s_]*)?result\b[^\]\n]*\]?|\*\*[\w.-]+\*\*\s+(?:returned|was\s+not\s+run):",
    re.IGNORECASE,
)


def without_result_frames(answer: str) -> str:
    """``answer`` up to the first result frame the model wrote itself (a result is never the
    model's to write), its trailing space removed; the answer as it is when it writes none."""
    match = _RESULT_FRAME.search(answer)
    return answer if match is None else answer[: match.start()].rstrip()


NOT_RUN = (
    "Not run: "  # how a result the user reads begins when the call was refused ("Not run: you denied it")
)


def rendered_results(results: Sequence[tuple[str, str]]) -> str:
    """Each result rendered under its tool's name. ``results`` are (tool name, result text) pairs."""
    return "\n\n".join(
        f"**{name}** was not run: {text.removeprefix(NOT_RUN)}"
        if text.startswith(NOT_RUN)
        else f"**{name}** returned:\n\n{render_result(text)}"
        for name, text in results
    )


def answer_with_results(results: Sequence[tuple[str, str]], model_text: str) -> str:
    """What the user reads after calls EdgeHost chose, when the model's answer is grounded: each result
    rendered, then the answer; the results alone when the answer only repeats one of them."""
    rendered = rendered_results(results)
    if echoes(model_text, [text for _name, text in results]):
        return rendered
    return f"{rendered}\n\n{model_text.strip()}"


def ungrounded_answer_text(results: Sequence[tuple[str, str]], model_text: str, grounding: Grounding) -> str:
    """What the user reads instead of an ungrounded answer: each result rendered, then the model's own
    text marked as such (left out when empty). ``results`` are (tool name, result text) pairs."""
    parts = [rendered_results(results)]
    if has_words(model_text) and not grounding.says_nothing:
        quoted = "\n".join(f"> {line}" for line in model_text.strip().splitlines())
        if grounding.nothing_to_go_on or all(is_empty_result(text) for _name, text in results):
            # Nothing to contradict: the reply may even say so, but none of it comes from the tool.
            reason = grounding.reason if grounding.nothing_to_go_on else NOTHING_RETURNED
            mark = f"*The model's reply, which has nothing from the tool to go on ({reason}):*"
        else:
            mark = f"*The model's reply, which does not match this result ({grounding.reason}):*"
        parts.append(f"{mark}\n\n{quoted}")
    return "\n\n".join(parts)
