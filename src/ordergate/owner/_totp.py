"""RFC 6238 time-based one-time codes (6 digits, 30-second steps, HMAC-SHA1), through pyotp.

The owner's phone authenticator holds the secret from enrolment (``provisioning_uri``: an
``otpauth://`` URI, shown as a QR code). ``matching_step`` finds which time step a submitted
code belongs to — the current one, or one step either side for clock drift between the phone
and this machine (RFC 6238 §5.2) — so that the authority can refuse a code whose step was
already used (§5.2: "the verifier MUST NOT accept the second attempt of the same OTP").

Time is the wall clock's, always: a simulated market clock never moves security time.
"""

from __future__ import annotations

import hmac
import re
from datetime import datetime

import pyotp

from ordergate.core import Secret

__all__ = [
    "DIGITS",
    "DRIFT_STEPS",
    "INTERVAL_S",
    "ISSUER",
    "looks_like_code",
    "matching_step",
    "new_totp_secret",
    "provisioning_uri",
]

DIGITS = 6
INTERVAL_S = 30
DRIFT_STEPS = 1
ISSUER = "ordergate"
_CODE = re.compile(r"[0-9]{6}")


def new_totp_secret() -> Secret:
    """A fresh 160-bit secret, base32 (RFC 4226 §4 recommends 160 bits)."""
    return Secret(pyotp.random_base32(32))


def provisioning_uri(secret: Secret, *, account: str = "owner") -> str:
    """The ``otpauth://totp/…`` URI an authenticator app reads (from its QR code)."""
    return pyotp.TOTP(secret.reveal(), digits=DIGITS, interval=INTERVAL_S).provisioning_uri(
        name=account, issuer_name=ISSUER
    )


def looks_like_code(text: str) -> bool:
    """Whether ``text`` has the shape of an authenticator code (exactly six digits)."""
    return _CODE.fullmatch(text) is not None


def matching_step(secret: Secret, code: str, *, now: datetime) -> int | None:
    """The time step (``floor(unix time / 30)``) whose code ``code`` is, among the current
    step and ``DRIFT_STEPS`` either side; ``None`` when it is none of them. Every candidate
    is compared in constant time."""
    if not looks_like_code(code):
        return None
    totp = pyotp.TOTP(secret.reveal(), digits=DIGITS, interval=INTERVAL_S)
    current = totp.timecode(now)
    found = None
    for step in range(current - DRIFT_STEPS, current + DRIFT_STEPS + 1):
        if hmac.compare_digest(totp.generate_otp(step), code) and found is None:
            found = step
    return found
