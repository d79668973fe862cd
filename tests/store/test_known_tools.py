"""The tools each server listed when last connected, kept in the history file (store/_known_tools.py)."""

from __future__ import annotations

from pathlib import Path

from edgehost.store import Store

UPTIME = {"name": "board__uptime", "description": "How long the board has been up", "input_schema": {}}
CLOCK = {"name": "board__clock", "description": "Date and time", "input_schema": {"type": "object"}}


def test_a_servers_new_listing_replaces_its_old_one_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    with Store.open(path) as store:
        store.known_tools.remember("board", [UPTIME])
        store.known_tools.remember("files", [])
        store.known_tools.remember("board", [UPTIME, CLOCK])
    with Store.open(path) as store:
        assert store.known_tools.load() == {"board": [UPTIME, CLOCK], "files": []}


def test_a_row_that_is_not_a_listing_is_left_out(tmp_path: Path) -> None:
    with Store.open(tmp_path / "history.db") as store:
        store.known_tools.remember("board", [UPTIME])
        with store._transaction() as conn:
            conn.execute("INSERT INTO known_tools VALUES ('odd', '{not json', 0)")
            conn.execute("INSERT INTO known_tools VALUES ('other', '[{\"no\": \"name\"}]', 0)")
        assert store.known_tools.load() == {"board": [UPTIME], "other": []}
