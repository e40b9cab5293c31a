"""A profile file refused at load: which file and which key inside it."""

from __future__ import annotations

from ordergate.core import ConfigError

__all__ = ["ProfileError"]


class ProfileError(ConfigError):
    """A profile file is malformed, unknown in a key, or would loosen the account policy.

    ``source`` names the file (``builtin/monitor.yaml`` or its path), ``field`` the dotted
    key inside it (``permissions[2]``, ``policy.limits.max_order_usd``; ``""`` for the file
    as a whole); ``key`` is ``source:field``, as ``ConfigError`` callers expect.
    """

    code = "invalid_profile"

    def __init__(self, source: str, field: str, reason: str) -> None:
        self.source = source
        self.field = field
        super().__init__(f"{source}:{field}" if field else source, reason)
