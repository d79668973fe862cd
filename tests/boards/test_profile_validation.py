"""A board profile with a bad key is refused by file, line and key; a good one loads as it always did."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.boards import BoardProfile, load_profile
from edgehost.boards.profiles import MatchRules, SamplingDefaults
from edgehost.errors import ConfigError

FULL = """\
# every key a profile has
name = "test-board"
display_name = "Test Board"
soc = "rk3588"
npu_cores = 3
big_cores = [4, 5, 6, 7]
backend_order = ["rkllm", "llamacpp", "openai"]
threads = 4
affinity = [4, 5, 6, 7]
context_length = 2048
rkllm_cpu_mask = 0xF0
rkllm_cpu_count = 4

[match]
compatible = ["vendor,test-board"]
model = "Test Board"
armbian_board = ["testboard"]
soc = ["rk3588"]
arch = ["aarch64"]

[env]
RKLLM_LOG_LEVEL = 1

[speed]
rkllm = [[0.5, 40], [1.5, 16.5]]

[sampling]
repeat_penalty = 1.2
repeat_last_n = 32
"""


def write(tmp_path: Path, text: str, name: str = "board.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_profile(path)
    return caught.value


def test_a_profile_with_every_key_loads_to_the_board_profile_it_describes(tmp_path: Path) -> None:
    path = write(tmp_path, FULL)
    assert load_profile(path) == BoardProfile(
        name="test-board",
        display_name="Test Board",
        match=MatchRules(
            compatible=("vendor,test-board",),
            model=("Test Board",),
            armbian_board=("testboard",),
            soc=("rk3588",),
            arch=("aarch64",),
        ),
        soc="rk3588",
        npu_cores=3,
        big_cores=[4, 5, 6, 7],
        backend_order=["rkllm", "llamacpp", "openai"],
        threads=4,
        affinity=[4, 5, 6, 7],
        context_length=2048,
        rkllm_cpu_mask=0xF0,
        rkllm_cpu_count=4,
        speed={"rkllm": ((0.5, 40.0), (1.5, 16.5))},
        env={"RKLLM_LOG_LEVEL": "1"},
        sampling=SamplingDefaults(repeat_penalty=1.2, repeat_last_n=32),
        source=str(path),
    )


def test_an_empty_profile_takes_its_name_from_the_file_and_the_defaults(tmp_path: Path) -> None:
    profile = load_profile(write(tmp_path, "", "my-board.toml"))
    assert profile == BoardProfile(
        name="my-board", display_name="my-board", source=str(tmp_path / "my-board.toml")
    )


@pytest.mark.parametrize(
    ("replace", "by", "line", "message"),
    [
        ("threads = 4", "threds = 4", 8, "unknown key 'threds' (did you mean 'threads'?) (field 'threds')"),
        (
            "repeat_last_n = 32",
            "repeat_lastn = 32",
            29,
            "did you mean 'repeat_last_n'?) (field 'sampling.repeat_lastn')",
        ),
        (
            '"rkllm", "llamacpp"',
            '"rkllm", "npu"',
            7,
            'must be one of "llamacpp", "rkllm", "openai", not "npu"',
        ),
        ("big_cores = [4, 5, 6, 7]", 'big_cores = [4, "5"]', 6, 'item 1 must be a whole number, not "5"'),
        (
            "affinity = [4, 5, 6, 7]",
            "affinity = [-1]",
            9,
            "item 0 must not be negative, not -1 (field 'affinity[0]')",
        ),
        (
            "context_length = 2048",
            "context_length = 0",
            10,
            "must be positive, not 0 (field 'context_length')",
        ),
        ("npu_cores = 3", "npu_cores = true", 5, "must be a whole number, not true (field 'npu_cores')"),
        (
            'model = "Test Board"',
            "model = 5",
            16,
            "must be a string or a list of strings, not 5 (field 'match.model')",
        ),
        ("repeat_penalty = 1.2", "repeat_penalty = 3", 28, "must be a number from 1 to 2, not 3"),
        ("rkllm = [[0.5, 40]", "rkllm = [[0.5, -40]", 25, "pairs, both positive (field 'speed.rkllm')"),
        (
            "RKLLM_LOG_LEVEL = 1",
            "RKLLM_LOG_LEVEL = [1]",
            22,
            "must be a string, not a list (field 'env.RKLLM_LOG_LEVEL')",
        ),
        ('name = "test-board"', 'name = ""', 2, "must not be empty (field 'name')"),
    ],
)
def test_a_bad_key_is_refused_with_the_file_its_line_and_what_is_wrong(
    tmp_path: Path, replace: str, by: str, line: int, message: str
) -> None:
    assert replace in FULL
    path = write(tmp_path, FULL.replace(replace, by))
    error = refusal(path)
    assert (error.path, error.line) == (str(path), line)
    assert str(error).startswith(f"{path}:{line}:") and message in str(error)


def test_an_unknown_key_without_a_near_miss_lists_the_known_ones(tmp_path: Path) -> None:
    error = refusal(write(tmp_path, 'name = "x"\n\n[sampling]\ndry_multiplier = 0.8\n'))
    assert error.line == 4 and error.field == "sampling.dry_multiplier"
    assert "unknown key 'dry_multiplier'; known keys: repeat_penalty, repeat_last_n" in str(error)


def test_the_first_problem_in_the_file_is_the_one_reported(tmp_path: Path) -> None:
    error = refusal(write(tmp_path, 'name = "x"\nthreads = "all"\n\n[sampling]\nrepeat_penalty = 9\n'))
    assert (error.line, error.field) == (2, "threads")
