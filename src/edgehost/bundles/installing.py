"""Installing MCPB bundles (``.mcpb``: a zip with ``manifest.json`` at its root, a signature block perhaps
appended) into ``<data>/bundles/NAME/``, each as an entry of the servers file.

- The manifest is checked (bundles.manifest), then what this machine can run: the bundle's platforms
  (``compatibility.platforms`` must name linux when it names any), a binary server's ELF architecture
  (an x86-64 program on an arm64 board is refused with that reason), the runtime a node or python
  server needs. A uv server runs with the uv that comes with EdgeHost.
- ``user_config`` becomes a form (edgehost.form_fields reads it); ``sensitive`` values go to the
  credential store and the entry holds ``${input:ID}`` references, as for the registry's secrets.
- ``mcp_config`` (with its ``platform_overrides.linux``) is filled as the MCPB reference does:
  ``${__dirname}``, ``${user_config.KEY}`` (a list fills several arguments when it is a whole argument),
  ``${HOME}``, ``${DESKTOP}``, ``${DOCUMENTS}``, ``${DOWNLOADS}``, ``${pathSeparator}`` and ``${/}``.
- Installing a bundle of a name already installed replaces it in place; the values given before are the
  form's defaults, and a secret given before is kept unless a new one is typed.
"""

from __future__ import annotations

import functools
import io
import json
import os
import platform
import re
import shutil
import stat
import zipfile
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from edgehost.bundles.manifest import Manifest, McpConfig, UserOption, read_manifest
from edgehost.errors import ConfigError, EdgeHostError
from edgehost.mcp.config import ServerConfig, server_name_like
from edgehost.mcp.inputs import InputValues
from edgehost.paths import Paths, write_atomically
from edgehost.programs import find_program
from edgehost.registry.adding import add_entry, keep_secrets, remove_entry
from edgehost.registry.install import (
    InstallPlan,
    SecretInputs,
    check_server_name,
    form_text,
    refuse_references,
)

__all__ = [
    "Bundle",
    "BundleError",
    "InstalledBundle",
    "bundles_folder",
    "install_bundle",
    "installed_bundles",
    "open_bundle",
    "uninstall_bundle",
]

SIGNATURE_START = b"MCPB_SIG_V1"
SIGNATURE_END = b"MCPB_SIG_END"
# ELF e_machine values, as platform.machine() names the machines.
_ELF_MACHINES = {0x3E: "x86_64", 0xB7: "aarch64", 0x28: "armv7l", 0x03: "i386", 0xF3: "riscv64"}
_VARIABLE = re.compile(r"\$\{([^}]+)\}")
_VALUES_FILE = "{name}.values.json"  # the non-secret values given at install, beside the bundle's folder


class BundleError(EdgeHostError):
    """A bundle that cannot be installed here: the message says which and why."""


def bundles_folder(data_dir: Path) -> Path:
    return data_dir / "bundles"


@dataclass(frozen=True)
class InstalledBundle:
    name: str  # its server's name in the servers file
    version: str
    title: str
    folder: Path


@dataclass(frozen=True)
class Bundle:
    """A bundle file, read and checked; install with ``install_bundle``."""

    source: Path
    manifest: Manifest
    archive: bytes  # the zip, without a signature block

    @property
    def server_name(self) -> str:
        return server_name_like(self.manifest.name)

    def _zip(self) -> zipfile.ZipFile:
        return zipfile.ZipFile(io.BytesIO(self.archive))

    def mcp_config(self) -> McpConfig:
        """The server's command, with Linux's platform override applied; a uv server without one runs
        its entry point with ``uv run`` in the bundle's folder."""
        server = self.manifest.server
        if server.mcp_config is None:
            return McpConfig(command="uv", args=["run", "--directory", "${__dirname}", server.entry_point])
        config = server.mcp_config
        override = config.platform_overrides.get("linux")
        if override is None:
            return config
        return McpConfig(
            command=override.command or config.command,
            args=config.args if override.args is None else override.args,
            env=config.env if override.env is None else override.env,  # replaced, not merged
        )

    def why_not_here(self) -> str | None:
        """Why this machine cannot run the bundle, or None; found once (the dialog asks at each key)."""
        return self._why_not

    @functools.cached_property
    def _why_not(self) -> str | None:
        platforms = self.manifest.compatibility.platforms if self.manifest.compatibility else None
        if platforms and "linux" not in platforms:
            return f"it is made for {', '.join(platforms)}, not for Linux"
        command = self.mcp_config().command
        if self.manifest.server.type == "binary":
            return self._architecture_problem(command)
        if "${__dirname}" in command:
            return None
        if find_program(command) is None and not (command == "python" and find_program("python3")):
            needs = {"node": "Node.js (edgehost runtimes install node)", "python": "Python"}.get(
                self.manifest.server.type, command
            )
            return f"it runs {command}, which is not installed: it needs {needs}"
        return None

    def _architecture_problem(self, command: str) -> str | None:
        inside = command.replace("${__dirname}/", "", 1) if command.startswith("${__dirname}/") else None
        member = inside or self.manifest.server.entry_point
        try:
            with self._zip() as archive:
                head = archive.open(member).read(20)
        except KeyError:
            return f"its program {member} is not in the bundle"
        if head[:4] != b"\x7fELF":
            return None  # a script: its interpreter decides
        machine = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
        theirs = _ELF_MACHINES.get(machine, f"ELF machine {machine:#x}")
        ours = platform.machine()
        if theirs != ours:
            return f"its program {member} is built for {theirs}; this machine is {ours}"
        return None

    def form_schema(
        self, previous: Mapping[str, Any] | None = None, kept_secrets: AbstractSet[str] = frozenset()
    ) -> dict[str, Any]:
        """``user_config`` as a flat JSON object schema; the values of an earlier install as defaults, and a
        secret stored before not required again."""
        previous = previous or {}
        properties: dict[str, Any] = {}
        required: list[str] = []
        for key, option in self.manifest.user_config.items():
            prop: dict[str, Any] = {"title": option.title, "description": option.description}
            prop["type"] = {"number": "number", "boolean": "boolean"}.get(option.type, "string")
            if option.type in ("directory", "file"):
                prop["format"] = option.type
            if option.min is not None:
                prop["minimum"] = option.min
            if option.max is not None:
                prop["maximum"] = option.max
            default = previous.get(key, option.default)
            if option.multiple:  # several folders or files: one text, separated as a PATH is
                prop["description"] = (
                    f"{option.description} (several: separate them with {os.pathsep})".strip()
                )
                default = os.pathsep.join(default) if isinstance(default, list) else default
            if option.sensitive:
                prop["writeOnly"] = True
            elif default is not None:
                prop["default"] = _expand_home(default) if isinstance(default, str) else default
            properties[key] = prop
            if option.required and not (option.sensitive and key in kept_secrets):
                required.append(key)
        return {"type": "object", "properties": properties, "required": required}

    def plan(
        self, name: str, folder: Path, values: Mapping[str, Any], kept_secrets: AbstractSet[str] = frozenset()
    ) -> InstallPlan:
        """The servers-file entry for the bundle unpacked in ``folder``, with the form's ``values``. Raises
        ValueError naming a required value that is missing, or a ``name`` that names no server."""
        check_server_name(name)
        secrets = SecretInputs(name)
        variables: dict[str, str | list[str]] = _system_variables(folder)
        missing: list[str] = []
        for key, option in self.manifest.user_config.items():
            value = values.get(key)
            if value in (None, "", []) and not option.sensitive:
                value = option.default
            if option.multiple and isinstance(value, str):
                value = [part for part in value.split(os.pathsep) if part]
            elif isinstance(value, list) and not option.multiple:
                raise ValueError(f"{key} takes one value")  # a list would fill several arguments
            if option.sensitive:
                given = None if value in (None, "") else form_text(value)
                if given is None and key not in kept_secrets:
                    if option.required:
                        missing.append(key)
                    variables[f"user_config.{key}"] = ""
                    continue
                variables[f"user_config.{key}"] = secrets.reference(
                    key, option.description or option.title, given
                )
            elif value in (None, "", []):
                if option.required:
                    missing.append(key)
                variables[f"user_config.{key}"] = ""
            else:
                typed = [form_text(v) for v in value] if isinstance(value, list) else [form_text(value)]
                refuse_references({key: "".join(typed)} if key in values else {})
                variables[f"user_config.{key}"] = _option_value(option, value, variables)
        if missing:
            raise ValueError("a value is needed for " + ", ".join(missing))
        config = self.mcp_config()
        command = _fill(config.command, variables)
        if command == "python" and find_program("python") is None:
            command = "python3"  # a board image has python3 only
        server = ServerConfig(
            name=name,
            command=command,
            args=_fill_arguments(config.args, variables),
            env={key: _fill(value, variables) for key, value in config.env.items()},
            cwd=str(folder) if self.manifest.server.type == "uv" else None,
        )
        server.source = f"bundle {self.manifest.name} {self.manifest.version}"
        return InstallPlan(server, tuple(secrets.inputs), dict(secrets.secrets))


def _expand_home(text: str) -> str:
    return _fill(text, _system_variables(Path.home()))


def _system_variables(folder: Path) -> dict[str, str | list[str]]:
    home = Path.home()
    return {
        "__dirname": str(folder),
        "HOME": str(home),
        "DESKTOP": str(home / "Desktop"),
        "DOCUMENTS": str(home / "Documents"),
        "DOWNLOADS": str(home / "Downloads"),
        "pathSeparator": "/",
        "/": "/",
    }


def _option_value(
    option: UserOption, value: Any, variables: Mapping[str, str | list[str]]
) -> str | list[str]:
    if isinstance(value, list):
        return [_fill(str(item), variables) for item in value]
    text = form_text(value)
    return _fill(text, variables) if option.type in ("string", "directory", "file") else text


def _fill(text: str, variables: Mapping[str, str | list[str]]) -> str:
    """``text`` with each ${NAME} it names replaced; a list value inside a longer text is joined by
    spaces; a name that is no variable is left as written (``${input:…}`` EdgeHost expands at start)."""

    def replace(match: re.Match[str]) -> str:
        value = variables.get(match.group(1))
        if value is None:
            return match.group(0)
        return " ".join(value) if isinstance(value, list) else value

    return _VARIABLE.sub(replace, text)


def _fill_arguments(args: list[str], variables: Mapping[str, str | list[str]]) -> list[str]:
    filled: list[str] = []
    for arg in args:
        whole = _VARIABLE.fullmatch(arg)
        value = variables.get(whole.group(1)) if whole else None
        if isinstance(value, list):
            filled += value  # a multiple selection: one argument each
        elif whole and value == "":
            continue  # an optional value left out: so is its argument
        else:
            filled.append(_fill(arg, variables))
    return filled


def open_bundle(path: Path) -> Bundle:
    """Read and check the bundle at ``path``. Raises BundleError (not a bundle, an unsafe path inside)
    or ConfigError (the manifest, with its field and line)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BundleError(f"{path} cannot be read: {exc.strerror or exc}") from None
    start = data.rfind(SIGNATURE_START)
    if start >= 0 and data.rstrip().endswith(SIGNATURE_END):
        data = data[:start]  # signed by `mcpb sign`: the zip is what comes before the signature
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            if "manifest.json" not in names:
                raise BundleError(f"{path.name} has no manifest.json at its root: is it an MCPB bundle?")
            unsafe = [n for n in names if PurePosixPath(n).is_absolute() or ".." in PurePosixPath(n).parts]
            if unsafe:
                raise BundleError(f"{path.name} has a file outside its own folder: {unsafe[0]}")
            text = archive.read("manifest.json").decode("utf-8")
    except zipfile.BadZipFile:
        raise BundleError(f"{path.name} is not an MCPB bundle (not a zip file)") from None
    except UnicodeDecodeError:
        raise BundleError(f"{path.name}!manifest.json is not UTF-8 text") from None
    return Bundle(path, read_manifest(text, f"{path.name}!manifest.json"), data)


def previous_values(data_dir: Path, name: str) -> dict[str, Any]:
    """The non-secret values given when ``name`` was installed before ({} if never)."""
    file = bundles_folder(data_dir) / _VALUES_FILE.format(name=name)
    try:
        values = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return values if isinstance(values, dict) else {}


def stored_secrets(bundle: Bundle, name: str, values: Callable[[], InputValues]) -> set[str]:
    """The sensitive options of ``bundle`` with a value stored from an earlier install of ``name``."""
    sensitive = [key for key, option in bundle.manifest.user_config.items() if option.sensitive]
    if not sensitive:
        return set()
    stored = values().values()
    return {key for key in sensitive if SecretInputs.input_id(name, key) in stored}


def install_bundle(
    paths: Paths, bundle: Bundle, name: str, form: Mapping[str, Any], values: Callable[[], InputValues]
) -> InstallPlan:
    """Unpack ``bundle`` into the data folder (replacing an earlier install of ``name`` only once the new
    one is whole), keep its values, and add its entry to the servers file. Raises BundleError, ValueError
    (a required value missing), ConfigError, CredentialStoreError."""
    problem = bundle.why_not_here()
    if problem is not None:
        raise BundleError(f"{bundle.manifest.title} cannot run here: {problem}")
    check_server_name(name)  # before it names a folder to replace
    root = bundles_folder(paths.data_dir)
    folder = root / name
    plan = bundle.plan(name, folder, form, stored_secrets(bundle, name, values))
    keep_secrets(plan, values)  # first: a store that fails leaves the earlier install as it was
    staging = root / f".{name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        staging.mkdir(parents=True)
        _unpack(bundle, staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    user_config = bundle.manifest.user_config
    kept = {k: v for k, v in form.items() if k in user_config and not user_config[k].sensitive}
    write_atomically(root / _VALUES_FILE.format(name=name), json.dumps(kept, indent=2))
    add_entry(paths, plan)
    return plan


def _unpack(bundle: Bundle, folder: Path) -> None:
    """The bundle's files into ``folder``, each with its mode (a binary server's entry point runnable)."""
    with bundle._zip() as archive:
        for info in archive.infolist():
            target = folder / info.filename
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
            mode = (info.external_attr >> 16) & 0o777
            entry = (
                bundle.manifest.server.type == "binary"
                and info.filename == bundle.manifest.server.entry_point
            )
            if mode & stat.S_IXUSR or entry:
                target.chmod(mode | 0o755 if mode else 0o755)


def installed_bundles(data_dir: Path) -> list[InstalledBundle]:
    """The bundles installed in the data folder, by name."""
    root = bundles_folder(data_dir)
    found: list[InstalledBundle] = []
    for manifest_file in sorted(root.glob("*/manifest.json")) if root.is_dir() else []:
        folder = manifest_file.parent
        if folder.name.startswith("."):
            continue
        try:
            manifest = read_manifest(manifest_file.read_text(encoding="utf-8"), str(manifest_file))
        except (OSError, ConfigError):
            continue
        found.append(InstalledBundle(folder.name, manifest.version, manifest.title, folder))
    return found


def uninstall_bundle(paths: Paths, name: str, values: Callable[[], InputValues]) -> InstalledBundle:
    """Remove the bundle ``name``: its folder, its values, its secrets and its servers-file entry. Raises
    BundleError when no bundle of that name is installed, ConfigError."""
    bundle = next((b for b in installed_bundles(paths.data_dir) if b.name == name), None)  # no "..": listed
    if bundle is None:
        names = ", ".join(b.name for b in installed_bundles(paths.data_dir)) or "none"
        raise BundleError(f"no bundle named {name} is installed (installed: {names})")

    remove_entry(paths, name, values)  # with the inputs of its secrets, and the secrets
    shutil.rmtree(bundle.folder)
    (bundles_folder(paths.data_dir) / _VALUES_FILE.format(name=name)).unlink(missing_ok=True)
    return bundle
