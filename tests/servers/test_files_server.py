"""The built-in `files` server, over real stdio with the SDK's Client, and its sandbox rules directly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from tests.support import python_server_client

from edgehost.servers.files import MAX_READ_BYTES, FilesRoot, build_server


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def call_ok(client: Client, name: str, arguments: dict[str, object]) -> str:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, text_of(result)
    return text_of(result)


async def test_every_tool_works_over_stdio_and_is_annotated(tmp_path: Path) -> None:
    root = tmp_path / "root"
    async with python_server_client("-m", "edgehost.servers.files", "--root", str(root)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {
            "list_directory",
            "read_file",
            "write_file",
            "edit_file",
            "move_file",
            "delete_file",
            "search_files",
            "make_directory",
        }
        for name in ("write_file", "edit_file", "move_file", "delete_file"):
            annotations = tools[name].annotations
            assert annotations is not None and annotations.destructive_hint is True, name
        for name in ("list_directory", "read_file", "search_files"):
            annotations = tools[name].annotations
            assert annotations is not None and annotations.read_only_hint is True, name
        assert tools["edit_file"].input_schema["required"] == ["path", "new_text"]
        assert all(tool.description for tool in tools.values())

        await call_ok(client, "make_directory", {"path": "notes"})
        assert "created" in await call_ok(
            client, "write_file", {"path": "notes/todo.txt", "content": "milk\neggs\n"}
        )
        assert await call_ok(client, "read_file", {"path": "notes/todo.txt"}) == "milk\neggs\n"
        await call_ok(
            client, "edit_file", {"path": "notes/todo.txt", "old_text": "eggs", "new_text": "bread"}
        )
        assert (root / "notes" / "todo.txt").read_text() == "milk\nbread\n"
        listing = await call_ok(client, "list_directory", {"path": "notes"})
        assert "todo.txt (11 bytes)" in listing
        assert await call_ok(client, "search_files", {"pattern": "*.txt"}) == "notes/todo.txt"
        assert await call_ok(client, "search_files", {"contains": "BREAD"}) == "notes/todo.txt:2: bread"
        # A folder's name as the pattern is the files in it.
        found = await call_ok(client, "search_files", {"pattern": "notes", "contains": "bread"})
        assert found == "notes/todo.txt:2: bread"
        await call_ok(client, "move_file", {"source": "notes/todo.txt", "destination": "archive/old.txt"})
        assert (root / "archive" / "old.txt").exists() and not (root / "notes" / "todo.txt").exists()
        await call_ok(client, "delete_file", {"path": "archive/old.txt"})
        assert not (root / "archive" / "old.txt").exists()
        empty = await call_ok(client, "list_directory", {"path": "archive"})
        assert empty == f"archive (in the files folder, {root.resolve()}): empty"


async def test_paths_outside_the_root_are_refused_with_a_tool_error(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    (root / "link-out").symlink_to(outside)
    (root / "dir-out").symlink_to(tmp_path)
    attempts = [
        ("read_file", {"path": "../secret.txt"}),
        ("read_file", {"path": str(outside)}),
        ("read_file", {"path": "link-out"}),
        ("read_file", {"path": "dir-out/secret.txt"}),
        ("write_file", {"path": "../evil.txt", "content": "x"}),
        ("write_file", {"path": "link-out", "content": "overwritten"}),
        ("delete_file", {"path": "link-out"}),
        ("move_file", {"source": "dir-out/secret.txt", "destination": "stolen.txt"}),
        ("list_directory", {"path": ".."}),
        ("make_directory", {"path": str(tmp_path / "made-outside")}),
    ]
    async with python_server_client("-m", "edgehost.servers.files", "--root", str(root)) as client:
        for name, arguments in attempts:
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, arguments, text_of(result))
            assert "outside the files folder" in text_of(result), text_of(result)
    assert outside.read_text() == "top secret"
    assert not (tmp_path / "evil.txt").exists()
    assert not (tmp_path / "made-outside").exists()


async def test_edgehost_serve_files_dispatches_to_the_files_server(tmp_path: Path) -> None:
    root = tmp_path / "served"
    async with python_server_client("-m", "edgehost", "serve", "files", "--root", str(root)) as client:
        await call_ok(client, "write_file", {"path": "hello.txt", "content": "hi"})
    assert (root / "hello.txt").read_text() == "hi"


async def test_serve_files_without_root_uses_the_data_dir(tmp_path: Path) -> None:
    data = tmp_path / "data"
    async with python_server_client("-m", "edgehost", "--data-dir", str(data), "serve", "files") as client:
        await call_ok(client, "write_file", {"path": "a.txt", "content": "a"})
    assert (data / "files" / "a.txt").read_text() == "a"


# --- the sandbox rules, without a process ---------------------------------------------------------


def test_a_symlink_inside_the_root_is_deleted_itself_not_its_target(tmp_path: Path) -> None:
    files = FilesRoot(tmp_path)
    (tmp_path / "real.txt").write_text("keep me")
    (tmp_path / "alias.txt").symlink_to(tmp_path / "real.txt")
    files.delete_file("alias.txt")
    assert not (tmp_path / "alias.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "keep me"


def test_reading_a_file_over_one_megabyte_returns_its_start_with_a_note(tmp_path: Path) -> None:
    files = FilesRoot(tmp_path)
    (tmp_path / "big.log").write_text("line of a log\n" * 200_000)
    text = files.read_file("big.log")
    assert len(text.encode()) < MAX_READ_BYTES + 200
    assert text.endswith("only the first 1048576 bytes (1 MB) are shown]")
    assert "has 2800000 bytes" in text


def test_binary_files_are_refused_by_read_file(tmp_path: Path) -> None:
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    with pytest.raises(ToolError, match="binary file"):
        FilesRoot(tmp_path).read_file("image.png")


def test_edit_file_without_old_text_adds_a_line_as_an_item_of_the_files_list(tmp_path: Path) -> None:
    files = FilesRoot(tmp_path)
    (tmp_path / "todo.md").write_text("- buy bread\n- water the plants")
    assert files.edit_file("todo.md", "", "pay the electricity bill") == "added a line at the end of todo.md"
    assert (
        tmp_path / "todo.md"
    ).read_text() == "- buy bread\n- water the plants\n- pay the electricity bill\n"
    (tmp_path / "steps.txt").write_text("1. boil water\n2. add pasta\n")
    files.edit_file("steps.txt", "", "drain")
    assert (tmp_path / "steps.txt").read_text().endswith("2. add pasta\n3. drain\n")
    (tmp_path / "notes.txt").write_text("Call the plumber on Monday.")
    files.edit_file("notes.txt", "", "- dentist on Thursday")
    assert (tmp_path / "notes.txt").read_text() == "Call the plumber on Monday.\n- dentist on Thursday\n"
    with pytest.raises(ToolError, match="both empty"):
        files.edit_file("notes.txt", "", "  ")


def test_edit_file_refuses_missing_and_ambiguous_text(tmp_path: Path) -> None:
    files = FilesRoot(tmp_path)
    (tmp_path / "a.txt").write_text("x = 1\nx = 1\n")
    with pytest.raises(ToolError, match="not found"):
        files.edit_file("a.txt", "y = 2", "y = 3")
    with pytest.raises(ToolError, match="occurs 2 times"):
        files.edit_file("a.txt", "x = 1", "x = 2")
    files.edit_file("a.txt", "x = 1", "x = 2", replace_all=True)
    assert (tmp_path / "a.txt").read_text() == "x = 2\nx = 2\n"


def test_the_root_itself_cannot_be_deleted_or_moved(tmp_path: Path) -> None:
    files = FilesRoot(tmp_path / "root")
    with pytest.raises(ToolError, match="cannot be deleted"):
        files.delete_file(".")
    with pytest.raises(ToolError, match="cannot be moved"):
        files.move_file("", "elsewhere")


def test_a_non_empty_directory_needs_recursive_to_be_deleted(tmp_path: Path) -> None:
    files = FilesRoot(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("x")
    with pytest.raises(ToolError, match="recursive=true"):
        files.delete_file("d")
    files.delete_file("d", recursive=True)
    assert not (tmp_path / "d").exists()


def test_write_file_without_overwrite_keeps_an_existing_file(tmp_path: Path) -> None:
    files = FilesRoot(tmp_path)
    files.write_file("a.txt", "first")
    with pytest.raises(ToolError, match="already exists"):
        files.write_file("a.txt", "second", overwrite=False)
    assert (tmp_path / "a.txt").read_text() == "first"


def test_listing_marks_links_that_point_outside(tmp_path: Path) -> None:
    root = tmp_path / "root"
    files = FilesRoot(root)
    (root / "out").symlink_to(tmp_path)
    assert "[link] out (points outside the files folder" in files.list_directory("")


def test_a_path_that_is_not_there_is_answered_with_the_files_folder_and_what_it_holds(tmp_path: Path) -> None:
    """Asked for "my home folder", the model read "'home' does not exist" as that folder being missing:
    nothing said the server sees only its own folder."""
    root = tmp_path / "files"
    files = FilesRoot(root)
    where = f"is not in the files folder ({root.resolve()}), the only folder these tools can see"
    with pytest.raises(ToolError) as empty:
        files.list_directory("home")
    assert str(empty.value) == f"'home' {where}; it is empty"
    (root / "notes").mkdir()
    (root / "notes" / "todo.txt").write_text("milk")
    (root / "a.txt").write_text("a")
    (root / "out").symlink_to(tmp_path)  # not usable: not named
    with pytest.raises(ToolError) as missing:
        files.list_directory("home")
    assert str(missing.value) == f"'home' {where}; it holds: notes/, a.txt"
    # Deeper, the folder of the path that is there is the one named.
    with pytest.raises(ToolError) as deeper:
        files.read_file("notes/todo.md")
    assert str(deeper.value) == f"'notes/todo.md' {where}; notes/ holds: todo.txt"
    for attempt in (
        lambda: files.delete_file("home"),
        lambda: files.move_file("home", "b"),
        lambda: files.search_files("*.txt", "home"),
    ):
        with pytest.raises(ToolError, match="it holds: notes/, a.txt"):
            attempt()
    assert not (tmp_path / "home").exists() and "home" not in {p.name for p in root.iterdir()}


def test_a_bare_file_name_stands_for_the_one_file_of_that_name_further_down(tmp_path: Path) -> None:
    """ "Move soup.md out of the recipes folder" gave source "soup.md": the file is recipes/soup.md. A
    name two files share stays missing: which one is the user's to say."""
    files = FilesRoot(tmp_path)
    (tmp_path / "recipes").mkdir()
    (tmp_path / "recipes" / "soup.md").write_text("onion, leek\n")
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "todo.txt").write_text("milk\n")
    (tmp_path / "todo.txt").write_text("eggs\n")  # in the folder itself: the name means this one
    (tmp_path / "a" / "notes.md").write_text("one")
    (tmp_path / "recipes" / "notes.md").write_text("two")

    assert files.read_file("soup.md") == "onion, leek\n"
    assert files.read_file("todo.txt") == "eggs\n"
    assert files.edit_file("soup.md", "leek", "garlic") == "replaced 1 occurrence(s) in recipes/soup.md"
    assert files.move_file("soup.md", "soup.md") == "moved recipes/soup.md to soup.md"
    assert (tmp_path / "soup.md").read_text() == "onion, garlic\n"
    with pytest.raises(ToolError, match="'notes.md' is not in the files folder"):
        files.read_file("notes.md")
    with pytest.raises(ToolError, match="'b/todo.md' is not in the files folder"):
        files.read_file("b/todo.md")  # a path with a folder is taken as written
    assert files.delete_file("todo.txt") == "deleted todo.txt"
    assert files.read_file("todo.txt") == "milk\n"  # now the only one
    assert files.delete_file("todo.txt") == "deleted a/b/todo.txt"


def test_a_missing_path_names_at_most_twenty_entries_of_the_folder(tmp_path: Path) -> None:
    files = FilesRoot(tmp_path)
    for n in range(25):
        (tmp_path / f"f{n:02d}.txt").write_text("x")
    with pytest.raises(ToolError, match=r"it holds: f00.txt, .*, f19.txt and 5 more$"):
        files.read_file("nope.txt")


async def test_a_path_outside_says_the_tools_see_only_the_files_folder(tmp_path: Path) -> None:
    root = tmp_path / "files"
    async with Client(build_server(root)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name in ("list_directory", "read_file", "search_files"):
            assert str(root) not in (tools[name].description or "")  # ranked: the same on every machine
        result = await client.call_tool("list_directory", {"path": "home"})
        assert result.is_error
        assert f"'home' is not in the files folder ({root.resolve()})" in text_of(result)


# --- paths no file can have, and a folder that changes while it is read ----------------------------

LONG_NAME = "n" * 300 + ".txt"

# What an adversarial probe sent (issue 30): each was "Error executing tool X" and a traceback in the
# server's stderr; each is now a tool error that says why.
IMPOSSIBLE_PATHS = [
    ("read_file", {"path": "a\0b.txt"}, "'a\\x00b.txt' has a NUL byte (\\0); no file name can hold one"),
    ("write_file", {"path": "notes/\0", "content": "x"}, "has a NUL byte"),
    ("list_directory", {"path": "\0"}, "has a NUL byte"),
    ("move_file", {"source": "here.txt", "destination": "x\0y"}, "has a NUL byte"),
    (
        "read_file",
        {"path": LONG_NAME},
        "the name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn'... in the path is 304 bytes long",
    ),
    ("write_file", {"path": f"notes/{LONG_NAME}", "content": "x"}, "a file name here has at most 255 bytes"),
    ("make_directory", {"path": LONG_NAME}, "is 304 bytes long"),
    ("delete_file", {"path": "\u00e9" * 200}, "is 400 bytes long"),  # 200 characters, 2 bytes each
    ("search_files", {"pattern": "*", "path": LONG_NAME}, "is 304 bytes long"),
    ("make_directory", {"path": "here.txt/inside"}, "'here.txt/inside': Not a directory"),
    ("write_file", {"path": "/".join(["d" * 200] * 30), "content": "x"}, "File name too long"),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "words"),
    IMPOSSIBLE_PATHS,
    ids=[f"{t}-{i}" for i, (t, *_) in enumerate(IMPOSSIBLE_PATHS)],
)
async def test_a_path_no_file_can_have_is_a_tool_error_saying_why_and_not_a_crash(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, tool: str, arguments: dict[str, object], words: str
) -> None:
    root = tmp_path / "files"
    root.mkdir()
    (root / "here.txt").write_text("x")
    async with Client(build_server(root)) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    assert text_of(result).startswith(f"Error executing tool {tool}: ") and words in text_of(result)
    assert not [record for record in caplog.records if record.exc_info], "the server logged a crash"
    assert sorted(p.name for p in root.iterdir()) == ["here.txt"]


def test_an_entry_removed_while_its_folder_is_listed_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = FilesRoot(tmp_path)
    (tmp_path / "stays.txt").write_text("here")
    (tmp_path / "sub").mkdir()
    real_iterdir = Path.iterdir

    def iterdir_then_removed(folder: Path) -> Iterator[Path]:
        # Another program removes gone.txt and gone/ just after the folder was read.
        yield from real_iterdir(folder)
        if folder == tmp_path.resolve():
            yield folder / "gone.txt"
            yield folder / "gone"

    monkeypatch.setattr(Path, "iterdir", iterdir_then_removed)
    assert files.list_directory("") == (
        f"the files folder ({tmp_path.resolve()}):\n[dir]  sub/\n[file] stays.txt (4 bytes)"
    )
