"""An enrolled owner for tests: the enrolment in a home, and fresh owner codes from it.

``enrol(home)`` writes ``home/owner.json`` as ``ordergate owner init`` does and returns an
``OwnerCodes``. ``codes.next()`` is a current authenticator code the gateway has not seen:
the authority accepts the current 30-second step and one either side, each once, so a test
gets the current step's code and then the next step's (still valid now, RFC 6238 §5.2's
drift window) — two owner acts per half minute without waiting. A test needing more acts
enrols a passphrase too (``codes.passphrase``), which is not single-use.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import pyotp

from ordergate.owner import ENROLMENT_FILE, Enrolment, new_enrolment, write_enrolment

PASSPHRASE = "correct horse battery staple"

SECRETS: set[str] = {PASSPHRASE}
"""Every TOTP secret and passphrase tests enrol (scanned for in every test's output)."""
CODES: set[str] = set()
"""The codes handed out in the current test (scanned for, then forgotten)."""


class OwnerCodes:
    def __init__(self, enrolment: Enrolment, passphrase: str | None) -> None:
        self.enrolment = enrolment
        self.passphrase = passphrase
        self._totp = pyotp.TOTP(enrolment.totp_secret.reveal())
        self._last: int | None = None

    @property
    def secret(self) -> str:
        return self.enrolment.totp_secret.reveal()

    def next(self) -> str:
        """A code of a step not used yet through this helper, valid at this instant."""
        current = self._totp.timecode(datetime.now(UTC))
        step = current if self._last is None else max(self._last + 1, current)
        if step > current + 1:
            raise AssertionError("more than two owner codes in one half minute: use a passphrase")
        self._last = step
        code = self._totp.generate_otp(step)
        CODES.add(code)
        return code

    def used_already(self) -> str:
        """The code last handed out (a replay)."""
        assert self._last is not None, "no code handed out yet"
        return self._totp.generate_otp(self._last)

    def wrong(self) -> str:
        """Six digits that are no valid code now (nor one step either side)."""
        current = self._totp.timecode(time.time())
        valid = {self._totp.generate_otp(step) for step in range(current - 2, current + 3)}
        candidate = 0
        while f"{candidate:06d}" in valid:
            candidate += 1
        return f"{candidate:06d}"


def enrol(home: Path, *, passphrase: str | None = None) -> OwnerCodes:
    """Enrol an owner in ``home`` (as ``ordergate owner init`` would) and give its codes."""
    enrolment = new_enrolment(passphrase=passphrase, now=datetime.now(UTC))
    write_enrolment(home / ENROLMENT_FILE, enrolment)
    SECRETS.add(enrolment.totp_secret.reveal())
    if passphrase is not None:
        SECRETS.add(passphrase)
    return OwnerCodes(enrolment, passphrase)


def apply_policy(db_url: str, text: str) -> None:
    """Record ``text`` as the policy the owner applied on the ledger at ``db_url`` (what
    ``ordergate policy apply`` does with the owner code), so a run starts on it."""
    from ordergate.core import RealtimeClock
    from ordergate.gateway.desk import policy_baseline
    from ordergate.ledger import open_ledger
    from ordergate.policy import changed_keys, loosened_keys, parse_policy

    policy = parse_policy(text)
    with open_ledger(db_url, clock=RealtimeClock()) as ledger:
        baseline, _ = policy_baseline(ledger)
        ledger.controls.apply_policy(
            text,
            credential="totp",
            loosened=loosened_keys(baseline, policy),
            changed=changed_keys(baseline, policy),
        )


def apply_home_policy(home: Path) -> None:
    """Apply ``home/policy.toml`` on the home's default ledger (``home/ledger.db``)."""
    apply_policy(f"sqlite:///{home / 'ledger.db'}", (home / "policy.toml").read_text())


def leaks(text: str) -> list[str]:
    """Which registered owner secrets (and, as such, which codes) ``text`` holds. A code is
    found only standing alone, not inside a longer number, word or id."""
    found = [secret for secret in SECRETS if secret in text]
    found.extend(
        "an owner code" for code in CODES if re.search(rf"(?<![\w.\-]){code}(?![\w.\-])", text)
    )
    return found


def owner_channel(
    home: Path, *, timeout_s: float = 30.0, socket: Path | None = None
) -> httpx2.Client:
    """An HTTP client on the owner channel of the gateway whose home is ``home`` (its Unix
    socket, ``home/run/owner.sock``, or ``socket``); paths are ``/owner/…``."""
    path = socket if socket is not None else home / "run" / "owner.sock"
    transport = httpx2.HTTPTransport(uds=str(path))
    return httpx2.Client(transport=transport, timeout=timeout_s, base_url="http://owner")


def channel_act(
    home: Path,
    act: str,
    params: dict[str, Any],
    code: str | None = None,
    *,
    socket: Path | None = None,
) -> httpx2.Response:
    """An owner act on the owner channel as the owner's commands make it: prepared, then
    authorised with ``code`` (the preparation's refusal when it is refused)."""
    with owner_channel(home, socket=socket) as http:
        prepared = http.post("/owner/prepare", json={"act": act, "params": params})
        if prepared.status_code != 200:
            return prepared
        body = prepared.json()
        return http.post(
            "/owner/authorize",
            json={"act_id": body["act_id"], "digest": body["digest"], "owner_code": code},
        )
