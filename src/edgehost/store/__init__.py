"""The history: conversations, messages, tool executions and approval rules in one SQLite file (WAL).

Open it with ``Store.open(paths.history_db, redact=redactor(config.secret_values()))``.
"""

from __future__ import annotations

from edgehost.redaction import REDACTED, RedactFnT, redactor
from edgehost.store._attached import attachment_text, searchable_text, split_attachments
from edgehost.store._export import CSV_COLUMNS, EXPORT_FORMATS
from edgehost.store._migrations import MIGRATIONS, Migration
from edgehost.store._records import (
    FINAL_EXECUTION_STATUSES,
    ConversationRecord,
    Decision,
    Execution,
    ExecutionStatus,
    Message,
    MessageStatus,
    iso_utc,
)
from edgehost.store._store import (
    DEFAULT_BUSY_TIMEOUT_S,
    DEFAULT_RESULT_CAP,
    ApprovalRuleTable,
    RecordNotFoundError,
    Store,
    StoreError,
)

__all__ = [
    "CSV_COLUMNS",
    "DEFAULT_BUSY_TIMEOUT_S",
    "DEFAULT_RESULT_CAP",
    "EXPORT_FORMATS",
    "FINAL_EXECUTION_STATUSES",
    "MIGRATIONS",
    "REDACTED",
    "ApprovalRuleTable",
    "ConversationRecord",
    "Decision",
    "Execution",
    "ExecutionStatus",
    "Message",
    "MessageStatus",
    "Migration",
    "RecordNotFoundError",
    "RedactFnT",
    "Store",
    "StoreError",
    "attachment_text",
    "iso_utc",
    "redactor",
    "searchable_text",
    "split_attachments",
]
