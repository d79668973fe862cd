"""Choosing the board profile: a profile the settings file names that does not exist falls back to the
detected one with a warning (an unknown --profile stays an error), a named profile for other hardware
is warned about, and the user's own profiles folder adds and overrides profiles."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from fake_sysfs import build, rk3588_board, x86_pc

from edgehost.boards import choose_profile, current_profile, detect_board, load_profiles
from edgehost.cli.main import main
from edgehost.errors import UsageError
from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.paths import Paths
from edgehost.settings import Settings

PROFILES_LOGGER = "edgehost.boards.profiles"


@pytest.fixture
def pc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = build(tmp_path / "root", x86_pc())
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(root))
    return root


def settings_naming(data_dir: Path, profile: str) -> Settings:
    (data_dir / "settings.json").write_text(json.dumps({"theme": "dark", "profile": profile}, indent=1))
    return Settings.load(data_dir / "settings.json")


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == PROFILES_LOGGER and r.levelno == logging.WARNING
    ]


def test_a_settings_profile_that_does_not_exist_falls_back_to_the_detected_one_and_warns_once(
    pc: Path, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = settings_naming(data_dir, "rock5b")
    info, profile = current_profile(None or settings.profile)  # as the app and `edgehost models` call it
    assert profile.name == "generic-x86_64" and info.machine
    current_profile(settings.profile)  # chosen again (the model catalog): not warned again
    [warning] = warnings_of(caplog)
    assert warning.startswith(f"{data_dir / 'settings.json'}:3: unknown board profile 'rock5b'")
    assert "(did you mean 'rock-5b'?)" in warning and "(field 'profile')" in warning
    assert "using the detected profile 'generic-x86_64'" in warning


def test_an_unknown_profile_on_the_command_line_stays_an_error_with_a_did_you_mean(pc: Path) -> None:
    with pytest.raises(
        UsageError, match=r"unknown board profile 'rock5b' \(did you mean 'rock-5b'\?\); known"
    ):
        current_profile("rock5b")


def test_a_settings_profile_is_saved_back_as_the_text_it_was(data_dir: Path) -> None:
    settings = settings_naming(data_dir, "rock5b")
    settings.theme = "light"
    settings.save(data_dir / "settings.json")
    assert json.loads((data_dir / "settings.json").read_text())["profile"] == "rock5b"
    assert Settings.load(data_dir / "settings.json").profile == "rock5b"


async def test_the_app_starts_with_the_detected_profile_when_the_settings_name_an_unknown_one(
    pc: Path, data_dir: Path
) -> None:
    # It had stopped at "EdgeHost could not start: unknown board profile 'rock5b'".
    settings = settings_naming(data_dir, "rock5b")
    host = Host(Paths.resolve(None, data_dir), settings, HostOptions(with_model=False, with_servers=False))
    try:
        await host.start()
        assert host.profile.name == "generic-x86_64"
    finally:
        await host.aclose()


def test_edgehost_models_runs_when_the_settings_name_an_unknown_profile(
    pc: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings_naming(data_dir, "rock5b")
    assert main(["--data-dir", str(data_dir), "models", "--json"]) == 0
    assert "Generic x86-64 PC" in capsys.readouterr().out


def test_a_named_profile_for_an_rk3588_on_a_pc_is_used_with_a_warning(pc: Path, data_dir: Path) -> None:
    info = detect_board(pc, machine="x86_64")
    choice = choose_profile(info, load_profiles(), "rock-5b")
    assert (choice.profile.name, choice.chosen_by) == ("rock-5b", "--profile")
    [warning] = choice.warnings
    assert (
        "'rock-5b' (--profile) is for an RK3588 board, but this machine is an x86_64 machine"
        in warning.problem
    )
    assert "detection chooses 'generic-x86_64'" in warning.problem
    setting = settings_naming(data_dir, "rock-5b").profile
    assert (
        f"the 'profile' setting in {data_dir / 'settings.json'}"
        in choose_profile(info, load_profiles(), setting).warnings[0].problem
    )


def test_a_named_profile_that_fits_the_board_and_detection_carry_no_warning(tmp_path: Path) -> None:
    info = detect_board(build(tmp_path, rk3588_board()), machine="aarch64")
    assert choose_profile(info, load_profiles(), "generic-rk3588").warnings == ()
    detected = choose_profile(info, load_profiles())
    assert detected.chosen_by == "detection" and detected.warnings == ()
    assert detected.rule == "device-tree compatible string 'xunlong,orangepi-5-plus'"


def test_a_user_profile_overrides_the_shipped_one_of_the_same_name_in_the_app(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", rk3588_board())))
    mine = data_dir / "board_profiles"
    mine.mkdir()
    shipped = (Path(load_profiles()[0].source or "").parent / "orangepi-5-plus.toml").read_text()
    (mine / "opi5plus.toml").write_text(shipped.replace("threads = 4", "threads = 3"))
    paths = Paths.resolve(None, data_dir)
    _info, profile = current_profile(None, paths=paths)
    assert (profile.name, profile.threads, profile.source) == (
        "orangepi-5-plus",
        3,
        str(mine / "opi5plus.toml"),
    )
    assert current_profile(None)[1].threads == 4  # without the user's folder: the shipped one


def test_a_user_profile_named_in_the_settings_is_found_beside_the_settings_file(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", x86_pc())))
    (data_dir / "board_profiles").mkdir()
    (data_dir / "board_profiles" / "my-pc.toml").write_text('display_name = "My PC"\nthreads = 2\n')
    (data_dir / "board_profiles" / "broken.toml").write_text('name = "broken"\nthread = 2\n')
    _info, profile = current_profile(settings_naming(data_dir, "my-pc").profile)
    assert (profile.name, profile.display_name, profile.threads) == ("my-pc", "My PC", 2)
    [warning] = warnings_of(caplog)  # the broken one is left out, by file and line
    assert warning.startswith(f"{data_dir / 'board_profiles' / 'broken.toml'}:2:1: unknown key 'thread'")
    assert "(did you mean 'threads'?)" in warning


def test_edgehost_models_fits_the_catalog_to_the_users_own_profile(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", rk3588_board())))
    mine = data_dir / "board_profiles"
    mine.mkdir()
    shipped = (Path(load_profiles()[0].source or "").parent / "orangepi-5-plus.toml").read_text()
    (mine / "opi5plus.toml").write_text(
        shipped.replace('display_name = "Orange Pi 5 Plus"', 'display_name = "My Orange Pi"')
    )
    assert main(["--data-dir", str(data_dir), "models", "--json"]) == 0
    board = json.loads(capsys.readouterr().out)["board"]
    assert board["name"].startswith("My Orange Pi"), board
