"""The system prompt: a compact tools section for small models, and how tool results go back.

Templates are plain text files in resources/prompts/ (`system.md`, `tools.md`) with `$name`
placeholders; a user can copy them into a folder of their own and pass that folder to `load_template`.
Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from string import Template
from typing import Any

from edgehost.agent.detector import dialect_example
from edgehost.agent.tools import ToolSpec
from edgehost.llm.base import Capabilities, ChatMessage, estimate_tokens
from edgehost.paths import shipped_dir

__all__ = [
    "DEFAULT_DIALECT",
    "MAX_SERVER_INSTRUCTIONS_CHARS",
    "RESULT_CLOSE",
    "RESULT_OPEN",
    "RESULT_PREFIX",
    "build_system_prompt",
    "choose_dialect",
    "estimate_tokens",
    "example_arguments",
    "format_tool_result",
    "load_template",
    "one_line",
    "prompt_messages",
    "prompts_dir",
    "render_tool_entry",
    "render_tools_section",
    "tool_result_message",
    "tools_section_frame",
]

DEFAULT_DIALECT = "bracket"
# Longer server instructions cost more context than they are worth on a 2-8k model.
MAX_SERVER_INSTRUCTIONS_CHARS = 300
MAX_DESCRIPTION_CHARS = 160
# How a tool result is framed in a user turn when the chat template has no tool role.
RESULT_OPEN = "[TOOL_RESULT name={name}]"
RESULT_CLOSE = "[END_TOOL_RESULT]"
RESULT_PREFIX = RESULT_OPEN.split(" ", 1)[0]  # what every framed result starts with

CountTokensFn = Callable[[str], int]


@functools.lru_cache(maxsize=1)
def prompts_dir() -> Path:
    """The folder of the shipped prompt templates. Raises FileNotFoundError when it is missing."""
    return shipped_dir("resources") / "prompts"


def load_template(name: str, directory: Path | None = None) -> str:
    """The text of template `name` ("system.md", "tools.md"): the user's copy in `directory` when it
    has one, else the shipped one. Raises FileNotFoundError when neither exists. The user's copy is
    read again when it changed, the shipped one once (every turn renders the prompt)."""
    if directory is not None:
        user = directory / name
        try:
            return _read_template(user, user.stat().st_mtime_ns)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            pass
    return _shipped_template(name)


@functools.lru_cache(maxsize=16)
def _read_template(path: Path, mtime_ns: int) -> str:
    return path.read_text(encoding="utf-8")


@functools.lru_cache(maxsize=8)
def _shipped_template(name: str) -> str:
    """A shipped template, read once (the package does not change under a running app)."""
    return (prompts_dir() / name).read_text(encoding="utf-8")


def choose_dialect(capabilities: Capabilities) -> str:
    """The model's native tool format when its chat template supports tools, else `bracket`."""
    if capabilities.supports_native_tools and capabilities.native_tool_dialect:
        return capabilities.native_tool_dialect
    return DEFAULT_DIALECT


def one_line(text: str, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """The first sentence (or line) of a description, at most `limit` characters."""
    text = " ".join(text.split())
    match = re.search(r"(?<=[.!?])\s", text)
    first = text[: match.start()] if match else text
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def _type_of(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "any"
    if "enum" in schema and isinstance(schema["enum"], list):
        return "|".join(json.dumps(v) for v in schema["enum"][:6])
    if "const" in schema:
        return json.dumps(schema["const"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            types = [
                _type_of(s) for s in schema[key] if not (isinstance(s, Mapping) and s.get("type") == "null")
            ]
            return "|".join(dict.fromkeys(types)) or "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind if k != "null") or "any"
    if kind == "array":
        return f"{_type_of(schema.get('items'))}[]"
    return str(kind) if kind else "any"


@functools.lru_cache(maxsize=2048)
def render_tool_entry(tool: ToolSpec) -> str:
    """One line per tool: `- name(arg: type, optional?: type): first sentence of the description`."""
    arguments = ", ".join(
        f"{name}{'' if name in tool.required else '?'}: {_type_of(schema)}"
        for name, schema in tool.properties.items()
    )
    description = one_line(tool.description or tool.title or "")
    return f"- {tool.name}({arguments})" + (f": {description}" if description else "")


def _example_value(schema: Any) -> Any:
    if not isinstance(schema, Mapping):
        return "text"
    for key in ("default", "const"):
        if key in schema:
            return schema[key]
    for key in ("examples", "enum"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if kind == "array":
        return [_example_value(schema.get("items"))]
    return {"integer": 1, "number": 1, "boolean": True, "object": {}, "null": None}.get(str(kind), "text")


def example_arguments(tool: ToolSpec) -> dict[str, Any]:
    """Plausible arguments for a tool's required fields (defaults, examples or enums when the schema has them)."""
    return {name: _example_value(schema) for name, schema in tool.properties.items() if name in tool.required}


def _example_tool(tools: Sequence[ToolSpec]) -> ToolSpec:
    # A tool with a required argument shows the argument syntax; the first listed is the most relevant.
    return next((t for t in tools if t.required), tools[0])


def render_tools_section(tools: Sequence[ToolSpec], dialect: str, *, template: str | None = None) -> str:
    """The tools part of the system prompt: how to call in `dialect`, one example, one line per tool.

    Empty when there are no tools. Raises ValueError for an unknown dialect.
    """
    if not tools:
        return ""
    example = _example_tool(tools)
    text = Template(template if template is not None else load_template("tools.md")).safe_substitute(
        call_format=dialect_example(dialect, "TOOL_NAME", {"ARGUMENT": "VALUE"}),
        example=dialect_example(dialect, example.name, example_arguments(example)),
        tool_list="\n".join(render_tool_entry(t) for t in tools),
    )
    return text.strip()


def tools_section_frame(
    dialect: str, *, template: str | None = None, examples: Sequence[ToolSpec] = ()
) -> str:
    """The tools section without its tool lines: what the section costs besides the tools themselves.
    Its example is the longest call of ``examples`` (the tools a section may be chosen from: the
    section shows one of them), so that the frame bounds every section made of them; the generic call
    without. Raises ValueError for an unknown dialect."""
    generic = dialect_example(dialect, "TOOL_NAME", {"ARGUMENT": "VALUE"})
    calls = [dialect_example(dialect, t.name, example_arguments(t)) for t in examples]
    text = Template(template if template is not None else load_template("tools.md")).safe_substitute(
        call_format=generic, example=max(calls, key=len, default=generic), tool_list=""
    )
    return text.strip()


def _short_instructions(server_instructions: Mapping[str, str], servers: Iterable[str]) -> str:
    wanted = set(servers)
    lines = [
        f"- {server}: {' '.join(text.split())}"
        for server, text in sorted(server_instructions.items())
        if server in wanted and text and text.strip() and len(text.strip()) < MAX_SERVER_INSTRUCTIONS_CHARS
    ]
    return "# Notes from the tool servers\n" + "\n".join(lines) if lines else ""


def build_system_prompt(
    tools: Sequence[ToolSpec],
    dialect: str,
    server_instructions: Mapping[str, str],
    extra: str = "",
    *,
    template_dir: Path | None = None,
) -> str:
    """The whole system prompt: the template with the tools section, the short instructions of the
    servers whose tools are shown, and `extra` (the user's own instructions).

    Raises ValueError for an unknown dialect, FileNotFoundError when the templates are missing.
    """
    return _system_prompt(
        tuple(tools),
        dialect,
        tuple(sorted(server_instructions.items())),
        extra,
        load_template("system.md", template_dir),
        load_template("tools.md", template_dir),
    )


@functools.lru_cache(maxsize=8)
def _system_prompt(
    tools: tuple[ToolSpec, ...],
    dialect: str,
    server_instructions: tuple[tuple[str, str], ...],
    extra: str,
    system_template: str,
    tools_template: str,
) -> str:
    """build_system_prompt's text, kept: every turn of a conversation usually renders the same one."""
    text = Template(system_template).safe_substitute(
        tools=render_tools_section(tools, dialect, template=tools_template),
        server_instructions=_short_instructions(dict(server_instructions), (t.server for t in tools)),
        extra=extra.strip(),
    )
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def format_tool_result(name: str, result_text: str, budget_tokens: int, count_tokens: CountTokensFn) -> str:
    """The result as the model sees it, cut to `budget_tokens` with a note saying how much was left out."""
    total = count_tokens(result_text)
    if total <= budget_tokens:
        return result_text

    def note(shown: int) -> str:
        return (
            f"\n[{name}: result cut to about {shown} of {total} tokens to fit the context;"
            " ask for a smaller part if you need the rest]"
        )

    room = max(budget_tokens - count_tokens(note(budget_tokens)), 0)
    # Binary search on characters: count_tokens may be a real tokenizer, not proportional to length.
    low, high = 0, len(result_text)
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens(result_text[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    kept = result_text[:low]
    return kept + note(count_tokens(kept))


def tool_result_message(
    name: str, result_text: str, *, call_id: str | None = None, question: str | None = None
) -> ChatMessage:
    """The message that carries a tool result back to the model: role "tool", the tool's name and the
    id of the call it answers. With `question` (the user's, for a call the host chose), the result is
    rendered asking for the answer to it: a very small model then answers the question rather than
    commenting on the result. How it is framed for the model's template is prompt_messages' concern."""
    return ChatMessage("tool", result_text, name=name, tool_call_id=call_id, question=question)


def prompt_messages(messages: Sequence[ChatMessage], capabilities: Capabilities) -> list[ChatMessage]:
    """The conversation as the model's template gets it. A template that knows tools renders tool
    messages itself (e.g. Qwen's <tool_response>); for any other, each result becomes a user turn framed
    by RESULT_OPEN / RESULT_CLOSE, which every template can render."""
    if capabilities.supports_native_tools:
        return list(messages)
    return [_framed(m) if m.role == "tool" else m for m in messages]


def _framed(result: ChatMessage) -> ChatMessage:
    ask = f"\nAnswer with this result: {result.question}" if result.question else ""
    opening = RESULT_OPEN.format(name=result.name or "tool")
    return ChatMessage("user", f"{opening}\n{result.content}\n{RESULT_CLOSE}{ask}")
