"""What reading a question for the files it names costs a turn (agent/named_files.py).

A folder of MAX_ENTRIES (500) files in 25 sub-folders, made here, each longer than the
MAX_READ_BYTES a question of what the asker wrote reads of it (the worst case); the question names
one of them. Median over 50 readings:

  RESULT named_files_ms          with_named_files over that folder (the listing and the matching)
  RESULT named_files_listing_ms  files_in alone: the listing
  RESULT named_files_by_content_ms   with_named_files for a question of what the asker wrote, which
                                 names no file: the first MAX_FILES_READ files are read and ranked
  RESULT named_files_by_content_ratio_to_listing   named_files_by_content_ms / named_files_listing_ms
  RESULT named_files_ratio_to_question_spans   named_files_ms / question_spans of the same question
                                 (the same run's baseline: the first step of every routed call's values)
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _timing import median_ms
from edgehost.agent.named_files import (
    MAX_ENTRIES,
    MAX_FILES_READ,
    MAX_READ_BYTES,
    files_in,
    with_named_files,
)
from edgehost.agent.question_values import question_spans

QUESTION = "Add 'buy oat milk' to my todo list"
RECORD = "what did i write down about the boiler service"
# Everyday text, a different number in each file, longer than what is read of it.
FILLER = "Call the bank about the card {n}. Water the plants, then the garden hose. " * 200


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="edgehost-named-files-") as folder:
        root = Path(folder)
        per_folder = MAX_ENTRIES // 25
        for i in range(25):
            (root / f"folder{i}").mkdir()
            for j in range(per_folder - 1):
                (root / f"folder{i}" / f"file_{j}.txt").write_text(FILLER.format(n=j), encoding="utf-8")
        (root / "todo.md").write_text("- call the plumber\n", encoding="utf-8")
        # Listed first (folders are walked by name), so the one file that says it is among those read.
        (root / "folder0" / "a_house.txt").write_text("Boiler service on Tuesday at 9.", encoding="utf-8")
        assert with_named_files(QUESTION, [folder])[0].endswith("(todo.md)")
        assert with_named_files(RECORD, [folder])[0].endswith("(folder0/a_house.txt)")
        assert len([f for f in files_in(folder) if not f.endswith("/")]) > MAX_FILES_READ
        assert len(FILLER) > MAX_READ_BYTES
        named = median_ms(lambda: with_named_files(QUESTION, [folder]))
        listing = median_ms(lambda: files_in(folder))
        by_content = median_ms(lambda: with_named_files(RECORD, [folder]))
        spans = median_ms(lambda: question_spans(QUESTION))
    print(f"RESULT named_files_ms {named:.2f}")
    print(f"RESULT named_files_listing_ms {listing:.2f}")
    print(f"RESULT named_files_by_content_ms {by_content:.2f}")
    print(f"RESULT named_files_by_content_ratio_to_listing {by_content / listing:.1f}")
    print(f"RESULT named_files_ratio_to_question_spans {named / spans:.1f}")


if __name__ == "__main__":
    main()
