"""Files a question names by their words, in the folders the servers serve (agent/named_files.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.agent.named_files import MAX_DEPTH, files_in, with_named_files


@pytest.fixture
def folder(tmp_path: Path) -> str:
    served = tmp_path / "served"
    for name in ("notes.txt", "todo.md", "recipes/pasta.md", "recipes/soup.md", "old.log", ".hidden.md"):
        (served / name).parent.mkdir(parents=True, exist_ok=True)
        (served / name).write_text("x", encoding="utf-8")
    return str(served)


def test_a_file_named_after_my_or_the_is_read_after_the_question(folder: str) -> None:
    todo = "Add 'pay the electricity bill' to my todo list"
    assert with_named_files(todo, [folder]) == f"{todo} (todo.md)"
    soup = "Does my soup recipe need an onion?"
    assert with_named_files(soup, [folder]) == f"{soup} (recipes/soup.md)"
    assert with_named_files("Show me the old log", [folder]) == "Show me the old log (old.log)"


def test_the_same_words_without_an_owning_word_name_no_file(folder: str) -> None:
    for question in ("Remember that my dog Biscuit is five years old.", "any soup ideas?", "what is todo"):
        assert with_named_files(question, [folder]) == question


def test_a_question_that_writes_a_path_or_names_several_files_is_left_as_written(
    folder: str, tmp_path: Path
) -> None:
    assert with_named_files("copy my notes to notes.txt", [folder]) == "copy my notes to notes.txt"
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text("y", encoding="utf-8")
    # notes.txt in one folder, notes.md in the other: which one is meant cannot be told.
    assert with_named_files("what is in my notes?", [folder, str(other)]) == "what is in my notes?"
    assert with_named_files("what is in my notes?", [folder]) == "what is in my notes? (notes.txt)"


def test_the_files_of_a_folder_are_listed_a_few_folders_down_without_hidden_ones(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*(f"level{i}" for i in range(MAX_DEPTH + 1)))
    deep.mkdir(parents=True)
    (deep / "buried.txt").write_text("z", encoding="utf-8")
    (tmp_path / ".secret").write_text("z", encoding="utf-8")
    (tmp_path / "level0" / "near.txt").write_text("z", encoding="utf-8")
    assert files_in(str(tmp_path)) == ["level0/near.txt"]
    assert files_in(str(tmp_path / "missing")) == []
