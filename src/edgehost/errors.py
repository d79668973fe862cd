"""Errors shared by every layer. The CLI maps them to exit codes (2 for usage and config)."""

from __future__ import annotations


class EdgeHostError(Exception):
    """Base class of the errors EdgeHost raises on purpose."""


class UsageError(EdgeHostError):
    """The user asked for something malformed (exit code 2)."""


class ConfigError(EdgeHostError):
    """A configuration file failed to parse or validate (exit code 2).

    The message names the file, and the line, column and field where they are known.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.field = field
        self.reason = message
        where = path or ""
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        prefix = f"{where}: " if where else ""
        suffix = f" (field {field!r})" if field else ""
        super().__init__(f"{prefix}{message}{suffix}")


class EmbeddingUnavailable(EdgeHostError):
    """The embedding model (tool ranking) cannot run here; str() is the reason shown to the user."""
