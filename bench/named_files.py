"""What reading a question for the files it names costs a turn (agent/named_files.py).

A folder of MAX_ENTRIES (500) files in 25 sub-folders, made here; the question names one of them.
Median over 50 readings:

  RESULT named_files_ms          with_named_files over that folder (the listing and the matching)
  RESULT named_files_listing_ms  files_in alone: the listing
  RESULT named_files_ratio_to_question_spans   named_files_ms / question_spans of the same question
                                 (the same run's baseline: the first step of every routed call's values)
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _timing import median_ms
from edgehost.agent.named_files import MAX_ENTRIES, files_in, with_named_files
from edgehost.agent.question_values import question_spans

QUESTION = "Add 'buy oat milk' to my todo list"


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="edgehost-named-files-") as folder:
        root = Path(folder)
        per_folder = MAX_ENTRIES // 25
        for i in range(25):
            (root / f"folder{i}").mkdir()
            for j in range(per_folder - 1):
                (root / f"folder{i}" / f"file_{j}.txt").write_text("x", encoding="utf-8")
        (root / "todo.md").write_text("- call the plumber\n", encoding="utf-8")
        assert with_named_files(QUESTION, [folder])[0].endswith("(todo.md)")
        named = median_ms(lambda: with_named_files(QUESTION, [folder]))
        listing = median_ms(lambda: files_in(folder))
        spans = median_ms(lambda: question_spans(QUESTION))
    print(f"RESULT named_files_ms {named:.2f}")
    print(f"RESULT named_files_listing_ms {listing:.2f}")
    print(f"RESULT named_files_ratio_to_question_spans {named / spans:.1f}")


if __name__ == "__main__":
    main()
