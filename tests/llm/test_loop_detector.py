"""The loop detector of the worker (llm.textstream.LoopDetector): repeated sentences stop a reply,
lists, tables and code do not."""

from __future__ import annotations

from edgehost.llm.textstream import LoopDetector


def fed(text: str, piece: int = 3) -> bool:
    detector = LoopDetector()
    return any(detector.feed(text[i : i + piece]) for i in range(0, len(text), piece))


def test_the_same_sentence_three_times_in_a_row_is_a_loop() -> None:
    assert fed("Sure! " + "This is a server, which is why it's a web server. " * 3)
    assert not fed("Sure! " + "This is a server, which is why it's a web server. " * 2)


def test_a_loop_is_found_whatever_the_pieces_it_came_in() -> None:
    text = "I'm glad you enjoyed it. " * 4
    assert all(fed(text, size) for size in (1, 2, 5, 13, len(text)))


def test_lists_tables_and_code_are_not_loops() -> None:
    table = "| name | value |\n|------|-------|\n" + "".join(f"| item {i} | {i * 7} |\n" for i in range(10))
    listing = "".join(f"- buy item number {i}\n" for i in range(12))
    code = "for i in range(3):\n" + "".join(f"    print(i * {k})\n" for k in range(1, 6))
    rule = "-" * 80 + "\n" + "=" * 80
    assert not any(fed(text) for text in (table, listing, code, rule))
