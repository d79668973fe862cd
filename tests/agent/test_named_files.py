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
    assert with_named_files(todo, [folder]) == (f"{todo} (todo.md)", True)
    soup = "Does my soup recipe need an onion?"
    assert with_named_files(soup, [folder]) == (f"{soup} (recipes/soup.md)", True)
    assert with_named_files("Show me the old log", [folder]) == ("Show me the old log (old.log)", True)


def test_a_folder_is_named_the_same_way(folder: str) -> None:
    garlic = "Do any of my recipes use garlic?"
    assert with_named_files(garlic, [folder]) == (f"{garlic} (recipes/)", True)


def test_the_same_words_without_an_owning_word_name_no_file(folder: str) -> None:
    for question in ("Remember that my dog Biscuit is five years old.", "any soup ideas?", "what is todo"):
        assert with_named_files(question, [folder]) == (question, False)
    # The name written after the listed one's words is the file meant: not old.log.
    bin_it = "Bin the old quiz-draft note in my files"
    assert with_named_files(bin_it, [folder]) == (bin_it, False)


def test_a_written_path_is_kept_and_said_to_be_the_users_when_a_served_folder_holds_it(folder: str) -> None:
    assert with_named_files("copy my notes to notes.txt", [folder]) == ("copy my notes to notes.txt", True)
    assert with_named_files("Does recipes/soup.md use salt?", [folder]) == (
        "Does recipes/soup.md use salt?",
        True,
    )
    assert with_named_files("open missing.txt", [folder]) == ("open missing.txt", False)
    # A path out of the served folder is not the user's file there.
    assert with_named_files("read ../served/notes.txt", [folder + "/recipes"])[1] is False


def test_a_question_that_names_several_files_is_left_as_written(folder: str, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text("y", encoding="utf-8")
    # notes.txt in one folder, notes.md in the other: which one is meant cannot be told.
    notes = "what is in my notes?"
    assert with_named_files(notes, [folder, str(other)]) == (notes, False)
    assert with_named_files(notes, [folder]) == (f"{notes} (notes.txt)", True)


def test_the_files_of_a_folder_are_listed_a_few_folders_down_without_hidden_ones(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*(f"level{i}" for i in range(MAX_DEPTH + 1)))
    deep.mkdir(parents=True)
    (deep / "buried.txt").write_text("z", encoding="utf-8")
    (tmp_path / ".secret").write_text("z", encoding="utf-8")
    (tmp_path / "level0" / "near.txt").write_text("z", encoding="utf-8")
    assert files_in(str(tmp_path)) == ["level0/", "level0/level1/", "level0/near.txt"]
    assert files_in(str(tmp_path / "missing")) == []
