"""What keeping the embedding model's matrices int8 in memory costs and saves (issue 35).

The ranking process runs all-MiniLM-L6-v2 in numpy from the int8 model the app writes to its cache
folder. It used to dequantise every matrix to float32 at load (about 42 MB); now each layer's matrices
are dequantised when the layer runs. Both ways are run here, in this process, on the same weights:

- ``RESULT embedding_weights_mb_int8_kept`` and ``..._dequantised``: the arrays each way holds;
- ``RESULT embed_query_ms_int8_kept`` / ``..._dequantised``: one question (median of 30), what a turn
  waits for; ``RESULT embed_query_ratio`` the first over the second;
- ``RESULT embed_tools_ms_int8_kept`` / ``..._dequantised``: a batch of 55 tool texts (median of 5), what
  a change of servers costs once.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from edgehost.agent import _embedding
from edgehost.agent._embedding import SCALE_SUFFIX, MiniLMEmbedder, find_minilm_source, write_int8_model

QUESTION = "how much free space is left on the disk of this board?"
TOOLS = [
    f"tool {i}: reads the {word} of the board and returns it as text"
    for i, word in enumerate(["cpu", "memory", "disk", "network", "temperature"] * 11)
]


def _held_mb(embedder: MiniLMEmbedder) -> float:
    arrays = [*embedder._w.values(), *embedder._scales.values(), *(embedder._words or ())]  # noqa: SLF001
    return sum(a.nbytes for a in arrays) / 2**20


def _median_ms(embed: MiniLMEmbedder, texts: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        embed.embed(texts)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        source = write_int8_model(find_minilm_source(), Path(folder) / "int8")
        kept = MiniLMEmbedder.load(source)
    # The old way: the same int8 weights, the encoder's matrices dequantised once at load.
    eager = MiniLMEmbedder.__new__(MiniLMEmbedder)
    eager.__dict__.update(kept.__dict__)
    eager._w = {  # noqa: SLF001
        key: _embedding._dequantise(value, kept._scales[key]) if key in kept._scales else value  # noqa: SLF001
        for key, value in kept._w.items()  # noqa: SLF001
    }
    eager._scales = {}  # noqa: SLF001
    assert not any(k.endswith(SCALE_SUFFIX) for k in eager._w)  # noqa: SLF001
    same = np.abs(kept.embed([QUESTION, *TOOLS[:3]]) - eager.embed([QUESTION, *TOOLS[:3]])).max()
    print(f"largest difference between the two ways' vectors: {same:.2e}", file=sys.stderr)
    for embedder in (kept, eager):  # warm both
        embedder.embed([QUESTION])
    query = {name: _median_ms(e, [QUESTION], 30) for name, e in (("int8_kept", kept), ("dequantised", eager))}
    tools = {name: _median_ms(e, TOOLS, 5) for name, e in (("int8_kept", kept), ("dequantised", eager))}
    print(f"RESULT embedding_weights_mb_int8_kept {_held_mb(kept):.1f}")
    print(f"RESULT embedding_weights_mb_dequantised {_held_mb(eager):.1f}")
    for name in query:
        print(f"RESULT embed_query_ms_{name} {query[name]:.1f}")
        print(f"RESULT embed_tools_ms_{name} {tools[name]:.0f}")
    print(f"RESULT embed_query_ratio {query['int8_kept'] / query['dequantised']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
