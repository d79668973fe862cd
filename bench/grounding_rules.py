"""Which of the embedded model's replies after a tool the grounding rules pass (agent/grounding.py),
against what a reader judged of each (issue 33: answers that say what happened).

Replays the grounding checks one run of bench/agent_tool_accuracy.py recorded (``--record FILE``: the
question, the results, the calls' arguments and the model's reply of every check), each with a
reader's verdict added as ``"faithful": true`` (the reply says nothing the results deny) or ``false``
(it contradicts them, makes up a call or a result, or reports a failure or an absence that did not
happen). Replies left without a verdict are not counted. Prints, with the rules of this checkout:

  RESULT grounding_unfaithful_passed    unfaithful replies passed off as answers
  RESULT grounding_faithful_rejected    faithful replies shown as ungrounded
  RESULT grounding_judged               replies with a verdict

To compare rules, run it from two checkouts over the same file.

``tests/fixtures/grounding/calibration_replies.json`` holds a run over the calibration half with the
verdicts the rules were written from; a run over the held-out half is judged apart from them.

  python bench/grounding_rules.py [FILE]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from edgehost.agent import grounding  # noqa: E402

CALIBRATION = REPO / "tests" / "fixtures" / "grounding" / "calibration_replies.json"


def passed(check: dict[str, Any]) -> bool:
    """Whether today's rules pass the recorded reply."""
    return grounding.check_answer(
        check["answer"],
        results=check["results"],
        question=check.get("question", ""),
        arguments=check.get("arguments", ()),
        stopped_for_repetition=check.get("stopped_for_repetition", False),
        failed=check.get("failed", ()),
    ).grounded


def counts(judged: list[dict[str, Any]]) -> tuple[int, int]:
    """Unfaithful replies passed, faithful replies rejected."""
    verdicts = [(check["faithful"], passed(check)) for check in judged]
    return sum(not f and p for f, p in verdicts), sum(f and not p for f, p in verdicts)


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else CALIBRATION
    judged = [c for c in json.loads(path.read_text(encoding="utf-8")) if isinstance(c.get("faithful"), bool)]
    unfaithful, rejected = counts(judged)
    print(f"RESULT grounding_judged {len(judged)} ({sum(not c['faithful'] for c in judged)} unfaithful)")
    print(f"RESULT grounding_unfaithful_passed {unfaithful}")
    print(f"RESULT grounding_faithful_rejected {rejected}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
