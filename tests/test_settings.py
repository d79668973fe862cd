"""Settings: defaults, round trip, and messages that name the file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.errors import ConfigError
from edgehost.settings import Settings


def test_a_missing_file_gives_the_defaults(tmp_path: Path) -> None:
    assert Settings.load(tmp_path / "settings.json") == Settings()


def test_settings_survive_a_save_and_keep_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark", "future_option": [1, 2]}')
    settings = Settings.load(path)
    settings.set_tool_enabled("files__delete_file", False)
    settings.save(path)
    again = Settings.load(path)
    assert again.theme == "dark" and not again.is_tool_enabled("files__delete_file")
    assert again.extra == {"future_option": [1, 2]}


def test_every_setting_the_app_writes_reads_back(tmp_path: Path) -> None:
    # The window saves model_hint_dismissed = true; a type left out of the checks made that file
    # unreadable ("must be object, not false") for every later start.
    path = tmp_path / "settings.json"
    changed = Settings(model_hint_dismissed=True, close_to_tray=False, threads=2, model="/m.gguf")
    changed.save(path)
    assert Settings.load(path) == changed


def test_broken_json_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{\n  "theme": "dark",\n  "backend": \n}\n')
    with pytest.raises(ConfigError) as caught:
        Settings.load(path)
    assert caught.value.path == str(path) and caught.value.line == 4


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ('{\n  "approval_timeout_s": "soon"\n}', "approval_timeout_s", "must be a number"),
        ('{\n  "max_calls_per_turn": 2.5\n}', "max_calls_per_turn", "whole number"),
        ('{\n  "close_to_tray": "yes"\n}', "close_to_tray", "true or false"),
        ('{\n  "backend": "gpu"\n}', "backend", '"auto", "llamacpp", "rkllm", "openai"'),
        ('{\n  "threads": -2\n}', "threads", "negative"),
    ],
)
def test_a_wrong_value_names_the_file_line_and_field(
    tmp_path: Path, text: str, field: str, words: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        Settings.load(path)
    assert (caught.value.line, caught.value.field) == (2, field)
    assert words in str(caught.value) and str(path) in str(caught.value)
