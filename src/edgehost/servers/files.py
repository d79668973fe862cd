"""The built-in ``files`` MCP server: list, read, write, edit, move, delete and search files in one folder.

Every path is relative to the root folder. Anything that would leave it (``..``, an absolute path
elsewhere, a symlink pointing out) is refused with a tool error, so a model can only touch what the
user put in that folder. A path that is not there is answered with where the folder is and what it
holds: a model asked about "my home folder" otherwise reads "'home' does not exist" as the user's
home folder being missing. A bare file name that is not in the folder itself stands for the one
file of that name further down, if only one has it ("soup.md" for recipes/soup.md). A path no file can
have (a NUL byte, a name too long) and a failure of the file system (permission denied, disk full) are
tool errors saying so, never a crash.
Run it with ``edgehost serve files --root DIR``.
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import os
import re
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Concatenate, ParamSpec

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from edgehost import __version__
from edgehost.paths import Paths
from edgehost.servers._common import run_stdio

__all__ = ["FilesRoot", "build_server", "main"]

MAX_READ_BYTES = 1024 * 1024  # what one read returns: more would not fit any edge model's context anyway
MAX_WRITE_BYTES = 10 * 1024 * 1024
MAX_LISTED_ENTRIES = 1000
MAX_SEARCH_RESULTS = 200
MAX_SEARCHED_FILE_BYTES = 4 * 1024 * 1024  # content search skips bigger files (logs, images)
MAX_SCANNED_FILES = 50_000  # bounds one search to seconds even on an SD card
MAX_NAMED_ENTRIES = 20  # what an error about a missing path names of the folder's contents
DEFAULT_NAME_MAX = 255  # bytes in one file name: ext4, btrfs, xfs, exFAT, NTFS (in UTF-16 units)

_P = ParamSpec("_P")

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
_CREATES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
_DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

# Each tool says what kind of path it takes: a model (and the ranker) reads a directory tool's example.
FilePath = Annotated[str, Field(description="File path relative to the files folder, e.g. 'notes/todo.txt'.")]
DirectoryPath = Annotated[
    str,
    Field(
        description="Directory relative to the files folder, e.g. 'notes'; '' or '.' for the files folder itself."
    ),
]
EntryPath = Annotated[
    str,
    Field(description="File or directory relative to the files folder, e.g. 'notes/todo.txt' or 'notes'."),
]
NewDirectoryPath = Annotated[
    str, Field(description="The new directory, relative to the files folder, e.g. 'notes/2026'.")
]


def _explained(
    operation: Callable[Concatenate[FilesRoot, _P], str],
) -> Callable[Concatenate[FilesRoot, _P], str]:
    """``operation`` with a failure of the file system (OSError) raised as a ToolError saying which path
    and why: anything else reaches the model as a bare "Error executing tool" and a traceback."""

    @functools.wraps(operation)
    def explained(files: FilesRoot, *args: _P.args, **kwargs: _P.kwargs) -> str:
        try:
            return operation(files, *args, **kwargs)
        except OSError as exc:
            raise ToolError(files.os_error_text(exc)) from None

    return explained


class FilesRoot:
    """File operations confined to one folder. Every method raises ToolError with a message for the model."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root.resolve()
        try:
            self.name_max = os.pathconf(self.root, "PC_NAME_MAX")
        except (AttributeError, OSError, ValueError):  # no pathconf (Windows), or it does not say
            self.name_max = DEFAULT_NAME_MAX

    def os_error_text(self, exc: OSError) -> str:
        """What failed, for the model: the path as it knows it (relative to the root) and the reason."""
        reason = exc.strerror or str(exc)
        if exc.filename is None:
            return reason
        failed = Path(os.fsdecode(exc.filename))
        where = self.relative(failed) if failed == self.root or self.root in failed.parents else str(failed)
        return f"{where!r}: {reason}"

    # --- paths --------------------------------------------------------------------------------

    def resolve(self, path: str) -> Path:
        """The real location of ``path`` inside the root. Raises ToolError for anything outside it, and
        for a path no file can have (a NUL byte, a name longer than the file system allows)."""
        text = path.strip()
        if "\0" in text:
            raise ToolError(f"{path!r} has a NUL byte (\\0); no file name can hold one")
        for name in Path(text).parts:
            size = len(os.fsencode(name))
            if size > self.name_max:
                raise ToolError(
                    f"the name {name[:40]!r}... in the path is {size} bytes long; a file name here has at "
                    f"most {self.name_max} bytes"
                )
        candidate = Path(text) if text else Path(".")
        if candidate.is_absolute():
            target = candidate
        elif text.startswith("~"):
            raise ToolError(
                f"{path!r} is outside the files folder: paths are relative to it, e.g. 'notes/todo.txt'"
            )
        else:
            target = self.root / candidate
        resolved = target.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            how = "points outside" if self._through_symlink(target) else "is outside"
            raise ToolError(
                f"{path!r} {how} the files folder; only paths inside it are allowed (relative, e.g. 'notes/todo.txt')"
            )
        return resolved

    def _through_symlink(self, target: Path) -> bool:
        return any(part.is_symlink() for part in [target, *target.parents] if part != part.parent)

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() or "."

    def _existing(self, path: str) -> Path:
        resolved = self.resolve(path)
        if resolved.exists():
            return resolved
        only = self._only_file_named(path)
        if only is None:
            raise ToolError(self._missing(path, resolved))
        return only

    def _only_file_named(self, path: str) -> Path | None:
        """The one file in the files folder's tree named ``path``, when ``path`` is a bare file name
        ("soup.md", said of recipes/soup.md: people name a file, not where it sits) and exactly one
        file has that name; None otherwise. What the tool did names the file by its whole path."""
        name = path.strip()
        if not name or "/" in name or "\\" in name or name.startswith((".", "~")):
            return None
        found: Path | None = None
        for scanned, file in enumerate(self._walk(self.root), start=1):
            if scanned > MAX_SCANNED_FILES:
                return None
            if file.name == name:
                if found is not None:
                    return None  # two files of that name: which one is the user's to say
                found = file
        return found

    def _missing(self, path: str, resolved: Path) -> str:
        """Why ``path`` is not found, said so that the files folder reads as all there is: where it is,
        and what it (or the deepest folder of ``path`` that exists) holds."""
        folder = next(
            p for p in resolved.parents if p.is_dir() and (p == self.root or self.root in p.parents)
        )
        where = f"{path!r} is not in the files folder ({self.root}), the only folder these tools can see"
        which = "it" if folder == self.root else f"{self.relative(folder)}/"
        names = self._names(folder)
        return f"{where}; {which} holds: {names}" if names else f"{where}; {which} is empty"

    def _names(self, folder: Path) -> str:
        """The entries of ``folder`` inside the root, directories first and marked with a slash."""
        usable = []
        for entry in folder.iterdir():
            real = entry.resolve()
            if real == self.root or self.root in real.parents:
                usable.append(
                    (not real.is_dir(), entry.name.lower(), entry.name + ("/" if real.is_dir() else ""))
                )
        names = [name for *_key, name in sorted(usable)]
        more = len(names) - MAX_NAMED_ENTRIES
        return ", ".join(names[:MAX_NAMED_ENTRIES]) + (f" and {more} more" if more > 0 else "")

    def _entry(self, path: str) -> Path:
        """Like _existing, but a symlink (to somewhere inside) is itself the answer, not its target:
        deleting or moving a link must not touch what it points to."""
        resolved = self._existing(path)
        if resolved == self.root:
            return resolved
        entry = self.resolve(str(Path(path.strip()).parent)) / Path(path.strip()).name
        return entry if entry.is_symlink() else resolved

    def _file(self, path: str) -> Path:
        resolved = self._existing(path)
        if resolved.is_dir():
            raise ToolError(f"{path!r} is a directory, not a file")
        return resolved

    # --- operations ---------------------------------------------------------------------------

    @_explained
    def list_directory(self, path: str = "") -> str:
        folder = self._existing(path)
        if not folder.is_dir():
            raise ToolError(f"{path!r} is a file, not a directory")
        entries = sorted(folder.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower()))
        lines = []
        for entry in entries[:MAX_LISTED_ENTRIES]:
            try:
                lines.append(self._listed(entry))
            except FileNotFoundError:  # removed since the folder was read: it is not there to list
                continue
        if len(entries) > MAX_LISTED_ENTRIES:
            lines.append(f"... and {len(entries) - MAX_LISTED_ENTRIES} more entries")
        # Named so that neither the model nor the user reads "." as the folder they asked about.
        where = (
            f"the files folder ({self.root})"
            if folder == self.root
            else f"{self.relative(folder)} (in the files folder, {self.root})"
        )
        return f"{where}: empty" if not lines else f"{where}:\n" + "\n".join(lines)

    def _listed(self, entry: Path) -> str:
        """The listing line of ``entry``. Raises FileNotFoundError when it is no longer there."""
        entry.lstat()
        real = entry.resolve()
        if real != self.root and self.root not in real.parents:
            return f"[link] {entry.name} (points outside the files folder; not usable)"
        if entry.is_dir():
            return f"[dir]  {entry.name}/"
        size = entry.stat().st_size if not entry.is_symlink() or entry.exists() else 0
        return f"[file] {entry.name} ({size} bytes)"

    @_explained
    def read_file(self, path: str) -> str:
        file = self._file(path)
        size = file.stat().st_size
        with file.open("rb") as handle:
            data = handle.read(MAX_READ_BYTES)
        if b"\0" in data[:8192]:
            raise ToolError(f"{path!r} is a binary file ({size} bytes); read_file returns text only")
        text = data.decode("utf-8", errors="replace")
        if size > MAX_READ_BYTES:
            text = text[: text.rfind("\n") + 1 or len(text)]
            text += f"\n[read_file: {path!r} has {size} bytes; only the first {MAX_READ_BYTES} bytes (1 MB) are shown]"
        return text

    @_explained
    def write_file(self, path: str, content: str, overwrite: bool = True) -> str:
        target = self.resolve(path)
        data = content.encode("utf-8")
        if len(data) > MAX_WRITE_BYTES:
            raise ToolError(
                f"content is {len(data)} bytes; write_file accepts at most {MAX_WRITE_BYTES} bytes"
            )
        if target.is_dir():
            raise ToolError(f"{path!r} is a directory")
        existed = target.exists()
        if existed and not overwrite:
            raise ToolError(f"{path!r} already exists (pass overwrite=true to replace it)")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return f"{'replaced' if existed else 'created'} {self.relative(target)} ({len(data)} bytes)"

    @_explained
    def edit_file(self, path: str, old_text: str, new_text: str, replace_all: bool = False) -> str:
        file = self._file(path)
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"{path!r} is not UTF-8 text; edit_file edits text files only") from None
        if not old_text:
            if not new_text.strip():
                raise ToolError("old_text and new_text are both empty; give the text to replace or to add")
            file.write_text(_with_line_added(text, new_text), encoding="utf-8")
            return f"added a line at the end of {self.relative(file)}"
        count = text.count(old_text)
        if count == 0:
            raise ToolError(
                f"old_text was not found in {path!r}; it must match the file exactly, spaces included"
            )
        if count > 1 and not replace_all:
            raise ToolError(
                f"old_text occurs {count} times in {path!r}; give more surrounding text to pick one, "
                "or pass replace_all=true"
            )
        file.write_text(text.replace(old_text, new_text), encoding="utf-8")
        return f"replaced {count if replace_all else 1} occurrence(s) in {self.relative(file)}"

    @_explained
    def move_file(self, source: str, destination: str) -> str:
        origin = self._entry(source)
        target = self.resolve(destination)
        if origin == self.root:
            raise ToolError("the files folder itself cannot be moved")
        if target.exists():
            raise ToolError(f"{destination!r} already exists; delete it first or pick another name")
        if origin.is_dir() and not origin.is_symlink() and (target == origin or origin in target.parents):
            raise ToolError(f"cannot move {source!r} into itself")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(origin), str(target))
        return f"moved {self.relative(origin)} to {self.relative(target)}"

    @_explained
    def delete_file(self, path: str, recursive: bool = False) -> str:
        target = self._entry(path)
        if target == self.root:
            raise ToolError("the files folder itself cannot be deleted")
        if target.is_dir() and not target.is_symlink():
            if any(target.iterdir()) and not recursive:
                raise ToolError(
                    f"{path!r} is a directory that is not empty; pass recursive=true to delete it all"
                )
            shutil.rmtree(target)
            return f"deleted directory {self.relative(target)}"
        target.unlink()
        return f"deleted {self.relative(target)}"

    @_explained
    def make_directory(self, path: str) -> str:
        target = self.resolve(path)
        if target.exists() and not target.is_dir():
            raise ToolError(f"{path!r} exists and is a file")
        target.mkdir(parents=True, exist_ok=True)
        return f"directory {self.relative(target)} is ready"

    @_explained
    def search_files(self, pattern: str = "", path: str = "", contains: str = "") -> str:
        folder = self._existing(path)
        if not folder.is_dir():
            raise ToolError(f"{path!r} is a file, not a directory")
        if not pattern and not contains:
            raise ToolError("give a name pattern, a text to look for (contains), or both")
        hits: list[str] = []
        for scanned, file in enumerate(self._walk(folder), start=1):
            if scanned > MAX_SCANNED_FILES:
                hits.append(
                    f"[stopped after looking at {MAX_SCANNED_FILES} files; search a smaller directory]"
                )
                break
            relative = self.relative(file)
            if pattern and not _name_matches(pattern, file.name, relative):
                continue
            if contains:
                line = _first_line_containing(file, contains)
                if line is None:
                    continue
                hits.append(f"{relative}:{line[0]}: {line[1]}")
            else:
                hits.append(relative)
            if len(hits) >= MAX_SEARCH_RESULTS:
                hits.append(f"[stopped after {MAX_SEARCH_RESULTS} results; narrow the search]")
                break
        return "\n".join(hits) if hits else "no matching files"

    def _walk(self, folder: Path) -> Iterator[Path]:
        for current, dirs, files in os.walk(folder):
            base = Path(current)
            dirs[:] = sorted(d for d in dirs if not (base / d).is_symlink())
            for name in sorted(files):
                file = base / name
                real = file.resolve()
                if self.root in real.parents and real.is_file():
                    yield file


# A list item's mark at the start of a line: "- ", "* ", "+ ", "- [ ] ", "3. ", "3) ".
_ITEM_MARK = re.compile(r"^(\s*)(?:([-*+])(\s+\[[ xX]\])?|(\d+)([.)]))\s+")


def _with_line_added(text: str, line: str) -> str:
    """``text`` with ``line`` added as its last line; written as an item of the list the file ends with,
    when it does and ``line`` is not one already ("- buy bread" then "- pay the bill")."""
    line = line.strip("\n")
    lines = text.rstrip("\n").splitlines()
    mark = _ITEM_MARK.match(lines[-1]) if lines else None
    if mark is not None and not _ITEM_MARK.match(line):
        indent, bullet, box, number, closer = mark.groups()
        if bullet:
            line = f"{indent}{bullet}{' [ ]' if box else ''} {line}"
        else:
            line = f"{indent}{int(number) + 1}{closer} {line}"
    body = text if not text or text.endswith("\n") else text + "\n"
    return f"{body}{line}\n"


def _name_matches(pattern: str, name: str, relative: str) -> bool:
    """Whether a file matches a search's name pattern: a glob on its name or its path, part of its
    name, or the name of a folder it is in ("recipes" with contains "garlic": the garlic recipes; a
    small model asked "do any of my recipes use garlic?" puts the folder there, not in ``path``)."""
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(relative, pattern)
    wanted = pattern.lower().strip("/")
    return wanted in name.lower() or wanted in relative.lower().split("/")[:-1]


def _first_line_containing(file: Path, text: str) -> tuple[int, str] | None:
    """The first line of ``file`` holding ``text`` (any case); None when none does, or the file is too
    big, not UTF-8, or cannot be read (removed since it was found, not readable)."""
    needle = text.lower()
    try:
        if file.stat().st_size > MAX_SEARCHED_FILE_BYTES:
            return None
        with file.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if needle in line.lower():
                    return number, line.strip()[:200]
    except (UnicodeDecodeError, OSError):
        return None
    return None


def build_server(root: Path) -> MCPServer:
    """The ``files`` MCPServer serving ``root`` (created if missing)."""
    files = FilesRoot(root)
    server = MCPServer(
        name="files",
        title="EdgeHost files",
        version=__version__,
        instructions=(
            f"Files in one folder chosen by the user, the files folder ({files.root}). Paths are relative to "
            "that folder; paths outside it are refused. It is not the user's home folder nor the whole disk."
        ),
        log_level="WARNING",
    )
    # Registered in this order, which is the order tools/list gives them in.
    _add_reading_tools(server, files)
    _add_changing_tools(server, files)
    _add_finding_and_making_tools(server, files)
    return server


def _add_reading_tools(server: MCPServer, files: FilesRoot) -> None:
    # The tools' descriptions do not repeat that paths are inside the files folder: a description is
    # what the ranker embeds, and the sentence moved "Read recipes/pasta.md" off read_file (routing gate
    # 0.939 -> 0.918 in bench/selection_recall.py). The instructions above say it, and so does the error
    # for a path that is not there, with the folder and what it holds.
    @server.tool(annotations=_READ_ONLY, structured_output=False)
    def list_directory(path: DirectoryPath = "") -> str:
        """List what a directory (folder) of the files folder holds: sub-directories first, then files with
        their sizes."""
        return files.list_directory(path)

    @server.tool(annotations=_READ_ONLY, structured_output=False)
    def read_file(path: FilePath) -> str:
        """Read a text file (UTF-8). Files over 1 MB are cut to their first 1 MB, with a note saying so."""
        return files.read_file(path)


def _add_changing_tools(server: MCPServer, files: FilesRoot) -> None:
    @server.tool(annotations=_DESTRUCTIVE, structured_output=False)
    def write_file(
        path: FilePath,
        content: Annotated[str, Field(description="The whole new text of the file.")],
        overwrite: Annotated[bool, Field(description="Replace the file if it exists (default true).")] = True,
    ) -> str:
        """Create or replace a text file with the given content; missing parent directories are created."""
        return files.write_file(path, content, overwrite)

    @server.tool(annotations=_DESTRUCTIVE, structured_output=False)
    def edit_file(
        path: FilePath,
        new_text: Annotated[str, Field(description="Text to put in its place, or the line to add.")],
        old_text: Annotated[
            str,
            Field(description="Exact text to replace, as it is in the file; left out, new_text is added."),
        ] = "",
        replace_all: Annotated[
            bool, Field(description="Replace every occurrence instead of exactly one.")
        ] = False,
    ) -> str:
        """Replace exact text in a file, or add a line at its end (old_text left out). old_text must occur
        exactly once unless replace_all is true."""
        return files.edit_file(path, old_text, new_text, replace_all)

    @server.tool(annotations=_DESTRUCTIVE, structured_output=False)
    def move_file(
        source: Annotated[str, Field(description="File or directory to move, relative to the files folder.")],
        destination: Annotated[
            str, Field(description="New path, relative to the files folder; must not exist.")
        ],
    ) -> str:
        """Move or rename a file or directory inside the files folder."""
        return files.move_file(source, destination)

    @server.tool(annotations=_DESTRUCTIVE, structured_output=False)
    def delete_file(
        path: EntryPath,
        recursive: Annotated[bool, Field(description="Also delete a directory that is not empty.")] = False,
    ) -> str:
        """Delete a file, or a directory (an empty one unless recursive is true)."""
        return files.delete_file(path, recursive)


def _add_finding_and_making_tools(server: MCPServer, files: FilesRoot) -> None:
    @server.tool(annotations=_READ_ONLY, structured_output=False)
    def search_files(
        pattern: Annotated[
            str, Field(description="File name to look for: a glob such as '*.md', or part of a name.")
        ] = "",
        path: Annotated[str, Field(description="Directory to search in, relative to the files folder.")] = "",
        contains: Annotated[
            str, Field(description="Only files whose text contains this (case-insensitive).")
        ] = "",
    ) -> str:
        """Find files by name (glob or part of the name) and/or by text they contain, in a directory and below."""
        return files.search_files(pattern, path, contains)

    @server.tool(annotations=_CREATES, structured_output=False)
    def make_directory(path: NewDirectoryPath) -> str:
        """Create a directory (and its missing parents) inside the files folder."""
        return files.make_directory(path)


def server_from_args(argv: Sequence[str] | None = None) -> MCPServer:
    """The server ``edgehost serve files [--root DIR]`` serves (argparse exits on bad arguments)."""
    parser = argparse.ArgumentParser(prog="edgehost serve files", description=__doc__.splitlines()[0])
    parser.add_argument("--root", metavar="DIR", help="the folder to serve (default: <data dir>/files)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    root = Path(args.root).expanduser() if args.root else Paths.resolve().files_root
    return build_server(root)


def main(argv: Sequence[str] | None = None) -> int:
    """``edgehost serve files [--root DIR]``: serve the folder over stdio until the client disconnects."""
    return run_stdio(server_from_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
