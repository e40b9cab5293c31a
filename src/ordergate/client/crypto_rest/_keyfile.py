"""The key file: the API key and the base64 Ed25519 private key, kept like the OAuth tokens.

JSON, mode 0600 in a 0700 directory, written atomically by ``ordergate.core.write_private``
(``ordergate login --crypto-api`` writes it). Reading it wraps both values in ``Secret``;
a missing or damaged file is ``CryptoKeyRequired``, whose message names the file and the
bad key, never a value.
"""

from __future__ import annotations

import json
from pathlib import Path

from ordergate.client._config import ordergate_home
from ordergate.client.crypto_rest._signing import ApiKey, KeyFormatError
from ordergate.core import Secret, ToolError, command_hint, write_private

__all__ = ["CryptoKeyRequired", "default_key_file", "read_key_file", "write_key_file"]


class CryptoKeyRequired(ToolError):
    code = "crypto_key_required"

    def __init__(self, reason: str) -> None:
        super().__init__(f"{reason}; run `{command_hint('login --crypto-api')}` to store one")


def default_key_file(home: Path | None = None) -> Path:
    """Where ``ordergate login --crypto-api`` keeps the key: in ``home`` (the ordergate home
    unless given)."""
    return (ordergate_home() if home is None else home) / "robinhood-crypto-api.json"


def write_key_file(path: Path, key: ApiKey) -> None:
    """Replace ``path`` with ``key`` atomically; the file is 0600 from its first byte."""
    document = {"api_key": key.api_key.reveal(), "private_key": key.private_key.reveal()}
    write_private(path, json.dumps(document, indent=2).encode() + b"\n")


def read_key_file(path: Path) -> ApiKey:
    """The key in ``path``; ``CryptoKeyRequired`` if it is missing, unreadable or damaged."""
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise CryptoKeyRequired(f"no Crypto Trading API key at {path}") from None
    except OSError as error:
        raise CryptoKeyRequired(f"the key file {path} cannot be read ({error.strerror})") from None
    try:
        document = json.loads(text)
    except ValueError:
        raise CryptoKeyRequired(f"the key file {path} is not JSON") from None
    values: dict[str, str] = {}
    for name in ("api_key", "private_key"):
        value = document.get(name) if isinstance(document, dict) else None
        if not isinstance(value, str) or not value:
            raise CryptoKeyRequired(f"the key file {path} has no {name}")
        values[name] = value
    try:
        return ApiKey(Secret(values["api_key"]), Secret(values["private_key"]))
    except KeyFormatError as error:
        raise CryptoKeyRequired(f"the key file {path} is damaged ({error})") from None
