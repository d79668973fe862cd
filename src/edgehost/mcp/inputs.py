"""Values for VS Code's ``${input:ID}`` references, entered once in the window or with `edgehost config
input ID` and kept with the OAuth tokens (the OS keyring, else a 0600 file): VS Code prompts for them,
and a user who starts EdgeHost from the menu cannot set EDGEHOST_INPUT_<ID> in its environment."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Mapping

from edgehost.mcp.auth import CredentialStore, CredentialStoreError
from edgehost.mcp.config import input_env_name

log = logging.getLogger(__name__)

__all__ = ["InputValues", "environ_with_inputs"]

_RECORD = "vscode-inputs"  # one record of {input id: value} in the credential store


class InputValues:
    """The entered values, by input id. Every method raises CredentialStoreError when the store fails."""

    def __init__(self, store: CredentialStore) -> None:
        self.store = store

    def values(self) -> dict[str, str]:
        record = self.store.load(_RECORD) or {}
        return {str(key): value for key, value in record.items() if isinstance(value, str)}

    def set(self, input_id: str, value: str) -> None:
        self.store.save(_RECORD, {**self.values(), input_id: value})

    def forget(self, input_id: str) -> bool:
        """Forget one value; False when there was none."""
        values = self.values()
        if values.pop(input_id, None) is None:
            return False
        self.store.save(_RECORD, values)
        return True


class _WithInputs(Mapping[str, str]):
    def __init__(self, base: Mapping[str, str], load: Callable[[], Mapping[str, str]]) -> None:
        self._base = base
        self._load = load
        self._entered: dict[str, str] | None = None

    def _inputs(self) -> dict[str, str]:
        if self._entered is None:  # the store is opened only when a reference needs it (keyring: ~50 ms)
            try:
                entered = self._load()
            except CredentialStoreError as exc:  # the servers that need a value say so; the rest start
                log.warning("the entered input values cannot be read: %s", exc)
                entered = {}
            self._entered = {input_env_name(key): value for key, value in entered.items()}
        return self._entered

    def __getitem__(self, key: str) -> str:
        if key in self._base:
            return self._base[key]
        if key.startswith("EDGEHOST_INPUT_"):
            return self._inputs()[key]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter({**self._inputs(), **self._base})

    def __len__(self) -> int:
        return len({**self._inputs(), **self._base})


def environ_with_inputs(
    store: Callable[[], CredentialStore], base: Mapping[str, str] | None = None
) -> Mapping[str, str]:
    """What the servers file's ``${VAR}`` expand from: ``base`` (default os.environ) with the entered input
    values as EDGEHOST_INPUT_<ID> where it has none of its own. ``store()`` is called, and the values
    read, at the first such lookup, if any: a file without ``${input:…}`` never opens the keyring."""
    return _WithInputs(os.environ if base is None else base, lambda: InputValues(store()).values())
