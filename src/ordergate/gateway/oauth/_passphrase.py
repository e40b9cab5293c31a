"""The owner's passphrase on the consent page: a consent hook (``ordergate.oauth.ConsentCheck``).

A gateway bound beyond loopback requires it (``GatewayConfig.requires_passphrase``). The page
asks for it in a password field named ``passphrase``; an approval without the right one is
refused with 403 and the sentence "the owner passphrase is not right", and logged as such
(never what was typed). Denying needs none.

Only the SHA-256 of the configured passphrase is kept; a submitted one is hashed and compared
in constant time, so neither the comparison's timing nor a memory dump of this object gives
the passphrase away.
"""

from __future__ import annotations

import hashlib
import hmac
import logging

from ordergate.core import ConfigError, Secret
from ordergate.oauth import (
    Authorization,
    ConsentField,
    ConsentPrompt,
    ConsentRefusal,
    MultiParams,
    single_param,
)

__all__ = ["OwnerPassphrase"]

_log = logging.getLogger(__name__)

FIELD = "passphrase"
_PROMPT = ConsentPrompt(fields=(ConsentField(name=FIELD, label="Owner passphrase"),))
_WRONG = ConsentRefusal(status_code=403, problem="the owner passphrase is not right")


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class OwnerPassphrase:
    """Checks a submitted passphrase against the configured one.

    Raises ``ConfigError`` for an empty passphrase.
    """

    def __init__(self, passphrase: Secret) -> None:
        if not passphrase:
            raise ConfigError("require_passphrase", "must not be empty")
        self._digest = _digest(passphrase.reveal())

    def __repr__(self) -> str:
        return "OwnerPassphrase(**********)"

    def matches(self, submitted: str | None) -> bool:
        """Whether ``submitted`` is the passphrase (``None``, i.e. nothing typed, never is)."""
        same = hmac.compare_digest(_digest(submitted or ""), self._digest)
        return same and submitted is not None

    async def prompt(self) -> ConsentPrompt:
        return _PROMPT

    async def check(
        self, *, form: MultiParams, profile: str | None, authorization: Authorization
    ) -> ConsentRefusal | None:
        if self.matches(single_param(form, FIELD)):
            return None
        _log.warning("a consent was refused: the owner passphrase was not right")
        return _WRONG
