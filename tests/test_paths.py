"""Where state goes, and that new state folders are private."""

from __future__ import annotations

import stat
from pathlib import Path

from edgehost.paths import Paths


def test_data_dir_holds_all_state(tmp_path: Path) -> None:
    paths = Paths.resolve(None, tmp_path / "d")
    assert {paths.settings_file.parent, paths.history_db.parent, paths.servers_file.parent} == {
        tmp_path / "d"
    }
    assert paths.log_dir == tmp_path / "d" / "logs"


def test_new_state_folders_are_readable_only_by_their_owner(tmp_path: Path) -> None:
    paths = Paths.resolve(None, tmp_path / "fresh").ensure()
    for folder in (paths.data_dir, paths.log_dir):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_an_existing_folder_keeps_its_permissions(tmp_path: Path) -> None:
    existing = tmp_path / "shared"
    existing.mkdir(mode=0o755)
    existing.chmod(0o755)
    Paths.resolve(None, existing).ensure()
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755


def test_an_explicit_config_file_wins(tmp_path: Path) -> None:
    config = tmp_path / "c.json"
    assert Paths.resolve(config, tmp_path / "d").servers_file == config.resolve()
