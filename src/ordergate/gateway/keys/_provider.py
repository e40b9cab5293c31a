"""Key providers: who holds the key-encryption key (KEK) that wraps each connection's data key.

Each sealed connection's upstream session is encrypted under a data key of its own
(``_envelope``); the data key is stored only wrapped, by a KEK that a key provider holds:

- ``MasterSecretProvider`` (the default): the KEK is derived (HKDF-SHA256, this module's own
  salt and info) from ``ORDERGATE_MASTER_SECRET``; its id is a fingerprint of the secret, so a
  new secret is a new KEK. Rotating means changing the secret: the old one, set as
  ``ORDERGATE_MASTER_SECRET_PREVIOUS`` until ``ordergate keys rotate`` has moved every data key,
  still unwraps but wraps nothing.
- ``Pkcs11Provider``: the KEK is a non-extractable, sensitive AES-256 key on a PKCS#11 token
  (an HSM, a cloud KMS's PKCS#11 module, SoftHSM2), labelled ``ordergate-kek-NNNN``; the token
  wraps and unwraps (``CKM_AES_KEY_WRAP_PAD``) and the KEK never leaves it. ``rotate`` makes a
  new KEK on the token; ``rewrap`` moves a data key to it inside the token (unwrapped there as
  a sensitive session object, wrapped again, never readable on the host); ``retire`` destroys
  the KEKs no data key uses any more, so a copy of the database taken before is dead weight.

Every failure raises ``KeyProviderError`` naming the key id and what is missing, never a key.
"""

from __future__ import annotations

import hashlib
import hmac
import stat
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.keywrap import (
    InvalidUnwrap,
    aes_key_unwrap_with_padding,
    aes_key_wrap_with_padding,
)

from ordergate.core import MIN_KEY_SECRET_LENGTH, ConfigError, OrdergateError, Secret

__all__ = [
    "ENV_KEY_PROVIDER",
    "ENV_MASTER_SECRET_PREVIOUS",
    "ENV_PKCS11_MODULE",
    "ENV_PKCS11_PIN",
    "ENV_PKCS11_PIN_FILE",
    "ENV_PKCS11_TOKEN",
    "KEK_LABEL_PREFIX",
    "KeyProvider",
    "KeyProviderError",
    "MasterSecretProvider",
    "Pkcs11Provider",
    "provider_from_env",
    "read_pin_file",
]

ENV_KEY_PROVIDER = "ORDERGATE_KEY_PROVIDER"
ENV_MASTER_SECRET_PREVIOUS = "ORDERGATE_MASTER_SECRET_PREVIOUS"
ENV_PKCS11_MODULE = "ORDERGATE_PKCS11_MODULE"
ENV_PKCS11_TOKEN = "ORDERGATE_PKCS11_TOKEN"
ENV_PKCS11_PIN = "ORDERGATE_PKCS11_PIN"
ENV_PKCS11_PIN_FILE = "ORDERGATE_PKCS11_PIN_FILE"
KEK_LABEL_PREFIX = "ordergate-kek-"

_SALT = b"ordergate/key-encryption-key/v1"
_INFO = b"ordergate kek"
_ID_INFO = b"ordergate kek id"
_DATA_KEY = 32


class KeyProviderError(OrdergateError):
    """A data key could not be wrapped or unwrapped (the KEK is missing, the token cannot be
    reached, the blob was altered): nothing opens, and nothing about a key is said."""

    code = "key_provider"


class KeyProvider(Protocol):
    """Holds the KEKs; wraps and unwraps 32-byte data keys. ``key_id`` is the KEK new wraps
    go under; a wrapped blob is always stored beside the id of the KEK that wrapped it."""

    name: str
    destroys_keks: bool
    """Whether ``retire`` destroys a KEK (a token), so that whatever it wrapped, a backup's
    copy included, opens nowhere again; the master secret's KEK is only ever stopped using."""

    @property
    def key_id(self) -> str: ...

    def wrap(self, data_key: bytes) -> tuple[str, bytes]:
        """``data_key`` wrapped under the current KEK: (its id, the blob)."""
        ...

    def unwrap(self, key_id: str, blob: bytes) -> bytes:
        """The data key ``blob`` wraps under KEK ``key_id``."""
        ...

    def rewrap(self, key_id: str, blob: bytes) -> tuple[str, bytes]:
        """``blob`` (under ``key_id``) wrapped again under the current KEK, inside the
        provider."""
        ...

    def rotate(self) -> str:
        """Make a new KEK the current one where the provider can; its id."""
        ...

    def retire(self, in_use: Iterable[str]) -> list[str]:
        """Destroy every KEK but the current one and those in ``in_use``; their ids."""
        ...

    def close(self) -> None: ...


def _check_data_key(data_key: bytes) -> None:
    if len(data_key) != _DATA_KEY:
        raise KeyProviderError(f"a data key is {_DATA_KEY} bytes")


class _MasterKek:
    __slots__ = ("key", "key_id")

    def __init__(self, secret: Secret, field: str) -> None:
        material = secret.reveal().encode("utf-8")
        if len(material) < MIN_KEY_SECRET_LENGTH:
            raise ConfigError(field, f"must be at least {MIN_KEY_SECRET_LENGTH} characters")
        self.key = HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=_INFO).derive(
            material
        )
        fingerprint = HKDF(algorithm=hashes.SHA256(), length=6, salt=_SALT, info=_ID_INFO).derive(
            material
        )
        self.key_id = "master-" + fingerprint.hex()


class MasterSecretProvider:
    """The KEK derived from the master secret (and, while a rotation moves data keys off it,
    the previous one's, which only unwraps)."""

    name = "master-secret"
    destroys_keks = False

    def __init__(self, master: Secret, *, previous: Iterable[Secret] = ()) -> None:
        self._current = _MasterKek(master, "ORDERGATE_MASTER_SECRET")
        self._keks = {self._current.key_id: self._current}
        for secret in previous:
            kek = _MasterKek(secret, ENV_MASTER_SECRET_PREVIOUS)
            self._keks.setdefault(kek.key_id, kek)

    def __repr__(self) -> str:
        return f"MasterSecretProvider(key_id={self._current.key_id!r})"

    @property
    def key_id(self) -> str:
        return self._current.key_id

    def wrap(self, data_key: bytes) -> tuple[str, bytes]:
        _check_data_key(data_key)
        return self._current.key_id, aes_key_wrap_with_padding(self._current.key, data_key)

    def unwrap(self, key_id: str, blob: bytes) -> bytes:
        kek = self._keks.get(key_id)
        if kek is None:
            raise KeyProviderError(
                f"the data key is wrapped by KEK {key_id}, which the master secret does not "
                f"hold (start the rail with the key provider that holds it)"
            )
        try:
            return aes_key_unwrap_with_padding(kek.key, blob)
        except (InvalidUnwrap, ValueError):
            raise KeyProviderError(f"a data key under KEK {key_id} does not unwrap") from None

    def rewrap(self, key_id: str, blob: bytes) -> tuple[str, bytes]:
        return self.wrap(self.unwrap(key_id, blob))

    def rotate(self) -> str:
        # A new KEK is a new master secret: the operator sets it (and the old one as
        # ORDERGATE_MASTER_SECRET_PREVIOUS); rotation then moves the data keys onto it.
        return self._current.key_id

    def retire(self, in_use: Iterable[str]) -> list[str]:
        # Nothing to destroy: a previous secret stops unwrapping when the operator unsets it.
        return []

    def close(self) -> None:
        return None


def read_pin_file(path: Path) -> Secret:
    """The PIN in ``path``: refused unless the file is the caller's own and nobody else can
    read or write it (mode 0600 or stricter)."""
    try:
        info = path.stat()
    except OSError as error:
        raise ConfigError(ENV_PKCS11_PIN_FILE, f"cannot read {path} ({error.strerror})") from None
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            ENV_PKCS11_PIN_FILE,
            f"{path} is readable or writable by others (mode {stat.S_IMODE(info.st_mode):04o}); "
            "chmod 600 it",
        )
    pin = path.read_text(encoding="utf-8").strip()
    if not pin:
        raise ConfigError(ENV_PKCS11_PIN_FILE, f"{path} is empty")
    return Secret(pin)


class Pkcs11Provider:
    """KEKs on a PKCS#11 token; the token does every wrap and unwrap."""

    name = "pkcs11"
    destroys_keks = True

    def __init__(self, module: str, token_label: str, pin: Secret) -> None:
        try:
            import pkcs11
        except ImportError:  # pragma: no cover - python-pkcs11 is a dependency
            raise KeyProviderError("python-pkcs11 is not installed") from None
        self._pkcs11 = pkcs11
        self._label = token_label
        self._closed = False
        if not Path(module).is_file():
            raise KeyProviderError(
                f"{ENV_PKCS11_MODULE}: no PKCS#11 module at {module} (for SoftHSM2: "
                "apt-get install softhsm2)"
            )
        self._opened = _open_token(pkcs11, module, token_label, pin)
        self._session: Any = self._opened.session
        self._lock = self._opened.lock
        if not self._keks():
            self.rotate()

    def __repr__(self) -> str:
        return f"Pkcs11Provider(token={self._label!r})"

    # -- the token's KEKs ---------------------------------------------------------------

    def _keks(self) -> dict[str, Any]:
        attribute, object_class = self._pkcs11.Attribute, self._pkcs11.ObjectClass
        found: dict[str, Any] = {}
        for key in self._session.get_objects({attribute.CLASS: object_class.SECRET_KEY}):
            label = key.label or ""
            if label.startswith(KEK_LABEL_PREFIX) and label[len(KEK_LABEL_PREFIX) :].isdigit():
                found[label] = key
        return found

    def _current(self) -> tuple[str, Any]:
        keks = self._keks()
        if not keks:
            raise KeyProviderError(f"token {self._label!r} holds no ordergate KEK")
        key_id = max(keks, key=lambda label: int(label[len(KEK_LABEL_PREFIX) :]))
        return key_id, keks[key_id]

    def _kek(self, key_id: str) -> Any:
        kek = self._keks().get(key_id)
        if kek is None:
            raise KeyProviderError(
                f"the data key is wrapped by KEK {key_id}, which token {self._label!r} does not "
                "hold (it was retired, or this is another token)"
            )
        return kek

    def _guarded(self, what: str, key_id: str, operation: Any) -> Any:
        try:
            with self._lock:
                return operation()
        except KeyProviderError:
            raise
        except self._pkcs11.PKCS11Error as error:
            raise KeyProviderError(
                f"token {self._label!r} could not {what} under KEK {key_id} "
                f"({type(error).__name__})"
            ) from None

    @property
    def key_id(self) -> str:
        with self._lock:
            return self._current()[0]

    def _unwrapped(self, kek: Any, blob: bytes, *, readable: bool) -> Any:
        p = self._pkcs11
        return kek.unwrap_key(
            p.ObjectClass.SECRET_KEY,
            p.KeyType.AES,
            blob,
            mechanism=p.Mechanism.AES_KEY_WRAP_PAD,
            store=False,
            template={p.Attribute.EXTRACTABLE: True, p.Attribute.SENSITIVE: not readable},
        )

    def wrap(self, data_key: bytes) -> tuple[str, bytes]:
        _check_data_key(data_key)
        p = self._pkcs11

        def wrap() -> tuple[str, bytes]:
            key_id, kek = self._current()
            held = self._session.create_object(
                {
                    p.Attribute.CLASS: p.ObjectClass.SECRET_KEY,
                    p.Attribute.KEY_TYPE: p.KeyType.AES,
                    p.Attribute.VALUE: data_key,
                    p.Attribute.TOKEN: False,
                    p.Attribute.EXTRACTABLE: True,
                    p.Attribute.SENSITIVE: True,
                }
            )
            try:
                return key_id, bytes(kek.wrap_key(held, mechanism=p.Mechanism.AES_KEY_WRAP_PAD))
            finally:
                held.destroy()

        result: tuple[str, bytes] = self._guarded("wrap a data key", "current", wrap)
        return result

    def unwrap(self, key_id: str, blob: bytes) -> bytes:
        def unwrap() -> bytes:
            held = self._unwrapped(self._kek(key_id), blob, readable=True)
            try:
                return bytes(held[self._pkcs11.Attribute.VALUE])
            finally:
                held.destroy()

        result: bytes = self._guarded("unwrap a data key", key_id, unwrap)
        return result

    def rewrap(self, key_id: str, blob: bytes) -> tuple[str, bytes]:
        mechanism = self._pkcs11.Mechanism.AES_KEY_WRAP_PAD

        def rewrap() -> tuple[str, bytes]:
            held = self._unwrapped(self._kek(key_id), blob, readable=False)
            try:
                current, kek = self._current()
                return current, bytes(kek.wrap_key(held, mechanism=mechanism))
            finally:
                held.destroy()

        result: tuple[str, bytes] = self._guarded("re-wrap a data key", key_id, rewrap)
        return result

    def rotate(self) -> str:
        p = self._pkcs11

        def rotate() -> str:
            keks = self._keks()
            number = max((int(label[len(KEK_LABEL_PREFIX) :]) for label in keks), default=0)
            key_id = f"{KEK_LABEL_PREFIX}{number + 1:04d}"
            self._session.generate_key(
                p.KeyType.AES,
                256,
                label=key_id,
                store=True,
                template={
                    p.Attribute.EXTRACTABLE: False,
                    p.Attribute.SENSITIVE: True,
                    p.Attribute.WRAP: True,
                    p.Attribute.UNWRAP: True,
                    p.Attribute.ENCRYPT: False,
                    p.Attribute.DECRYPT: False,
                },
            )
            return key_id

        result: str = self._guarded("make a new KEK", "new", rotate)
        return result

    def retire(self, in_use: Iterable[str]) -> list[str]:
        keep = set(in_use)

        def retire() -> list[str]:
            current, _ = self._current()
            gone = []
            for key_id, kek in sorted(self._keks().items()):
                if key_id != current and key_id not in keep:
                    kek.destroy()
                    gone.append(key_id)
            return gone

        result: list[str] = self._guarded("retire a KEK", "old", retire)
        return result

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            _close_token(self._opened)


class _OpenToken:
    """One logged-in session per token in a process: PKCS#11 logs a whole application in and
    out at once, so every provider on the same token shares it (and its lock)."""

    def __init__(self, key: tuple[str, str], session: Any, pin_digest: bytes) -> None:
        self.key = key
        self.session = session
        self.pin_digest = pin_digest
        self.lock = threading.Lock()
        self.users = 0


_OPEN: dict[tuple[str, str], _OpenToken] = {}
_OPEN_LOCK = threading.Lock()


def _pin_digest(pin: Secret) -> bytes:
    return hashlib.sha256(b"ordergate pkcs11 pin\0" + pin.reveal().encode("utf-8")).digest()


def _open_token(pkcs11: Any, module: str, token_label: str, pin: Secret) -> _OpenToken:
    key = (module, token_label)
    with _OPEN_LOCK:
        opened = _OPEN.get(key)
        if opened is not None:
            if not hmac.compare_digest(opened.pin_digest, _pin_digest(pin)):
                raise KeyProviderError(f"the PIN for token {token_label!r} is refused")
            opened.users += 1
            return opened
        try:
            lib = pkcs11.lib(module)
            token = lib.get_token(token_label=token_label)
            session = token.open(user_pin=pin.reveal(), rw=True)
        except pkcs11.NoSuchToken:
            raise KeyProviderError(
                f"{ENV_PKCS11_TOKEN}: no token labelled {token_label!r} in {module}"
            ) from None
        except pkcs11.PinIncorrect:
            raise KeyProviderError(f"the PIN for token {token_label!r} is refused") from None
        except pkcs11.PKCS11Error as error:
            raise KeyProviderError(
                f"the PKCS#11 token {token_label!r} cannot be opened ({type(error).__name__})"
            ) from None
        opened = _OpenToken(key, session, _pin_digest(pin))
        opened.users = 1
        _OPEN[key] = opened
        return opened


def _close_token(opened: _OpenToken) -> None:
    with _OPEN_LOCK:
        opened.users -= 1
        if opened.users > 0:
            return
        _OPEN.pop(opened.key, None)
        with opened.lock:
            opened.session.close()


def provider_from_env(
    environ: Mapping[str, str], master: Secret, *, choice: str | None = None
) -> KeyProvider:
    """The key provider the environment names (``ORDERGATE_KEY_PROVIDER``: ``master``, the
    default, or ``pkcs11``; ``choice`` overrides it). The PKCS#11 token is named by
    ``ORDERGATE_PKCS11_MODULE`` and ``ORDERGATE_PKCS11_TOKEN``, its PIN read from
    ``ORDERGATE_PKCS11_PIN_FILE`` (mode 0600) or ``ORDERGATE_PKCS11_PIN`` — never argv."""
    name = (choice or environ.get(ENV_KEY_PROVIDER) or "master").strip().lower()
    if name == "master":
        previous = environ.get(ENV_MASTER_SECRET_PREVIOUS) or None
        return MasterSecretProvider(
            master, previous=[Secret(previous)] if previous is not None else []
        )
    if name != "pkcs11":
        raise ConfigError(ENV_KEY_PROVIDER, f"must be master or pkcs11, not {name!r}")
    module = environ.get(ENV_PKCS11_MODULE, "").strip()
    token = environ.get(ENV_PKCS11_TOKEN, "").strip()
    if not module:
        raise ConfigError(ENV_PKCS11_MODULE, "must name the token's PKCS#11 module (a .so)")
    if not token:
        raise ConfigError(ENV_PKCS11_TOKEN, "must name the token's label")
    pin_file = environ.get(ENV_PKCS11_PIN_FILE, "").strip()
    if pin_file:
        pin = read_pin_file(Path(pin_file))
    elif environ.get(ENV_PKCS11_PIN):
        pin = Secret(environ[ENV_PKCS11_PIN])
    else:
        raise ConfigError(
            ENV_PKCS11_PIN_FILE, f"set it (a 0600 file holding the PIN) or {ENV_PKCS11_PIN}"
        )
    return Pkcs11Provider(module, token, pin)
