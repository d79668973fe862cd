"""The store's names for redaction; the implementation is ``edgehost.redaction``."""

from __future__ import annotations

from edgehost.redaction import REDACTED, RedactFnT, redact_json, redactor

__all__ = ["REDACTED", "RedactFnT", "redact_json", "redactor"]
