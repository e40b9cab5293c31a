"""The owner acts: what only the person who owns the account may do, and what they prove it by.

An owner act needs the owner code (``OwnerAuthority.authorize``): connecting a client and
choosing its profile (``consent``), approving a held order (``approve``), resuming after a
pause (``resume``), applying a policy that loosens anything (``policy_apply``), arming live
mode (``arm_live``, a policy that goes live), minting a caller token that can place or
cancel (``token_mint``), enrolling again (``enrol``), and, on the owner's console, signing in
(``console_sign_in``) and registering a passkey (``passkey_register``); on a hosted rail a
person disconnects their own connection with their own code (``disconnect``). Acts that only make
things safer — deny, pause, revoke a connection, tighten the policy, mint a token that cannot
trade — need none, and are journalled as they are made.

``act_digest`` is what a code is spent on: the SHA-256 of an act, its parameters, and what the
owner was shown of it (canonical JSON), so a code typed for one act authorises no other.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

__all__ = ["Credential", "OwnerAct", "act_digest"]


def act_digest(
    act: str,
    params: Mapping[str, Any],
    summary: Sequence[str] = (),
    binds: Mapping[str, Any] | None = None,
) -> str:
    """The SHA-256 (hex) of ``act`` with its ``params``, the ``summary`` lines the owner was
    shown and ``binds``, the state it was prepared on (a filing's terms, the policy in force):
    any change to one of them is another digest."""
    canonical = json.dumps(
        {"act": str(act), "params": dict(params), "summary": list(summary),
         "binds": dict(binds or {})},
        sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str,
    )  # fmt: skip
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


class OwnerAct(StrEnum):
    ENROL = "enrol"
    CONSENT = "consent"
    APPROVE = "approve"
    RESUME = "resume"
    POLICY_APPLY = "policy_apply"
    ARM_LIVE = "arm_live"
    TOKEN_MINT = "token_mint"
    CONSOLE_SIGN_IN = "console_sign_in"
    PASSKEY_REGISTER = "passkey_register"
    DISCONNECT = "disconnect"
    """A person ending their own connection on a hosted rail with their own code."""


class Credential(StrEnum):
    """What an owner act was authorised by (journalled; the code itself never is)."""

    TOTP = "totp"
    PASSPHRASE = "passphrase"
    PASSKEY = "passkey"
    """A WebAuthn assertion the console verified (``OwnerAuthority.vouched``)."""
