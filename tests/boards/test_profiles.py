"""The shipped board profiles and choosing one."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_sysfs import build, rk3588_board

from edgehost.boards import (
    detect_board,
    load_profile,
    load_profiles,
    profiles_dir,
    select_profile,
)
from edgehost.errors import ConfigError, UsageError

EXPECTED = {
    "orangepi-5",
    "orangepi-5b",
    "orangepi-5-plus",
    "orangepi-5-pro",
    "orangepi-5-max",
    "orangepi-5-ultra",
    "rock-5a",
    "rock-5b",
    "rock-5b-plus",
    "rock-5c",
    "rock-5-itx",
    "rock-5t",
    "generic-rk3588",
    "generic-aarch64",
    "generic-x86_64",
}


def test_every_board_has_a_profile() -> None:
    assert {p.name for p in load_profiles()} == EXPECTED
    assert profiles_dir() == Path(__file__).resolve().parents[2] / "board_profiles"


def test_rk3588_profiles_put_rkllm_first_on_the_big_cores() -> None:
    for profile in load_profiles():
        if profile.soc and profile.soc.startswith("rk3588"):
            assert profile.backend_order[0] == "rkllm"
            assert (profile.rkllm_cpu_mask, profile.rkllm_cpu_count) == (0xF0, 4)
            assert profile.affinity == [4, 5, 6, 7] and profile.threads == 4
            assert profile.npu_cores == 3
            assert profile.context_length == 4096
        else:
            assert "rkllm" not in profile.backend_order


def test_every_rk3588_profile_carries_measured_speeds_for_both_backends() -> None:
    for profile in load_profiles():
        if profile.npu_cores:
            assert set(profile.speed) == {"rkllm", "llamacpp"}, profile.name
        else:
            assert profile.speed == {}, profile.name  # no figures measured: no speed claimed


def test_a_profile_with_the_old_model_list_or_a_bad_speed_table_is_refused_by_name(tmp_path: Path) -> None:
    old = tmp_path / "old.toml"
    old.write_text('name = "old"\n\n[[recommended_models]]\nmin_ram_gb = 0\nmodel = "x"\nbackend = "rkllm"\n')
    with pytest.raises(
        ConfigError, match=r"old.toml:3:1: \[\[recommended_models\]\] is no longer read: the model catalog"
    ):
        load_profile(old)
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n\n[speed]\nrkllm = [[1.5, 0]]\n')
    with pytest.raises(
        ConfigError, match=r"must be a list of \[billions of parameters, tokens/s\] pairs.*speed.rkllm"
    ):
        load_profile(bad)


def test_profile_override_wins_and_an_unknown_name_lists_the_known_ones(tmp_path: Path) -> None:
    info = detect_board(build(tmp_path, rk3588_board()), machine="aarch64")
    profiles = load_profiles()
    assert select_profile(info, profiles).name == "orangepi-5-plus"
    assert select_profile(info, profiles, "generic-x86_64").name == "generic-x86_64"
    with pytest.raises(UsageError, match=r"unknown board profile 'rock-6'; known profiles: .*rock-5b"):
        select_profile(info, profiles, "rock-6")


def test_a_broken_profile_names_its_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nbig_cores = "4-7"\n')
    with pytest.raises(ConfigError, match=r"bad\.toml.*big_cores"):
        load_profile(bad)
    folder = tmp_path / "profiles"
    folder.mkdir()
    (folder / "broken.toml").write_text("name = \n")
    with pytest.raises(ConfigError, match=r"broken\.toml:1:8: invalid TOML: Invalid value$") as caught:
        load_profiles(folder)
    assert "(at line" not in str(caught.value)  # the position is said once, at the start


def test_a_profiles_sampling_reaches_the_engine_config_and_bad_values_name_the_field(tmp_path) -> None:
    from edgehost.llm.factory import engine_config
    from edgehost.settings import Settings

    good = tmp_path / "good.toml"
    good.write_text('name = "good"\n[sampling]\nrepeat_penalty = 1.3\nrepeat_last_n = 32\n', encoding="utf-8")
    profile = load_profile(good)
    config = engine_config("llamacpp", Settings(model=str(good)), profile)
    assert (config["repeat_penalty"], config["repeat_last_n"], config["presence_penalty"]) == (1.3, 32, 0.0)
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[sampling]\nrepeat_penalty = 0.5\n', encoding="utf-8")
    with pytest.raises(
        ConfigError,
        match=r"bad\.toml:3:1: must be a number from 1 to 2, not 0\.5 \(field 'sampling\.repeat_penalty'\)",
    ):
        load_profile(bad)
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('name = "unknown"\n[sampling]\ndry_multiplier = 0.8\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="sampling.dry_multiplier"):
        load_profile(unknown)


def test_every_shipped_profile_penalises_repetition() -> None:
    assert all(p.sampling.repeat_penalty > 1.0 for p in load_profiles())
