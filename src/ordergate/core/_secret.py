"""A string whose ``repr`` and ``str`` never show the value (after Starlette's ``Secret``)."""

from __future__ import annotations

import hmac
import weakref

from ordergate.core._redact import hold_secret, release_secret

__all__ = ["MIN_KEY_SECRET_LENGTH", "Secret"]

MIN_KEY_SECRET_LENGTH = 32
"""The shortest secret a key is derived from (``ORDERGATE_MASTER_SECRET``,
``ORDERGATE_CALLER_TOKEN_KEY``): 32 characters."""


class Secret:
    __slots__ = ("__weakref__", "_value")

    def __init__(self, value: str) -> None:
        self._value = value
        # Wrapping is registering: a wrapped value is masked in every redacting log handler,
        # while it is wrapped and for a day after (``ordergate.core._redact``).
        hold_secret(value)
        weakref.finalize(self, release_secret, value)

    def reveal(self) -> str:
        """The secret itself: call only where it is sent or hashed, never where it is shown."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    def __str__(self) -> str:
        return "**********"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(self._value.encode(), other._value.encode())

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)
