"""Files a question names by their words, in the folders the servers serve (agent/named_files.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.agent.named_files import MAX_DEPTH, files_in, tools_for_named_files, with_named_files
from edgehost.agent.tools import ToolSpec


@pytest.fixture
def folder(tmp_path: Path) -> str:
    served = tmp_path / "served"
    for name in ("notes.txt", "todo.md", "recipes/pasta.md", "recipes/soup.md", "old.log", ".hidden.md"):
        (served / name).parent.mkdir(parents=True, exist_ok=True)
        (served / name).write_text("x", encoding="utf-8")
    return str(served)


def test_a_file_named_after_my_or_the_is_read_after_the_question(folder: str) -> None:
    todo = "Add 'pay the electricity bill' to my todo list"
    assert with_named_files(todo, [folder]) == (f"{todo} (todo.md)", (folder,))
    soup = "Does my soup recipe need an onion?"
    assert with_named_files(soup, [folder]) == (f"{soup} (recipes/soup.md)", (folder,))
    assert with_named_files("Show me the old log", [folder]) == ("Show me the old log (old.log)", (folder,))


def test_a_folder_is_named_the_same_way(folder: str) -> None:
    garlic = "Do any of my recipes use garlic?"
    assert with_named_files(garlic, [folder]) == (f"{garlic} (recipes/)", (folder,))


def test_the_same_words_without_an_owning_word_name_no_file(folder: str) -> None:
    for question in ("Remember that my dog Biscuit is five years old.", "any soup ideas?", "what is todo"):
        assert with_named_files(question, [folder]) == (question, ())
    # The name written after the listed one's words is the file meant: not old.log.
    bin_it = "Bin the old quiz-draft note in my files"
    assert with_named_files(bin_it, [folder]) == (bin_it, ())


def test_a_written_path_is_kept_and_said_to_be_the_users_when_a_served_folder_holds_it(folder: str) -> None:
    assert with_named_files("copy my notes to notes.txt", [folder]) == (
        "copy my notes to notes.txt",
        (folder,),
    )
    assert with_named_files("Does recipes/soup.md use salt?", [folder]) == (
        "Does recipes/soup.md use salt?",
        (folder,),
    )
    assert with_named_files("open missing.txt", [folder]) == ("open missing.txt", ())
    # A path out of the served folder is not the user's file there.
    assert with_named_files("read ../served/notes.txt", [folder + "/recipes"])[1] == ()


def test_a_question_that_names_several_files_is_left_as_written(folder: str, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text("y", encoding="utf-8")
    # notes.txt in one folder, notes.md in the other: which one is meant cannot be told.
    notes = "what is in my notes?"
    assert with_named_files(notes, [folder, str(other)]) == (notes, ())
    assert with_named_files(notes, [folder]) == (f"{notes} (notes.txt)", (folder,))


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
    assert with_named_files(boil, [written]) == (f"{boil} (recipes/pasta.md)", (written,))
    # Named in the plural, the whole folder is meant.
    garlic = "Do any of my recipes use garlic?"
    assert with_named_files(garlic, [written]) == (f"{garlic} (recipes/)", (written,))
    # Nothing in the folder says more of the question than the rest: the folder stays named.
    vague = "Can you show me my recipe?"
    assert with_named_files(vague, [written]) == (f"{vague} (recipes/)", (written,))


def test_a_question_of_what_i_wrote_means_the_served_file_that_says_it(written: str) -> None:
    wifi = "what did i write down about the wifi"
    assert with_named_files(wifi, [written, written]) == (f"{wifi} (notes.txt)", (written,))
    # The same words asked as a plain question name no file: the files are read only for a record.
    assert with_named_files("whats the wifi password", [written]) == ("whats the wifi password", ())
    # A record no file holds, or a binary file, is not a file meant.
    ibrahim = "Did I ever mention somebody called Ibrahim?"
    assert with_named_files(ibrahim, [written]) == (ibrahim, ())


def test_only_the_folders_that_hold_the_named_file_are_given_and_only_their_servers_tools_kept(
    folder: str, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / "shopping.txt").parent.mkdir(parents=True)
    (other / "shopping.txt").write_text("eggs", encoding="utf-8")
    (other / "todo.md").write_text("- ring Sam", encoding="utf-8")
    assert with_named_files("read shopping.txt", [folder, str(other)]) == ("read shopping.txt", (str(other),))
    assert with_named_files("Show me the old log", [folder, str(other)])[1] == (folder,)
    # Both hold todo.md: both servers can reach it.
    assert with_named_files("open todo.md", [folder, str(other)])[1] == (folder, str(other))

    # A file meant by what it says: the folder whose copy says it.
    (other / "notes.txt").write_text("The wifi password is on the fridge.", encoding="utf-8")
    assert with_named_files("what did i write down about the wifi", [folder, str(other)])[1] == (str(other),)

    def tool(name: str, served: str | None) -> ToolSpec:
        return ToolSpec(
            name=name, server=name.split("__")[0], description="", input_schema={}, served_folder=served
        )

    files, notes, clock = (
        tool("files__read_file", folder),
        tool("notes__read_file", str(other)),
        tool("board__clock", None),
    )
    assert tools_for_named_files([files, notes, clock], (str(other),)) == [notes, clock]
    assert tools_for_named_files([files, notes, clock], ()) == [files, notes, clock]
    # A server on a folder that holds the one holding it reaches the file too.
    home = tool("home__read_file", str(tmp_path))
    assert tools_for_named_files([files, home], (str(other),)) == [home]
