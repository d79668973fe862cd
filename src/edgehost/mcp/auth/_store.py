"""Where OAuth tokens and client registrations are kept, per server: the OS keyring when it has a usable
backend, otherwise a private (0600) JSON file in the data folder. Never the history, the logs or
``servers --json``."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import anyio
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from edgehost.errors import EdgeHostError
from edgehost.mcp.config import ServerConfig

__all__ = [
    "CHANGES_FILE",
    "CREDENTIALS_FILE",
    "KEYRING_SERVICE",
    "CredentialStore",
    "CredentialStoreError",
    "FileCredentialStore",
    "KeyringCredentialStore",
    "MemoryCredentialStore",
    "ServerCredentials",
    "credential_key",
    "default_credential_store",
    "token_fingerprint",
]

log = logging.getLogger(__name__)

CREDENTIALS_FILE = "oauth-credentials.json"
# Replaced on every change of the keyring's records (KeyringCredentialStore.change_stamp).
CHANGES_FILE = "oauth-credentials.changed"
KEYRING_SERVICE = "edgehost-oauth"

Record = dict[str, Any]


class CredentialStoreError(EdgeHostError):
    """The keyring or the credentials file could not be read or written."""


def token_fingerprint(tokens: OAuthToken | None) -> str | None:
    """Tells tokens apart without keeping them (again): a hash of the access and refresh tokens."""
    if tokens is None:
        return None
    seen = f"{tokens.access_token}\0{tokens.refresh_token or ''}"
    return hashlib.sha256(seen.encode()).hexdigest()


def credential_key(server: ServerConfig) -> str:
    """The name a server's credentials are kept under: its name and URL, so that tokens for one URL are
    never sent to another one the entry was changed to."""
    return f"{server.name} {server.url or ''}"


class CredentialStore(Protocol):
    """Records (JSON-able dicts) by key. Every method raises CredentialStoreError when the backend fails."""

    @property
    def where(self) -> str:
        """Where the records are, for `auth status` ("OS keyring (SecretService)", a file path)."""
        ...

    def load(self, key: str) -> Record | None: ...

    def save(self, key: str, record: Record) -> None: ...

    def delete(self, key: str) -> bool:
        """Forget ``key``; False when there was nothing to forget."""
        ...

    def change_stamp(self) -> Hashable | None:
        """Something cheap to get (no read of the records) that differs once any process saved or
        deleted a record: equal stamps mean reading again finds nothing new. None: cannot tell (read)."""
        ...


def _file_stamp(path: Path) -> Hashable:
    """A file's identity and last change: a file replaced (os.replace) has another inode."""
    try:
        found = path.stat()
    except FileNotFoundError:
        return ()
    except OSError:
        return None
    return (found.st_ino, found.st_mtime_ns, found.st_size)


class MemoryCredentialStore:
    """Records for one process only (a URL probe: one look, nothing left behind)."""

    def __init__(self) -> None:
        self._records: dict[str, Record] = {}
        self._changes = 0

    @property
    def where(self) -> str:
        return "memory (not kept)"

    def load(self, key: str) -> Record | None:
        record = self._records.get(key)
        return json.loads(json.dumps(record)) if record is not None else None

    def save(self, key: str, record: Record) -> None:
        self._records[key] = json.loads(json.dumps(record))
        self._changes += 1

    def delete(self, key: str) -> bool:
        self._changes += 1
        return self._records.pop(key, None) is not None

    def change_stamp(self) -> Hashable | None:
        return self._changes


class FileCredentialStore:
    """One JSON object {key: record} in a file only its owner can read (0600), replaced atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()  # the SDK's auth flows call in from worker threads

    @property
    def where(self) -> str:
        return str(self.path)

    def _read(self) -> dict[str, Record]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise CredentialStoreError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        try:
            records = json.loads(text)
        except ValueError:
            raise CredentialStoreError(f"{self.path} is not valid JSON; remove it to sign in again") from None
        return records if isinstance(records, dict) else {}

    def _write(self, records: dict[str, Record]) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            # Created 0600 from the start: the tokens are never readable by others, not even briefly.
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(records, out, indent=2, sort_keys=True)
            os.chmod(temporary, 0o600)
            os.replace(temporary, self.path)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            raise CredentialStoreError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def load(self, key: str) -> Record | None:
        with self._lock:
            return self._read().get(key)

    def save(self, key: str, record: Record) -> None:
        with self._lock:
            records = self._read()
            records[key] = record
            self._write(records)

    def delete(self, key: str) -> bool:
        with self._lock:
            records = self._read()
            if records.pop(key, None) is None:
                return False
            self._write(records)
            return True

    def change_stamp(self) -> Hashable | None:
        return _file_stamp(self.path)


class KeyringCredentialStore:
    """One keyring entry per server (service ``edgehost-oauth``, the key as user name), its record as JSON.

    Every save and delete also replaces the small file ``changes`` (no secret in it: a time and a
    process id), whose stamp tells a process waiting for a sign-in made elsewhere when to read the
    keyring again: a read may cost a D-Bus round trip or ask the person to unlock the keyring.
    """

    def __init__(self, backend: Any, changes: Path | None = None) -> None:
        self._backend = backend
        self._changes = changes

    @property
    def where(self) -> str:
        return f"OS keyring ({type(self._backend).__name__})"

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        from keyring.errors import KeyringError

        try:
            yield
        except KeyringError as exc:
            raise CredentialStoreError(f"the OS keyring failed to {doing}: {exc}") from None

    def load(self, key: str) -> Record | None:
        with self._errors("read the credentials"):
            text = self._backend.get_password(KEYRING_SERVICE, key)
        if text is None:
            return None
        try:
            record = json.loads(text)
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def save(self, key: str, record: Record) -> None:
        with self._errors("store the credentials"):
            self._backend.set_password(KEYRING_SERVICE, key, json.dumps(record, sort_keys=True))
        self._changed()

    def delete(self, key: str) -> bool:
        from keyring.errors import PasswordDeleteError

        with self._errors("delete the credentials"):
            try:
                self._backend.delete_password(KEYRING_SERVICE, key)
            except PasswordDeleteError:  # nothing stored under this key (a KeyringError itself)
                return False
        self._changed()
        return True

    def change_stamp(self) -> Hashable | None:
        return _file_stamp(self._changes) if self._changes is not None else None

    def _changed(self) -> None:
        """Replace the ``changes`` file (a new inode each time, so two changes in one clock tick differ).
        The record is stored whatever happens here: a process waiting for it may just not notice it."""
        if self._changes is None:
            return
        temporary = self._changes.with_name(
            f".{self._changes.name}.{os.getpid()}.{threading.get_ident()}.tmp"
        )
        try:
            self._changes.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            temporary.write_text(f"{time.time_ns()} {os.getpid()}\n", encoding="utf-8")
            os.replace(temporary, self._changes)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            log.info("cannot mark the OAuth credentials as changed in %s: %s", self._changes, exc)


def usable_keyring() -> Any | None:
    """The OS keyring backend when there is a real one (Secret Service, KWallet, macOS Keychain, Windows
    Credential Locker), else None. ``PYTHON_KEYRING_BACKEND`` chooses one, as keyring documents."""
    try:
        import keyring
        from keyring.backends import chainer, fail
    except ImportError:  # pragma: no cover - keyring is a dependency; a trimmed bundle may lack it
        return None
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # a broken backend plugin must not stop the host from starting
        log.warning("the OS keyring is not usable (%s); OAuth tokens go to a private file", exc)
        return None
    if isinstance(backend, fail.Keyring):
        return None
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return None
    try:
        if float(backend.priority) <= 0:  # keyring's null / fail backends, insecure plain-text ones
            return None
    except Exception:
        return None
    return backend


def default_credential_store(data_dir: Path) -> CredentialStore:
    """The OS keyring when usable (its changes marked in ``<data folder>/oauth-credentials.changed``),
    else ``<data folder>/oauth-credentials.json`` (0600)."""
    backend = usable_keyring()
    if backend is not None:
        return KeyringCredentialStore(backend, data_dir / CHANGES_FILE)
    return FileCredentialStore(data_dir / CREDENTIALS_FILE)


class ServerCredentials:
    """The SDK's TokenStorage for one server, over a CredentialStore.

    The record also keeps when the access token expires (the SDK only knows ``expires_in`` relative to
    the moment it got the token), so that after a restart an expired token is refreshed rather than
    sent, and whether the server refused the stored tokens (and their refresh), so that every process
    says "sign-in required" rather than "signed in". A client configured in the server's entry
    (``clientId``) always wins over a stored one.
    """

    def __init__(
        self, store: CredentialStore, key: str, *, configured_client: OAuthClientInformationFull | None = None
    ) -> None:
        self.store = store
        self.key = key
        self.configured_client = configured_client

    def _load(self) -> Record:
        return self.store.load(self.key) or {}

    def _update(self, **values: Any) -> None:
        record = self._load()
        record.update(values)
        record["updatedAt"] = time.time()
        self.store.save(self.key, record)

    # -- synchronous views (CLI status, GUI) ----------------------------------------------------

    def tokens(self) -> OAuthToken | None:
        data = self._load().get("tokens")
        return OAuthToken.model_validate(data) if isinstance(data, dict) else None

    def expires_at(self) -> float | None:
        value = self._load().get("expiresAt")
        return float(value) if isinstance(value, int | float) else None

    def client_info(self) -> OAuthClientInformationFull | None:
        if self.configured_client is not None:
            return self.configured_client
        data = self._load().get("client")
        return OAuthClientInformationFull.model_validate(data) if isinstance(data, dict) else None

    def refused(self) -> bool:
        """Whether the server refused the stored tokens (a connection needed a person to sign in)."""
        record = self._load()
        data = record.get("tokens")
        if not isinstance(data, dict) or "refusedTokens" not in record:
            return False
        return record["refusedTokens"] == token_fingerprint(OAuthToken.model_validate(data))

    def mark_refused(self, tokens: OAuthToken) -> None:
        """Record that the server refused ``tokens`` (when they are still the stored ones)."""
        record = self._load()
        data = record.get("tokens")
        fingerprint = token_fingerprint(tokens)
        if isinstance(data, dict) and token_fingerprint(OAuthToken.model_validate(data)) == fingerprint:
            record["refusedTokens"] = fingerprint
            self.store.save(self.key, record)

    def clear_refused(self) -> None:
        record = self._load()
        if record.pop("refusedTokens", None) is not None:
            self.store.save(self.key, record)

    def forget_client(self, client_id: str) -> bool:
        """Forget the stored registration when it is still ``client_id`` (the one the authorization
        server no longer knows); its tokens stay. False when another one, or none, is stored."""
        record = self._load()
        client = record.get("client")
        if not isinstance(client, dict) or client.get("client_id") != client_id:
            return False
        record.pop("client")
        self.store.save(self.key, record)
        return True

    def forget(self) -> bool:
        return self.store.delete(self.key)

    # -- the SDK's TokenStorage (async: a keyring may talk to D-Bus) ---------------------------------

    async def get_tokens(self) -> OAuthToken | None:
        return await anyio.to_thread.run_sync(self.tokens)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        data = tokens.model_dump(mode="json", exclude_none=True)
        await anyio.to_thread.run_sync(lambda: self._update(tokens=data, expiresAt=expires_at))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return await anyio.to_thread.run_sync(self.client_info)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.configured_client is not None and client_info.client_id == self.configured_client.client_id:
            return  # it lives in the config, with its secret behind ${VAR}
        data = client_info.model_dump(mode="json", exclude_none=True)
        await anyio.to_thread.run_sync(lambda: self._update(client=data))
