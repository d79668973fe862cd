"""What moves and where it goes, of the two paths a question writes (agent/path_roles.py)."""

from __future__ import annotations

from typing import Any

from edgehost.agent.grounded_arguments import grounded_schema
from edgehost.agent.path_roles import path_roles
from edgehost.agent.question_values import path_values
from edgehost.agent.tools import ToolSpec


def test_a_file_goes_into_the_folder_the_question_names_whatever_the_order() -> None:
    assert path_roles("move shopping.txt into the recipes folder") == ("shopping.txt", "recipes/shopping.txt")
    assert path_roles("put old.log in the archive folder") == ("old.log", "archive/old.log")
    assert path_roles("Move recipes/soup.md to the soups directory") == ("recipes/soup.md", "soups/soup.md")
    # The host wrote the file the question names by its words after it (agent/named_files.py).
    assert path_roles("move my notes into the archive folder (notes.txt)") == (
        "notes.txt",
        "archive/notes.txt",
    )


def test_a_folder_is_one_the_question_names_as_one() -> None:
    assert path_roles("move notes.txt to the folder called archive") == ("notes.txt", "archive/notes.txt")
    assert path_roles("move notes.txt into archive/") == ("notes.txt", "archive/notes.txt")
    # A folder named by a year is a folder where its "/" says so, as any other.
    assert path_roles("move notes.txt into 2024/") == ("notes.txt", "2024/notes.txt")
    assert path_roles("move /home/u/notes.txt to /home/u/archive/") == (
        "/home/u/notes.txt",
        "/home/u/archive/notes.txt",
    )
    # "a file called final" is a new name, not a folder; a path with no extension is no file to put
    # into the folder the question names.
    assert path_roles("rename draft.txt to a file called final") == ("draft.txt", "final")
    assert path_roles("move the photos folder into archive/2024") == ("photos", "archive/2024")


def test_what_is_taken_from_somewhere_is_the_source() -> None:
    assert path_roles("copy notes.txt from the backup folder") == ("backup/notes.txt", "notes.txt")
    assert path_roles("restore notes.txt from backup/notes.txt") == ("backup/notes.txt", "notes.txt")


def test_a_tool_that_neither_moves_nor_copies_is_given_the_folder_itself() -> None:
    assert path_roles("extract photos.zip into the holiday folder", into=False) == ("photos.zip", "holiday")


def test_two_files_are_what_moves_and_its_new_name_in_the_order_written() -> None:
    assert path_roles("Rename notes.txt to ideas.txt") == ("notes.txt", "ideas.txt")
    assert path_roles("copy recipes/soup.md as soups/soup.md please") == ("recipes/soup.md", "soups/soup.md")


def test_no_roles_where_the_question_does_not_write_two_paths_or_their_order_says_nothing() -> None:
    assert path_roles("move notes.txt") is None
    assert path_roles("move shopping.txt, todo.md and old.log into the archive folder") is None
    # One of them named by its words, the other written: where the named one stood is not known.
    assert path_roles("rename my todo list to tasks.md (todo.md)") is None
    # "notes.txt" is part of the file's name: moved, a file of another name would go.
    assert path_roles("move 'meeting notes.txt' into the Old Stuff folder") is None


def test_a_move_tools_source_and_destination_are_each_offered_their_one_path(
    reference_tools: dict[str, ToolSpec],
) -> None:
    move = dict(reference_tools["filesystem__move_file"].input_schema)

    def offered(question: str) -> dict[str, Any]:
        return {
            k: v.get("enum")
            for k, v in grounded_schema(move, question, "filesystem__move_file")["properties"].items()
        }

    assert offered("move shopping.txt into the recipes folder") == {
        "source": ["shopping.txt"],
        "destination": ["recipes/shopping.txt"],
    }
    assert offered("Rename notes.txt to ideas.txt") == {"source": ["notes.txt"], "destination": ["ideas.txt"]}


def test_a_word_that_says_which_folder_or_what_kind_is_no_folders_name() -> None:
    """ "Move soup.md out of the recipes folder and into the main folder" moved "recipes" to "main", and "make
    a new folder named receipts" offered the folder "new"."""
    assert path_roles("Move soup.md out of the recipes folder and into the main folder") == (
        "recipes/soup.md",
        "soup.md",
    )
    assert path_values("make a new folder named receipts") == ["receipts"]
    assert path_values("put it in a separate folder called tax") == ["tax"]
    assert path_values("what is in the recipes folder") == ["recipes"]
    assert path_values("list the Main folder") == ["Main"]  # capitalised, it is the folder's name
