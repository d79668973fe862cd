"""`edgehost models` and `edgehost ask --no-tools` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from edgehost.slow_machine import scaled_wait

# Loading the model and answering on a loaded 2-core machine; never reached when healthy.
CLI_TIMEOUT_S = round(scaled_wait(180))


def edgehost(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "edgehost", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
    )


def test_ask_json_prints_the_answer_and_its_perf(model_path: Path, data_dir: Path) -> None:
    result = edgehost(
        data_dir,
        "ask",
        "What is the capital of France? Answer in one sentence.",
        "--no-tools",
        "--backend",
        "llamacpp",
        "--temperature",
        "0",
        "--max-tokens",
        "30",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert "Paris" in answer["text"]
    assert answer["backend"] == "llamacpp"
    perf = answer["perf"]
    assert perf["prompt_tokens"] > 10 and perf["generated_tokens"] > 0 and perf["tokens_per_second"] > 0


def test_ask_streams_plain_text_to_the_terminal(model_path: Path, data_dir: Path) -> None:
    result = edgehost(data_dir, "ask", "Say hello.", "--no-tools", "--max-tokens", "8")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_ask_with_a_missing_model_fails_with_the_reason(data_dir: Path) -> None:
    result = edgehost(
        data_dir, "ask", "hi", "--no-tools", "--backend", "llamacpp", "--model", str(data_dir / "x.gguf")
    )
    assert result.returncode == 1
    assert "model file not found" in result.stderr


def test_models_json_lists_the_embedded_default(model_path: Path, data_dir: Path) -> None:
    result = edgehost(data_dir, "models", "--json")
    assert result.returncode == 0, result.stderr
    [model] = json.loads(result.stdout)["installed"]
    assert (model["path"], model["format"], model["context_length"], model["chat_template"]) == (
        str(model_path),
        "gguf",
        8192,
        True,
    )
