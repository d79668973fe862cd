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


@pytest.fixture
def written(tmp_path: Path) -> str:
    served = tmp_path / "written"
    contents = {
        "notes.txt": "Call the plumber on Monday. The wifi password is on the fridge.",
        "todo.md": "- buy bread\n- water the plants",
        "recipes/pasta.md": "# Garlic pasta\n\n- 200 g spaghetti\n\nBoil the spaghetti for 9 minutes.",
        "recipes/soup.md": "# Tomato soup\n\n- 1 onion\n\nSoften the onion, add the tomatoes.",
    }
    for name, text in contents.items():
        (served / name).parent.mkdir(parents=True, exist_ok=True)
        (served / name).write_text(text, encoding="utf-8")
    (served / "photo.bin").write_bytes(b"wifi\0spaghetti\0" * 10)
    return str(served)


def test_a_folder_named_in_the_singular_means_the_file_of_it_that_says_what_is_asked(written: str) -> None:
    boil = "How long am I supposed to boil the spaghetti, according to my recipe?"
    assert with_named_files(boil, [written]) == (f"{boil} (recipes/pasta.md)", True)
    # Named in the plural, the whole folder is meant.
    garlic = "Do any of my recipes use garlic?"
    assert with_named_files(garlic, [written]) == (f"{garlic} (recipes/)", True)
    # Nothing in the folder says more of the question than the rest: the folder stays named.
    vague = "Can you show me my recipe?"
    assert with_named_files(vague, [written]) == (f"{vague} (recipes/)", True)


def test_a_question_of_what_i_wrote_means_the_served_file_that_says_it(written: str) -> None:
    wifi = "what did i write down about the wifi"
    assert with_named_files(wifi, [written, written]) == (f"{wifi} (notes.txt)", True)
    # The same words asked as a plain question name no file: the files are read only for a record.
    assert with_named_files("whats the wifi password", [written]) == ("whats the wifi password", False)
    # A record no file holds, or a binary file, is not a file meant.
    ibrahim = "Did I ever mention somebody called Ibrahim?"
    assert with_named_files(ibrahim, [written]) == (ibrahim, False)
