"""Arguments EdgeHost fills from what it knows of a server (agent/known_arguments.py), and the calls a
question never leads to (a destructive one it did not ask for). The turn runs against the real
reference git server (tests/peers/pyvenv) on a repository made here."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment
from tests.agent.test_turn_answers import Session, call
from tests.question_sets import everyday, reference_tools
from tests.support import CONNECT_TIMEOUT_S, tool_specs

from edgehost.agent import events as ev
from edgehost.agent._query_cues import asks_to_keep
from edgehost.agent.grounded_arguments import grounded_schema
from edgehost.agent.known_arguments import filled_by_host, known_arguments, served_folder, settled_arguments
from edgehost.agent.routing import CHANGE_TASK_THRESHOLD, decide_route, destructive_call_asked

REPO = Path(__file__).resolve().parents[2]
PEER_PYTHON = REPO / "tests" / "peers" / "pyvenv" / "bin" / "python"
LOG_SCHEMA = {
    "type": "object",
    "properties": {"repo_path": {"type": "string"}, "max_count": {"type": "integer", "default": 10}},
    "required": ["repo_path"],
}


def test_a_server_started_on_one_folder_serves_that_folder(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    script = tmp_path / "server.js"
    script.write_text("")

    def served(*args: str, roots: tuple[str, ...] = (), cwd: str | None = None) -> str | None:
        return served_folder(args, roots, cwd)

    assert served("-m", "mcp_server_git", "--repository", str(tmp_path)) == str(tmp_path)
    assert served(f"--root={tmp_path}") == str(tmp_path)
    assert served(str(script), str(tmp_path)) == str(tmp_path)  # a file is no folder
    assert served(roots=(str(tmp_path),)) == str(tmp_path)
    assert served(str(tmp_path), str(other)) is None  # which of two is not for EdgeHost to say
    assert served(str(tmp_path / "missing")) is None
    assert served("-y", "@modelcontextprotocol/server-memory") is None
    # A runner's folders are where it runs, not what the server serves.
    assert served("--directory", str(other), "run", "server.py") is None
    assert served("--config-dir", str(other), "--repository", str(tmp_path)) == str(tmp_path)
    assert served("run", "-v", f"{other}:/data", "image") is None
    assert served("./other", cwd=str(tmp_path)) == str(other)  # from the server's own folder


def test_only_the_place_a_tool_works_in_or_a_folder_it_reads_is_known() -> None:
    tools = {t.tool_name: t for t in reference_tools(("git", "filesystem"))}
    folder = "/srv/repository"

    def known(name: str) -> dict[str, str]:
        tool = tools[name]
        read_only = tool.hint("readOnlyHint") is True
        return known_arguments(name, tool.input_schema, folder, read_only=read_only)

    assert known("git_log") == {"repo_path": folder}
    assert known("git_commit") == {"repo_path": folder}  # it changes the repository it works in
    assert known("list_directory") == {"path": folder}  # a folder it only reads
    assert known("search_files") == {"path": folder}  # the folder a search looks in
    assert known("create_directory") == {}  # the folder it makes is the user's to name
    assert known("read_text_file") == {}  # a file never
    assert known_arguments("git_log", LOG_SCHEMA, None, read_only=True) == {}  # no one folder served
    # Names that only look like a place: a URL, an id, a hosting service's repository name.
    for name in ("repo_url", "project_id", "repo", "report_name", "root_cause"):
        schema = {"type": "object", "properties": {name: {"type": "string"}}, "required": [name]}
        assert known_arguments("t", schema, folder, read_only=True) == {}, name


def test_a_known_argument_is_offered_alone_unless_the_question_writes_a_path() -> None:
    known = {"repo_path": "/srv/repository"}
    schema = grounded_schema(LOG_SCHEMA, "show me the last 3 commits", "git_log", known)
    assert schema["properties"]["repo_path"]["enum"] == ["/srv/repository"]
    assert schema["properties"]["max_count"]["enum"] == [3]
    elsewhere = grounded_schema(LOG_SCHEMA, "show the commits of /home/anna/site", "git_log", known)
    assert elsewhere["properties"]["repo_path"]["enum"] == ["/home/anna/site", "/srv/repository"]
    branch = grounded_schema(LOG_SCHEMA, "the log of the branch called fix-typo", "git_log", known)
    assert branch["properties"]["repo_path"]["enum"] == ["/srv/repository"]  # a name is no repository
    # A folder argument (not a place) takes a folder the question names inside the served one.
    listing = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    photos = grounded_schema(
        listing, "what's in the photos folder?", "list_directory", {"path": "/srv/files"}
    )
    assert photos["properties"]["path"]["enum"] == ["/srv/files/photos", "/srv/files"]


def test_a_branch_written_like_a_path_keeps_its_name_when_the_repository_is_known() -> None:
    """ "Switch to the feature/login branch" offered branch_name only "Switch" and "branch": the branch's
    name reads as a path, and the values sharing a word with a place were taken out of the others,
    though the host fills the repository and the question names none."""
    checkout = {
        "type": "object",
        "properties": {"repo_path": {"type": "string"}, "branch_name": {"type": "string"}},
        "required": ["repo_path", "branch_name"],
    }
    known = {"repo_path": "/srv/repository"}
    switch = grounded_schema(checkout, "Switch to the feature/login branch", "git_checkout", known)
    assert switch["properties"]["repo_path"]["enum"] == ["/srv/repository"]
    assert "feature/login" in switch["properties"]["branch_name"]["enum"]
    # An optional base branch is no path: "named experiment" reads as a thing's name, not a base.
    create = {
        "type": "object",
        "properties": {
            "repo_path": {"type": "string"},
            "branch_name": {"type": "string"},
            "base_branch": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["repo_path", "branch_name"],
    }
    new = grounded_schema(create, "make a new branch named experiment off main", "git_create_branch", known)
    assert "base_branch" not in new["properties"]
    assert "experiment" in new["properties"]["branch_name"]["enum"]
    # A branch written with a "/" is one the question gives: the base a new branch starts from.
    hotfix = grounded_schema(create, "create branch hotfix from release/2.1", "git_create_branch", known)
    assert hotfix["properties"]["base_branch"]["enum"] == ["release/2.1"]
    # A place the question does give the known argument still keeps its words out of the others.
    searched = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "query": {"type": "string"}},
        "required": ["path", "query"],
    }
    garlic = grounded_schema(
        searched, "Do any of my recipes use garlic? (recipes/)", "search", {"path": "/srv/files"}
    )
    assert garlic["properties"]["path"]["enum"][0].startswith("/srv/files/recipes")
    assert not [value for value in garlic["properties"]["query"]["enum"] if "recipes" in value]


def test_a_value_the_model_left_out_is_filled_and_said_to_be_the_hosts() -> None:
    known = {"repo_path": "/srv/repository"}

    def settled(arguments: dict[str, object], question: str = "show the log", host: bool = False) -> dict:
        return settled_arguments(arguments, known, question, host_chose=host)

    assert settled({"max_count": 3}) == {"max_count": 3, "repo_path": "/srv/repository"}
    assert settled({"repo_path": " "})["repo_path"] == "/srv/repository"
    assert settled({"repo_path": "/elsewhere"}) == {"repo_path": "/elsewhere"}  # the model's own call
    # A call the host chose without a grammar (RKLLM): a word of the question is no repository.
    assert settled({"repo_path": "commits"}, "show the commits", host=True)["repo_path"] == "/srv/repository"
    assert settled({"repo_path": "/home/a/b"}, "the log of /home/a/b", host=True)["repo_path"] == "/home/a/b"
    assert filled_by_host({"repo_path": "/srv/repository"}, known, "show the log") == ("repo_path",)
    assert filled_by_host({"repo_path": "/srv/repository"}, known, "log of /srv/repository") == ()


def test_a_value_of_the_hosts_reading_the_user_did_not_write_is_said_to_be_the_hosts() -> None:
    """ "Add 'buy eggs' to my todo list" is read as naming todo.md (agent/named_files.py): the user
    typed neither the file name nor, after "Also, she lives in Lyon.", Anna."""
    written = "Add 'buy eggs' to my todo list"
    read = f"{written} (todo.md)"
    arguments = {"path": "todo.md", "content": "buy eggs"}
    assert filled_by_host(arguments, {}, read, written) == ("path",)
    assert filled_by_host(arguments, {}, read) == ()  # no other reading: nothing of it is the host's
    assert filled_by_host({"path": "todo.md"}, {}, "open todo.md", "open todo.md") == ()


def test_a_kept_text_the_host_offered_a_deletion_is_said_to_be_the_hosts() -> None:
    """ "Forget the garage code" cannot write "garage code is 4512": the host offered the memory's own
    text (agent/kept_values.py), and the card says the user did not type it."""
    question = "Forget the garage code, I've changed it."
    kept = frozenset({"Home", "place", "garage code is 4512"})
    deletions = {"deletions": [{"entityName": "Home", "observations": ["garage code is 4512"]}]}
    assert filled_by_host(deletions, {}, question, question, kept_texts=kept) == ("deletions",)
    assert filled_by_host(deletions, {}, question, question) == ()  # nothing kept was offered
    # What the model wrote itself is its own, not a kept text ("pet", a reworded observation) ...
    created = {"entities": [{"name": "Biscuit", "entityType": "pet", "observations": ["is five"]}]}
    assert filled_by_host(created, {}, "Remember Biscuit is five", kept_texts=kept) == ()
    # ... and a kept name the user wrote, in whatever case, is the user's: "forget home".
    assert filled_by_host({"entityNames": ["Home"]}, {}, "forget home", kept_texts=kept) == ()


def test_a_destructive_tool_is_no_candidate_for_a_question_that_does_not_ask_for_its_change() -> None:
    tools = {t.name: t for t in everyday("calibration").tools}
    delete = tools["files__delete_file"]
    # The embedded model once proposed delete_file {"path": "code"} for this one.
    assert not destructive_call_asked("Give me three tips for writing clean code", delete)
    assert not destructive_call_asked("How do I delete a file in Linux?", delete)  # names no file
    assert destructive_call_asked("delete old.log", delete)
    assert destructive_call_asked("please remove the recipes folder", delete)
    # Words for deleting that are no tool's verb: "wipe biscuit from your memory" called nothing.
    assert destructive_call_asked("wipe biscuit from your memory", tools["memory__delete_entities"])
    assert destructive_call_asked("purge the old entries about Sam", tools["memory__delete_entities"])
    # A tool that destroys nothing may always be a candidate; a known folder is no missing value.
    assert destructive_call_asked("Explain what a CPU is", tools["board__cpu_status"])
    # git_reset may destroy staged work and requires only the repository, which EdgeHost knows.
    reset = tools["git__git_reset"]
    assert destructive_call_asked("reset the staged changes", reset)
    assert not destructive_call_asked("reset the staged changes", replace(reset, known_arguments={}))
    # A question of how, whether or what if asks for words, though it names the change and all it needs.
    for question in (
        "How can I reset the staged changes?",
        "so how would I unstage everything",
        "Should I reset the staged changes before I switch branches?",
        "What happens if I reset the staged changes?",
    ):
        assert not destructive_call_asked(question, reset), question
    assert not destructive_call_asked("How do I delete old.log?", delete)
    assert destructive_call_asked("Can you delete old.log?", delete)


def test_a_change_the_question_says_not_to_make_or_the_askers_own_forgetting_asks_for_none() -> None:
    """ "My sister Anna's birthday is on 12 May, don't let me forget it" read "forget" as a deletion;
    read with it, its follow-up "Also, she lives in Lyon." deleted Anna."""
    tools = {t.name: t for t in everyday("calibration").tools}
    forget, delete = tools["memory__delete_entities"], tools["files__delete_file"]
    keep = "My sister Anna's birthday is on 12 May, don't let me forget it"
    assert not destructive_call_asked(keep, forget)
    assert not destructive_call_asked(f"{keep} Also, she lives in Lyon.", forget)
    assert asks_to_keep(keep)
    assert not destructive_call_asked("Don't delete old.log, I still need it", delete)
    assert not destructive_call_asked("Never remove notes.txt", delete)
    assert not destructive_call_asked("I keep forgetting what's in todo.md", delete)
    assert not destructive_call_asked("Before I forget: Anna moved to Lyon", forget)
    # Or a verb the asker would hate to, or does not want to, see done.
    gloria = "My pharmacist is called Gloria and she works at the chemist on Bridge Street. I'd hate to forget that."
    assert not destructive_call_asked(gloria, forget)
    assert not destructive_call_asked("I don't want to forget that Ali's birthday is 3 June", forget)
    assert not destructive_call_asked("I don't want you to delete anything, just list the notes", delete)
    # Typed on a phone, with a curly apostrophe.
    assert not destructive_call_asked(keep.replace("'t", "’t"), forget)
    assert not destructive_call_asked("Don’t delete old.log, I still need it", delete)
    # A verb of its own after a negated one is still asked for, and so is the same verb where it is
    # not negated; so is forgetting as a request.
    assert destructive_call_asked("Don't worry about it, delete old.log", delete)
    assert destructive_call_asked("Delete old.log but don't delete new.log", delete)
    assert destructive_call_asked("Forget Bob. Don't forget Anna.", forget)
    assert destructive_call_asked("I always forget things. Forget Bob entirely.", forget)
    assert destructive_call_asked("forget Anna completely", forget)
    assert destructive_call_asked("I hate to ask, but delete old.log", delete)


def test_a_delete_tool_is_no_candidate_for_a_change_that_only_adds() -> None:
    """Any "remember" asked for a change, so the memory server's delete tools passed the check for a
    plain request to keep a fact: it checked that some change was asked, not which."""
    tools = {t.name: t for t in everyday("calibration").tools}
    forget, create = tools["memory__delete_entities"], tools["memory__create_entities"]
    drop = tools["memory__delete_observations"]
    nas = "Remember that my NAS has 8 GB of RAM"
    assert destructive_call_asked(nas, create)
    assert not destructive_call_asked(nas, forget)
    assert not destructive_call_asked(nas, drop)
    assert not destructive_call_asked("move notes.txt into the archive folder", tools["files__delete_file"])
    # A change that may take away what was kept, or both at once, still asks for the delete tools.
    assert destructive_call_asked(
        "Update what you know about my dentist: the practice has moved to Elm Road.", drop
    )
    assert destructive_call_asked("Forget Bob's old address and remember that he lives in Leeds now", forget)
    assert destructive_call_asked("delete old.log and write a new one", tools["files__delete_file"])


def test_a_delete_tool_is_no_candidate_for_throwing_away_the_changes_made_to_a_file() -> None:
    """ "discard the changes I made to notes.txt" deleted notes.txt: "discard" asked for a change that
    takes something away, and the check did not ask what it takes away. The changes are not the file."""
    delete = {t.name: t for t in everyday("calibration").tools}["files__delete_file"]
    assert not destructive_call_asked("discard the changes I made to notes.txt", delete)
    assert not destructive_call_asked("throw away my local edits to app.py", delete)
    assert not destructive_call_asked("Get rid of the changes in todo.md", delete)
    # The file itself, or the file as well as the changes, is still asked for.
    assert destructive_call_asked("delete notes.txt", delete)
    assert destructive_call_asked("delete the file with my changes, notes.txt", delete)
    assert destructive_call_asked("discard my edits and delete old.log", delete)


def test_a_question_read_as_a_task_with_near_certainty_asks_for_its_best_tools_change() -> None:
    """The words for a change are too many to list ("ditch", "overwrite", "cut that link"): a
    question the probe reads as a task at CHANGE_TASK_THRESHOLD or more asks for the change its best
    tool makes, still only with the values the tool needs and never when it asks how or whether."""
    delete = {t.name: t for t in everyday("calibration").tools}["files__delete_file"]
    question = "Ditch old.log, I've no use for it."
    assert not destructive_call_asked(question, delete)  # no word of it is a listed word for a change
    assert destructive_call_asked(question, delete, task=CHANGE_TASK_THRESHOLD)
    assert not destructive_call_asked(question, delete, task=CHANGE_TASK_THRESHOLD - 0.1)
    assert not destructive_call_asked("How would I ditch old.log?", delete, task=0.99)
    assert not destructive_call_asked("Ditch the old stuff", delete, task=0.99)  # names no file
    # Routing passes the probe's reading on: the same question and tool score, read as a task or not.
    asked = decide_route([delete], [0.7], None, question=question, task=0.95)
    assert [t.name for t in asked.candidates] == ["files__delete_file"]
    unsure = decide_route([delete], [0.7], None, question=question, task=0.6)
    assert not unsure.needs_tool and "does not ask for what files__delete_file would change" in unsure.reason


@contextlib.asynccontextmanager
async def git_session(repository: Path) -> AsyncIterator[Session]:
    if not PEER_PYTHON.exists():
        pytest.fail(f"{PEER_PYTHON} is missing: run `make peers`")
    params = StdioServerParameters(
        command=str(PEER_PYTHON),
        args=["-m", "mcp_server_git", "--repository", str(repository)],
        env=get_default_environment(),
    )
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(params) as client:
            listed = await client.list_tools()
            yield Session(client, tool_specs({"git": listed.tools}, folders={"git": str(repository)}))


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A repository with one commit, as a user's project."""
    folder = tmp_path / "plants"
    folder.mkdir()
    author = ["-c", "user.email=a@example.org", "-c", "user.name=A"]
    for command in (
        ["init", "-q", "-b", "main"],
        [*author, "commit", "-q", "--allow-empty", "-m", "Add the cactus"],
    ):
        subprocess.run(["git", "-C", str(folder), *command], check=True)
    return folder


async def test_the_repository_of_the_git_server_is_filled_in_and_shown_as_edgehosts(repository: Path) -> None:
    async with git_session(repository) as session:
        # The model wrote no repository, as a user asking "show me the latest commits" gives none.
        completed = await session.turn(
            "show me the latest commits",
            [call("git__git_log", max_count=3), "The last commit adds the cactus."],
        )
    [started] = session.of(ev.ToolExecutionStarted)
    assert started.arguments == {"max_count": 3, "repo_path": str(repository)}
    assert started.filled_by_host == ("repo_path",)
    [finished] = session.of(ev.ToolExecutionFinished)
    assert finished.status == "ok" and "Add the cactus" in finished.result_text
    assert completed.executions[0]["filled_by_host"] == ["repo_path"]


async def test_staging_everything_offers_the_whole_repository_and_stages_it(repository: Path) -> None:
    """ "stage everything" offered git_add's files "stage" and "everything", and "git add ." the word
    "git": no file of the repository. The git server takes ["."] for all of it."""
    (repository / "notes.txt").write_text("water the cactus\n")
    (repository / "todo.md").write_text("- repot\n")
    async with git_session(repository) as session:
        [add] = [t for t in session.tools if t.name == "git__git_add"]

        def files(question: str) -> list[object]:
            schema = grounded_schema(
                add.input_schema, question, add.name, add.known_arguments, add.description
            )
            files = schema["properties"]["files"]
            return list(files.get("enum") or files["items"]["enum"])

        assert files("stage everything") == ["."]
        assert files("git add .") == ["."]
        assert files("please add all my changes") == ["."]
        assert files("stage notes.txt and todo.md") == [["notes.txt", "todo.md"]]  # the files it writes
        assert "." not in files("stage all the .md files")  # a kind of file, not all of them
        await session.turn("stage everything", [call("git__git_add", files=["."]), "Staged."])
    [finished] = session.of(ev.ToolExecutionFinished)
    assert finished.status == "ok"
    staged = await anyio.run_process(["git", "-C", str(repository), "diff", "--cached", "--name-only"])
    assert staged.stdout.decode().split() == ["notes.txt", "todo.md"]


def test_a_revision_is_the_hash_the_question_writes_or_head_for_the_last_commit() -> None:
    """ "show me commit a1b2c3d" offered the git server's revision "commit" first, nearer by meaning."""
    show = {
        "type": "object",
        "properties": {"repo_path": {"type": "string"}, "revision": {"type": "string"}},
        "required": ["repo_path", "revision"],
    }
    known = {"repo_path": "/srv/repository"}

    def revision(question: str) -> list[str]:
        return grounded_schema(show, question, "git_show", known)["properties"]["revision"]["enum"]

    assert revision("show me commit a1b2c3d") == ["a1b2c3d"]
    assert revision("what did 3f9e2c1b change?") == ["3f9e2c1b"]
    assert revision("show me the last commit") == ["HEAD"]
    # Not the commit before it, nor the last of a branch it names.
    assert revision("show the second to last commit") != ["HEAD"]
    assert revision("show the commit before the last commit") != ["HEAD"]
    assert "develop" in revision("show me the last commit on develop")
    # An argument that holds a text about a commit, or a word with "sha" in it, takes no hash.
    message = {
        "type": "object",
        "properties": {"commit_message": {"type": "string"}},
        "required": ["commit_message"],
    }
    amend = grounded_schema(message, "amend the last commit with the message fix typo", "git_amend")
    assert amend["properties"]["commit_message"]["enum"] != ["HEAD"]
    shape = {"type": "object", "properties": {"shape": {"type": "string"}}, "required": ["shape"]}
    assert (
        "circle"
        in grounded_schema(shape, "draw a circle in colour 1a2b3c4", "draw")["properties"]["shape"]["enum"]
    )
    assert "main" in revision("show me main")  # a branch is a revision too, and no hash is written
    assert "1234567" in revision(
        "show 1234567"
    )  # digits alone: a number as much as a hash, left to the words
