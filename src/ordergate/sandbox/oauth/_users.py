"""``UserSignIn``: the venue's own sign-in of its named users on its consent page.

The sandbox serves one unnamed user by default, who signs in with a click as the venue always
has. Named users (``SandboxConfig.users``) each have their own accounts and a password drawn
from the seed (``user_password``: the same seed, the same passwords), and the consent page asks
for both; the authorization, and every token issued from it, then carries the user's name as
its ``subject``. A wrong name or password shows the page again; nothing says which was wrong.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping

from ordergate.core import Secret
from ordergate.oauth import (
    Authorization,
    ConsentField,
    ConsentPrompt,
    ConsentRefusal,
    MultiParams,
    SignedIn,
    single_param,
)

__all__ = ["WRONG_CREDENTIALS", "UserSignIn", "user_password"]

WRONG_CREDENTIALS = "the user name or password is wrong"
_PROMPT = ConsentPrompt(
    fields=(
        ConsentField("username", "User name", kind="text", autocomplete="username"),
        ConsentField("password", "Password"),
    )
)


def user_password(seed: int, name: str) -> Secret:
    """The password of the sandbox user ``name`` on a venue seeded ``seed``."""
    digest = hashlib.blake2b(f"{seed}|password|{name}".encode(), digest_size=10).digest()
    return Secret(base64.b32encode(digest).decode().lower())


class UserSignIn:
    """The consent hook that signs a named user in with their password."""

    def __init__(self, passwords: Mapping[str, Secret]) -> None:
        self._passwords = dict(passwords)

    async def prompt(self) -> ConsentPrompt:
        return _PROMPT

    async def check(
        self, *, form: MultiParams, profile: str | None, authorization: Authorization
    ) -> ConsentRefusal | SignedIn | None:
        name = single_param(form, "username") or ""
        typed = single_param(form, "password") or ""
        known = self._passwords.get(name)
        # Compared even for an unknown name, so the answer takes as long either way.
        expected = known.reveal() if known is not None else "\x00" * 16
        same = hmac.compare_digest(expected.encode(), typed.encode())
        if known is None or not same:
            return ConsentRefusal(401, WRONG_CREDENTIALS, retype=True)
        return SignedIn(name)
