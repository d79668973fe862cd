"""``${VAR}`` / ``${VAR:-default}`` expansion in server settings (plus VS Code's ``${env:VAR}``,
``${input:id}``, ``${userHome}`` and ``${workspaceFolder}``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ExpansionError",
    "InputSpec",
    "expand",
    "input_env_name",
    "with_workspace_folder",
    "workspace_folder",
]

_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class ExpansionError(ValueError):
    """A reference that cannot be expanded; the message says which and how to provide it."""

    def __init__(self, message: str, input_id: str | None = None) -> None:
        super().__init__(message)
        self.input_id = input_id  # a VS Code ${input:ID} without a value: the user can enter one


@dataclass(frozen=True)
class InputSpec:
    """One entry of VS Code's ``inputs``: a value VS Code would prompt for."""

    id: str
    description: str = ""
    password: bool = False
    default: str | None = None  # what VS Code offers first (a promptString's or pickString's default)
    options: tuple[str, ...] = ()  # a pickString's choices


def input_env_name(input_id: str) -> str:
    """The environment variable that provides ``${input:<id>}``: EDGEHOST_INPUT_<ID>."""
    return "EDGEHOST_INPUT_" + re.sub(r"[^A-Za-z0-9]", "_", input_id).upper()


def expand(value: str, environ: Mapping[str, str], inputs: Mapping[str, InputSpec]) -> str:
    """Expand every reference in ``value``. Raises ExpansionError for an undefined one."""

    def replace(match: re.Match[str]) -> str:
        return _resolve(match.group(1), environ, inputs)

    return _REFERENCE.sub(replace, value)


def _resolve(reference: str, environ: Mapping[str, str], inputs: Mapping[str, InputSpec]) -> str:
    if reference.startswith("input:"):
        input_id = reference[len("input:") :]
        variable = input_env_name(input_id)
        if environ.get(variable):
            return environ[variable]
        spec = inputs.get(input_id)
        if spec is not None and spec.default is not None:
            return spec.default
        what = f" ({spec.description})" if spec and spec.description else ""
        declared = "" if spec or not inputs else ' (it is not declared in "inputs")'
        raise ExpansionError(
            f"needs input {input_id!r}{what}{declared}: enter it in Servers (Enter {input_id}…) or with"
            f" `edgehost config input {input_id}`, or set the environment variable {variable}",
            input_id,
        )
    if reference.startswith("workspaceFolder"):
        raise ExpansionError(
            f"${{{reference}}} is VS Code's workspace folder, known only for a file in a .vscode folder:"
            " write the folder's path instead"
        )
    if reference == "userHome":
        reference = "HOME"
    if reference.startswith("env:"):
        reference = reference[len("env:") :]
    name, has_default, default = reference.partition(":-")
    if not _NAME.match(name):
        raise ExpansionError(
            f"${{{reference}}} is not a variable reference (use ${{NAME}} or ${{NAME:-default}})"
        )
    found = environ.get(name)
    if found:
        return found
    if has_default:
        return default
    if found is not None:  # set but empty: POSIX ${VAR} gives "", which is what the user wrote
        return found
    raise ExpansionError(
        f"environment variable {name} is not set (write ${{{name}:-default}} to give a default)"
    )


def workspace_folder(config_file: str | Path) -> Path | None:
    """VS Code's ``${workspaceFolder}`` for a servers file: the folder holding its ``.vscode`` folder
    (``proj/.vscode/mcp.json`` -> ``proj``); None for a file elsewhere."""
    folder = Path(config_file).absolute().parent
    return folder.parent if folder.name == ".vscode" else None


def with_workspace_folder(value: Any, folder: Path) -> Any:
    """``value`` (a string, or lists and objects of them) with ``${workspaceFolder}`` and
    ``${workspaceFolderBasename}`` replaced, as VS Code does when it reads the file."""
    if isinstance(value, str):
        return value.replace("${workspaceFolder}", str(folder)).replace(
            "${workspaceFolderBasename}", folder.name
        )
    if isinstance(value, list):
        return [with_workspace_folder(item, folder) for item in value]
    if isinstance(value, dict):
        return {key: with_workspace_folder(item, folder) for key, item in value.items()}
    return value
