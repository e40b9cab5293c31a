"""The owner's enrolment: the TOTP secret and, optionally, the passphrase's hash.

Kept in ``$ORDERGATE_HOME/owner.json`` (``ENROLMENT_FILE``), mode 0600, written atomically
(a new file, already 0600, fsynced and renamed over the old). Only the gateway's OS user
can read it: the TOTP secret is what an authenticator code is checked against, so whoever
reads this file can make owner codes. The passphrase is never stored, only its scrypt hash.

File format (JSON, ``version`` 1)::

    {"version": 1, "created_at": "2026-12-01T09:00:00+00:00",
     "totp": {"secret": "BASE32…", "digits": 6, "interval": 30},
     "passphrase": {"scheme": "scrypt", "n": 32768, "r": 8, "p": 1, "salt": …, "key": …},
     "delays": {"loosen_delay_s": 900, "approve_above": "500"}}

``passphrase`` is ``null`` when none is enrolled. ``delays`` is what the owner asked for at
enrolment (``--loosen-delay``, ``--approve-above``): how long an act that loosens waits before
it takes effect, and the notional above which approving a held order is such an act
(``null``: none); an enrolment without it asks for the defaults (15 minutes, no threshold).
The settings in force are the ledger's (``ordergate.owner._delays``): asking for looser ones
is itself an act that waits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from ordergate.core import Secret, ensure_private_dir, write_private
from ordergate.owner._errors import EnrolmentError
from ordergate.owner._passphrase import PassphraseHash, hash_passphrase
from ordergate.owner._totp import DIGITS, INTERVAL_S, new_totp_secret

__all__ = [
    "DEFAULT_LOOSEN_DELAY",
    "ENROLMENT_FILE",
    "MAX_LOOSEN_DELAY",
    "DelaySettings",
    "Enrolment",
    "new_enrolment",
    "read_enrolment",
    "write_enrolment",
]

ENROLMENT_FILE = "owner.json"
_VERSION = 1
DEFAULT_LOOSEN_DELAY = timedelta(minutes=15)
MAX_LOOSEN_DELAY = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class DelaySettings:
    """How long an act that loosens waits (``loosen_delay``), and the notional above which
    approving a held order is such an act (``approve_above``; ``None``: no approval waits)."""

    loosen_delay: timedelta = DEFAULT_LOOSEN_DELAY
    approve_above: Decimal | None = None

    def __post_init__(self) -> None:
        if not timedelta(0) <= self.loosen_delay <= MAX_LOOSEN_DELAY:
            raise ValueError("the loosen delay must be 0 s to 7 days")
        if self.approve_above is not None and not (
            self.approve_above.is_finite() and self.approve_above >= 0
        ):
            raise ValueError("the approval threshold must be a finite amount, 0 or more")

    def looser_than(self, other: DelaySettings) -> bool:
        """Whether these settings loosen anything ``other`` holds: a shorter delay, or a
        higher threshold (none at all being the highest)."""
        if self.loosen_delay < other.loosen_delay:
            return True
        if other.approve_above is None:
            return False
        return self.approve_above is None or self.approve_above > other.approve_above

    def to_json(self) -> dict[str, Any]:
        return {
            "loosen_delay_s": int(self.loosen_delay.total_seconds()),
            "approve_above": str(self.approve_above) if self.approve_above is not None else None,
        }

    @classmethod
    def from_json(cls, document: Any) -> DelaySettings:
        """Raises ``ValueError`` for anything but the shape ``to_json`` writes."""
        if not isinstance(document, dict) or set(document) != {"loosen_delay_s", "approve_above"}:
            raise ValueError("not delay settings")
        seconds, above = document["loosen_delay_s"], document["approve_above"]
        if isinstance(seconds, bool) or not isinstance(seconds, int):
            raise ValueError("loosen_delay_s must be whole seconds")
        if above is not None and not isinstance(above, str):
            raise ValueError("approve_above must be a decimal string")
        try:
            threshold = Decimal(above) if above is not None else None
        except InvalidOperation:
            raise ValueError("approve_above must be a decimal string") from None
        return cls(timedelta(seconds=seconds), threshold)


@dataclass(frozen=True, slots=True)
class Enrolment:
    totp_secret: Secret
    passphrase: PassphraseHash | None
    created_at: datetime
    delays: DelaySettings = DelaySettings()

    def __repr__(self) -> str:
        kept = "totp+passphrase" if self.passphrase is not None else "totp"
        return f"Enrolment({kept}, created_at={self.created_at.isoformat()})"

    def to_json(self) -> dict[str, Any]:
        return {
            "version": _VERSION,
            "created_at": self.created_at.isoformat(),
            "totp": {"secret": self.totp_secret.reveal(), "digits": DIGITS, "interval": INTERVAL_S},
            "passphrase": self.passphrase.to_json() if self.passphrase is not None else None,
            "delays": self.delays.to_json(),
        }


def new_enrolment(
    *, passphrase: str | None, now: datetime, delays: DelaySettings | None = None
) -> Enrolment:
    """A fresh TOTP secret and, when given, the passphrase's hash. Raises ``ConfigError`` for
    a passphrase that breaks the rules (``ordergate.owner._passphrase``)."""
    hashed = hash_passphrase(passphrase) if passphrase is not None else None
    return Enrolment(
        totp_secret=new_totp_secret(),
        passphrase=hashed,
        created_at=now,
        delays=delays or DelaySettings(),
    )


def read_enrolment(path: Path) -> Enrolment | None:
    """The enrolment at ``path``; ``None`` when there is none. Raises ``EnrolmentError`` when
    the file cannot be read or is not an enrolment (never guessing a part)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise EnrolmentError(f"cannot read {path} ({error.strerror})") from None
    try:
        document = json.loads(text)
        if not isinstance(document, dict) or document.get("version") != _VERSION:
            raise ValueError("not a version 1 enrolment")
        totp = document["totp"]
        if totp.get("digits") != DIGITS or totp.get("interval") != INTERVAL_S:
            raise ValueError("only 6-digit, 30-second codes are supported")
        secret = totp["secret"]
        if not isinstance(secret, str) or len(secret) < 26:
            raise ValueError("the TOTP secret is missing or short")
        stored = document.get("passphrase")
        passphrase = PassphraseHash.from_json(stored) if stored is not None else None
        created_at = datetime.fromisoformat(document["created_at"])
        stored_delays = document.get("delays")
        delays = DelaySettings.from_json(stored_delays) if stored_delays else DelaySettings()
    except (ValueError, KeyError, TypeError, AttributeError):
        raise EnrolmentError(f"{path} is not an owner enrolment this ordergate reads") from None
    return Enrolment(
        totp_secret=Secret(secret), passphrase=passphrase, created_at=created_at, delays=delays
    )


def write_enrolment(path: Path, enrolment: Enrolment) -> None:
    """Replace ``path`` with ``enrolment``, atomically, mode 0600 from its first byte."""
    ensure_private_dir(path.parent)
    write_private(path, json.dumps(enrolment.to_json(), indent=2).encode() + b"\n")
