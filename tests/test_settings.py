"""Settings: defaults, round trip, and messages that name the file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.errors import ConfigError
from edgehost.settings import OpenAISettings, Settings


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


def test_a_full_settings_file_loads_every_value_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        '{"backend": "rkllm", "model": "/m.rkllm", "profile": "rock-5b", "context_length": 2048, "threads": 4,'
        ' "rkllm_lib": "/lib.so", "rkllm_abi": "1.2", "openai": {"base_url": "http://gpu:8000/v1"},'
        ' "disabled_servers": ["git"], "disabled_tools": ["files__delete_file"], "approval_timeout_s": 30,'
        ' "tool_budget_fraction": 0.3, "max_correction_rounds": 1, "max_calls_per_turn": 4, "routing": "host",'
        ' "close_to_tray": false, "theme": "dark", "model_hint_dismissed": true, "window": {"w": 800}}'
    )
    expected = Settings(
        backend="rkllm",
        model="/m.rkllm",
        profile="rock-5b",
        context_length=2048,
        threads=4,
        rkllm_lib="/lib.so",
        rkllm_abi="1.2",
        openai=OpenAISettings(base_url="http://gpu:8000/v1"),
        disabled_servers=["git"],
        disabled_tools=["files__delete_file"],
        approval_timeout_s=30.0,
        tool_budget_fraction=0.3,
        max_correction_rounds=1,
        max_calls_per_turn=4,
        routing="host",
        close_to_tray=False,
        theme="dark",
        model_hint_dismissed=True,
        extra={"window": {"w": 800}},
    )
    assert Settings.load(path) == expected


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        (
            '{\n  "theme": "dark",\n  "theem": "light"\n}',
            3,
            "theem",
            "unknown setting 'theem' (did you mean 'theme'?)",
        ),
        (
            '{\n  "openai": {\n    "base_url": 8000\n  }\n}',
            3,
            "openai.base_url",
            "must be a string, not 8000",
        ),
        ('{\n  "openai": {"modle": "gpt"}\n}', 2, "openai.modle", "did you mean 'model'?"),
        ('{\n  "routing": "always"\n}', 2, "routing", 'must be one of "auto", "host", "model", not "always"'),
        (
            '{\n  "tool_budget_fraction": 2\n}',
            2,
            "tool_budget_fraction",
            "must be a fraction from 0 to 1, not 2",
        ),
        (
            '{\n  "disabled_tools": [\n    "a__b",\n    7\n  ]\n}',
            4,
            "disabled_tools[1]",
            "item 1 must be a string",
        ),
        ('{\n  "backend": null\n}', 2, "backend", "not null"),
    ],
)
def test_a_bad_setting_is_named_by_file_line_and_key_path(
    tmp_path: Path, text: str, line: int, field: str, message: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        Settings.load(path)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), line, field)
    assert str(caught.value).startswith(f"{path}:{line}:") and message in str(caught.value)


def test_defaults_are_the_ones_the_agent_and_approvals_use() -> None:
    from edgehost.agent.approval import with_timeout
    from edgehost.agent.config import AgentConfig
    from edgehost.settings import DEFAULT_APPROVAL_TIMEOUT_S

    settings = Settings()
    assert AgentConfig() == AgentConfig.from_settings(settings)
    assert with_timeout.__defaults__ == (DEFAULT_APPROVAL_TIMEOUT_S,) == (settings.approval_timeout_s,)


def test_every_setting_is_checked_when_read_so_none_ends_up_among_the_unknown_keys() -> None:
    from dataclasses import fields

    from edgehost._settings_file import _OpenAIFile, _SettingsFile

    assert set(_SettingsFile.model_fields) == {f.name for f in fields(Settings)} - {"extra"}
    assert set(_OpenAIFile.model_fields) == {f.name for f in fields(OpenAISettings)}
