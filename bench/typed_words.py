"""What reading misspelt words costs (agent/typed_words.py): the word counts' load, and the time per
question against BM25's scoring of the same question (LexicalRanker.words), over the calibration
questions of every set with their own tools. Prints RESULT lines.

    .venv/bin/python bench/typed_words.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.question_sets import calibration, calibration_more, evaluation, everyday  # noqa: E402

from edgehost.agent import typed_words  # noqa: E402
from edgehost.agent.ranking import LexicalRanker  # noqa: E402


def main() -> int:
    sets = [everyday("calibration"), calibration(), evaluation(), calibration_more()]
    start = time.perf_counter()
    typed_words.prepare(sets[0].tools)
    print(f"RESULT typed_words_load_ms {1000 * (time.perf_counter() - start):.0f}")
    reading = scoring = 0.0
    asked = changed = 0
    for questions in sets:
        tools = questions.tools
        typed_words.prepare(tools)
        lexical = LexicalRanker()
        lexical.prepare(tools)
        for question in questions.questions:
            start = time.perf_counter()
            meant = typed_words.as_meant(question.text, tools)
            reading += time.perf_counter() - start
            start = time.perf_counter()
            lexical.words(question.text, tools)
            scoring += time.perf_counter() - start
            asked += 1
            changed += meant != question.text
    print(f"RESULT typed_words_questions {asked}")
    print(f"RESULT typed_words_questions_read_otherwise {changed}")
    print(f"RESULT typed_words_ms_per_question {1000 * reading / asked:.3f}")
    print(f"RESULT typed_words_time_vs_bm25 {reading / scoring:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
