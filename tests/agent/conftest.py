"""The reference servers' real tool lists (tests/fixtures/reference_tools.json), shared by the agent tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.support import tool_specs

from edgehost.agent.tools import ToolSpec

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="session")
def reference_tools() -> dict[str, ToolSpec]:
    """Every tool of the reference servers, by namespaced name, in the file's order."""
    servers = json.loads((FIXTURES / "reference_tools.json").read_text(encoding="utf-8"))["servers"]
    return {t.name: t for t in tool_specs(servers)}


class CountingEmbedder:
    """A real embedder, counting the texts it is asked to embed."""

    name = "counting"

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts.extend(texts)
        return self.inner.embed(texts)
