"""Do small-model replies loop? (issue 9: repetition controls and stopping a reply that loops)

The embedded SmolLM2-135M answers the same prompts twice in this process, same seed: once as before
issue 9 (no repetition penalty, nothing stops a loop) and once with a board profile's sampling
(repeat_penalty 1.1 over 64 tokens) and the worker's loop detector. A reply "loops" when the same
span of 12+ characters stands three times back to back in it (llm.textstream.LoopDetector).

  RESULT repetition_loops_baseline <looping replies / replies, before>
  RESULT repetition_loops <looping replies / replies, now; a stopped loop counts as a loop>
  RESULT repetition_loops_unstopped <replies that ran on looping to the token limit, now>
  RESULT repetition_reply_chars_baseline / repetition_reply_chars <mean reply length>
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from edgehost.agent.prompting import build_system_prompt  # noqa: E402
from edgehost.boards.profiles import SamplingDefaults  # noqa: E402
from edgehost.llm.base import ChatMessage  # noqa: E402
from edgehost.llm.default_model import default_model_path  # noqa: E402
from edgehost.llm.llamacpp_engine import LlamaCppEngine  # noqa: E402
from edgehost.llm.textstream import LoopDetector  # noqa: E402

PROMPTS = [
    "What is a web server?",
    "Tell me a joke.",
    "Thanks, that's all.",
    "How are you today?",
    "Describe the board you run on.",
    "What is EdgeHost?",
    "Explain what a CPU is.",
    "Write a short poem about the sea.",
    "Who are you?",
    "What can you do?",
    "Give me three tips for sleeping better.",
    "Why is the sky blue?",
]
MAX_TOKENS = 256
SEED = 7


def answers(engine: LlamaCppEngine, *, stop_loops: bool) -> list[tuple[str, bool]]:
    """(reply, stopped for looping) for each prompt."""
    system = build_system_prompt([], "bracket", {})
    out = []
    for prompt in PROMPTS:
        engine.reset()
        text = engine.format_chat([ChatMessage("system", system), ChatMessage("user", prompt)])
        detector, reply, stopped = LoopDetector(), "", False
        pieces = engine.generate(text, max_tokens=MAX_TOKENS, stop=(), grammar=None, temperature=None)
        for piece in pieces:
            reply += piece
            if stop_loops and detector.feed(piece):
                stopped = True
                break
        pieces.close()
        out.append((reply, stopped))
    return out


def loops(text: str) -> bool:
    detector = LoopDetector()
    return any(detector.feed(text[i : i + 4]) for i in range(0, len(text), 4))


def main() -> int:
    model = str(default_model_path())
    baseline = LlamaCppEngine({"model_path": model, "n_ctx": 2048, "seed": SEED, "repeat_penalty": 1.0})
    baseline.load()
    before = answers(baseline, stop_loops=False)
    baseline.close()
    tuned = LlamaCppEngine({"model_path": model, "n_ctx": 2048, "seed": SEED, **SamplingDefaults().as_dict()})
    tuned.load()
    after = answers(tuned, stop_loops=True)
    tuned.close()
    print(f"RESULT repetition_loops_baseline {sum(loops(r) for r, _ in before)}/{len(before)}")
    print(f"RESULT repetition_loops {sum(loops(r) or s for r, s in after)}/{len(after)}")
    unstopped = sum(loops(r) and not s for r, s in after)
    print(f"RESULT repetition_loops_unstopped {unstopped}/{len(after)}")
    print(f"RESULT repetition_reply_chars_baseline {statistics.mean(len(r) for r, _ in before):.0f}")
    print(f"RESULT repetition_reply_chars {statistics.mean(len(r) for r, _ in after):.0f}")
    for prompt, (old, _), (new, stopped) in zip(PROMPTS, before, after, strict=True):
        print(
            f"{prompt!r}\n  before: {' '.join(old.split())[:140]}\n  now{' (stopped)' if stopped else ''}: {' '.join(new.split())[:140]}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
