"""``Settings``: where the policy, the ledger and the upstream are, from flags and environment.

- ``ORDERGATE_HOME`` (default ``~/.ordergate``) holds ``policy.toml``, ``ledger.db`` and the
  token file ``ordergate login`` writes.
- ``--policy FILE`` (default ``$ORDERGATE_HOME/policy.toml``). A missing *default* policy is
  written with the conservative defaults (a fresh install); a missing policy the person named
  is an error, never replaced by defaults.
- ``--db URL`` (default ``ORDERGATE_DB_URL``, else SQLite in the home).
- ``--upstream URL`` (default ``ORDERGATE_UPSTREAM_URL``, else where ``ordergate login``
  signed in) or ``--sandbox`` (an embedded sandbox venue on loopback). With neither, and no
  sign-in, the embedded sandbox is used and the run says so.
- ``ORDERGATE_APPROVAL_WEBHOOK``: a URL told of every new pending approval (POST JSON).
- The Crypto Trading REST API key ``ordergate login --crypto-api`` stores in the home
  (``crypto_key_file``): when it is there, a live run has the REST rail as a crypto lane,
  at ``ORDERGATE_CRYPTO_REST_URL`` (default Robinhood's ``https://trading.robinhood.com``;
  the embedded sandbox serves its own, and registers the stored key's public key).
- ``--sandbox-start ISO`` (``ordergate serve``) or ``ORDERGATE_SANDBOX_START`` (ISO-8601
  instant, embedded sandbox only): the run's *market* clock starts there and runs at wall
  speed, for demos and tests in a chosen session (e.g. a Tuesday 10:00 New York). Security
  time (tokens, codes, approvals, rate limits) stays the wall clock (``Settings.clocks``).
  Refused with any other upstream: a real broker's clock is real.
- ``ORDERGATE_SANDBOX_SPEED`` (a positive number, default 1; embedded sandbox only): the
  market clock runs that many times faster than wall time (an accelerated clock, as
  ``ordergate sandbox serve --clock accelerated --speed N``), from ``sandbox_start`` or now.
  An agent run ticks on that clock, so its ticks come ``N`` times faster in wall time.
- ``ORDERGATE_SANDBOX_ACCOUNT_TYPE`` (``cash``, the default, or ``margin``) and
  ``ORDERGATE_SANDBOX_OPTION_LEVEL`` (``1``, ``2``, the default, or ``3``; embedded sandbox
  only): the embedded venue's agentic account, as ``ordergate sandbox serve --account-type
  … --option-level …`` sets it (multi-leg option orders need ``margin`` and ``3``). Refused
  with any other upstream: a real account's type and level are Robinhood's.
- ``ORDERGATE_SANDBOX_FAULTS`` (a JSON object of the sandbox's fault knobs, as its loopback
  ``/_sandbox/faults`` takes them; embedded sandbox only): the embedded venue starts with
  them set, to rehearse the wall's refusals from the command line (``{"quote_lag_s":
  {"SPY": 20}}``: SPY's quotes twenty seconds old, refused ``stale_quote``). Checked by the
  venue's own knobs (``ConfigError`` naming the variable and the knob); refused with any
  other upstream.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from pathlib import Path

from ordergate.client import Config, ordergate_home
from ordergate.client.crypto_rest import default_key_file
from ordergate.core import (
    Clock,
    ClockMode,
    Clocks,
    ConfigError,
    MarketClock,
    SecurityClock,
    make_clock,
)
from ordergate.policy import PolicyConfig, parse_policy, write_default_policy

__all__ = ["Settings", "UpstreamChoice"]

POLICY_FILE = "policy.toml"


class UpstreamChoice(StrEnum):
    SANDBOX = "sandbox"
    URL = "url"
    SIGNED_IN = "signed_in"


@dataclass(frozen=True, slots=True)
class Settings:
    home: Path
    policy_path: Path
    policy_given: bool
    db_url: str | None
    upstream_url: str | None
    sandbox: bool
    webhook_url: str | None = None
    console_url: str | None = None
    """The owner's console (``…/console``) when a gateway serves one: each waiting order's
    announcement links to its page there."""
    sandbox_start: datetime | None = None
    sandbox_speed: Decimal = Decimal(1)
    """How many times faster than wall time the embedded sandbox's market clock runs."""
    sandbox_account_type: str | None = None
    """The embedded sandbox's agentic account type (``None``: the venue's default)."""
    sandbox_option_level: int | None = None
    """The embedded sandbox's agentic account option level (``None``: the venue's default)."""
    crypto_rest_url: str | None = None
    """Where the Crypto Trading REST API is (``None``: Robinhood's)."""
    sandbox_faults: str | None = None
    """The embedded sandbox's fault knobs at start, a JSON object (``None``: none)."""

    @classmethod
    def resolve(
        cls,
        *,
        policy: Path | None = None,
        db: str | None = None,
        upstream: str | None = None,
        sandbox: bool = False,
        sandbox_start: str | None = None,
    ) -> Settings:
        """Settings from the flags, falling back on the environment. ``ConfigError`` when
        both ``--upstream`` and ``--sandbox`` are given, or a URL is not http(s)."""
        if upstream and sandbox:
            raise ConfigError("upstream", "give --upstream URL or --sandbox, not both")
        home = ordergate_home()
        url = upstream or os.environ.get("ORDERGATE_UPSTREAM_URL") or None
        if url is not None and not url.startswith(("https://", "http://")):
            raise ConfigError("upstream", "the upstream is an http(s) URL")
        webhook = os.environ.get("ORDERGATE_APPROVAL_WEBHOOK") or None
        if webhook is not None and not webhook.startswith(("https://", "http://")):
            raise ConfigError("ORDERGATE_APPROVAL_WEBHOOK", "the webhook is an http(s) URL")
        rest_url = os.environ.get("ORDERGATE_CRYPTO_REST_URL") or None
        if rest_url is not None and not rest_url.startswith(("https://", "http://")):
            raise ConfigError("ORDERGATE_CRYPTO_REST_URL", "the REST API is an http(s) URL")
        if sandbox_start is not None:
            start = _instant("sandbox_start", sandbox_start)
        else:
            start = _instant("ORDERGATE_SANDBOX_START", os.environ.get("ORDERGATE_SANDBOX_START"))
        speed = _speed(os.environ.get("ORDERGATE_SANDBOX_SPEED"))
        account_type, option_level = _sandbox_account(
            os.environ.get("ORDERGATE_SANDBOX_ACCOUNT_TYPE"),
            os.environ.get("ORDERGATE_SANDBOX_OPTION_LEVEL"),
        )
        faults = _sandbox_faults(os.environ.get("ORDERGATE_SANDBOX_FAULTS"))
        settings = cls(
            home=home,
            policy_path=policy if policy is not None else home / POLICY_FILE,
            policy_given=policy is not None,
            db_url=db,
            upstream_url=None if sandbox else url,
            sandbox=sandbox,
            webhook_url=webhook,
            sandbox_start=start,
            sandbox_speed=speed,
            sandbox_account_type=account_type,
            sandbox_option_level=option_level,
            crypto_rest_url=rest_url,
            sandbox_faults=faults,
        )
        if start is not None and settings.upstream_choice is not UpstreamChoice.SANDBOX:
            raise ConfigError(
                "sandbox_start" if sandbox_start is not None else "ORDERGATE_SANDBOX_START",
                "only the embedded sandbox runs on a chosen clock",
            )
        if speed != 1 and settings.upstream_choice is not UpstreamChoice.SANDBOX:
            raise ConfigError(
                "ORDERGATE_SANDBOX_SPEED", "only the embedded sandbox runs on a chosen clock"
            )
        for key, value in (
            ("ORDERGATE_SANDBOX_ACCOUNT_TYPE", account_type),
            ("ORDERGATE_SANDBOX_OPTION_LEVEL", option_level),
        ):
            if value is not None and settings.upstream_choice is not UpstreamChoice.SANDBOX:
                raise ConfigError(key, "only the embedded sandbox's account can be set up")
        if faults is not None and settings.upstream_choice is not UpstreamChoice.SANDBOX:
            raise ConfigError(
                "ORDERGATE_SANDBOX_FAULTS", "only the embedded sandbox's faults can be set"
            )
        if rest_url is not None and settings.upstream_choice is UpstreamChoice.SANDBOX:
            raise ConfigError(
                "ORDERGATE_CRYPTO_REST_URL", "the embedded sandbox serves its own REST API"
            )
        return settings

    def clocks(self) -> Clocks:
        """The run's two clocks: the market's (``clock()``) and security time (wall)."""
        return Clocks(market=MarketClock(self.clock()), security=SecurityClock())

    def clock(self) -> Clock:
        """The run's market clock: wall time, or from ``sandbox_start`` (else now) at
        ``sandbox_speed`` times wall speed."""
        mode = ClockMode.REALTIME if self.sandbox_speed == 1 else ClockMode.ACCELERATED
        return make_clock(mode, start=self.sandbox_start, speed=self.sandbox_speed)

    @property
    def token_file(self) -> Path:
        """Where ``ordergate login`` keeps the tokens (the client's default)."""
        return Config().token_file

    @property
    def crypto_key_file(self) -> Path:
        """Where ``ordergate login --crypto-api`` keeps the Crypto Trading REST API key."""
        return default_key_file(self.home)

    @property
    def upstream_choice(self) -> UpstreamChoice:
        if self.sandbox:
            return UpstreamChoice.SANDBOX
        if self.upstream_url is not None:
            return UpstreamChoice.URL
        if self.token_file.exists():
            return UpstreamChoice.SIGNED_IN
        return UpstreamChoice.SANDBOX

    def policy(self) -> tuple[PolicyConfig, str | None]:
        """The policy file's policy, and a note when a fresh default was written.
        ``ConfigError`` for a bad file (its key and reason) or a named file that does not
        exist. (What a run enforces is ``ordergate.runtime.policy_in_force``: this file only
        if the owner applied it.)"""
        text, note = self.policy_text()
        return parse_policy(text), note

    def policy_text(self) -> tuple[str, str | None]:
        """The policy file's text, read once, and a note when a fresh default was written."""
        path = self.policy_path
        note = None
        if not path.exists():
            if self.policy_given:
                raise ConfigError("policy", f"no policy file at {path}")
            write_default_policy(path)
            note = f"wrote the default policy to {path} (paper, approval always, small caps)"
        try:
            return path.read_text(encoding="utf-8"), note
        except OSError as error:
            raise ConfigError("policy", f"cannot read {path} ({error.strerror})") from None
        except UnicodeDecodeError:
            raise ConfigError("policy", f"{path} is not UTF-8 text") from None


def _instant(key: str, text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        instant = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(key, "not an ISO-8601 instant") from None
    if instant.tzinfo is None:
        raise ConfigError(key, "give a time zone (e.g. 2026-12-01T15:00:00+00:00)")
    return instant


def _speed(text: str | None) -> Decimal:
    if not text:
        return Decimal(1)
    try:
        speed = Decimal(text.strip())
    except InvalidOperation:
        raise ConfigError("ORDERGATE_SANDBOX_SPEED", "not a number") from None
    if not speed.is_finite() or speed <= 0:
        raise ConfigError("ORDERGATE_SANDBOX_SPEED", "give a positive number (e.g. 60)")
    return speed


_SANDBOX_ACCOUNT_ENV = {
    "account_type": "ORDERGATE_SANDBOX_ACCOUNT_TYPE",
    "option_level": "ORDERGATE_SANDBOX_OPTION_LEVEL",
}


def _sandbox_account(
    account_type: str | None, option_level: str | None
) -> tuple[str | None, int | None]:
    """The embedded venue's account type and option level from the environment, checked by
    the venue's own settings (``None`` where unset); ``ConfigError`` naming the variable."""
    if not account_type and not option_level:
        return None, None
    from ordergate.sandbox import SandboxConfig  # the venue: only when one is set

    default = SandboxConfig()
    kind = account_type.strip() if account_type else default.account_type
    text = option_level.strip() if option_level else str(default.option_level)
    try:
        config = SandboxConfig(account_type=kind, option_level=int(text) if text.isdigit() else 0)
    except ConfigError as error:
        raise ConfigError(_SANDBOX_ACCOUNT_ENV[error.key], error.reason) from None
    return (
        config.account_type if account_type else None,
        config.option_level if option_level else None,
    )


_FAULTS_ENV = "ORDERGATE_SANDBOX_FAULTS"


def _sandbox_faults(text: str | None) -> str | None:
    """The embedded venue's fault knobs from the environment, checked by the venue's own
    knobs (``None`` where unset); ``ConfigError`` naming the variable and the knob."""
    if not text or not text.strip():
        return None
    try:
        knobs = json.loads(text)
    except ValueError:
        raise ConfigError(_FAULTS_ENV, "not JSON (give an object of fault knobs)") from None
    if not isinstance(knobs, dict):
        raise ConfigError(_FAULTS_ENV, "give a JSON object of fault knobs")
    from ordergate.sandbox.venue import Faults  # the venue: only when one is set

    try:
        Faults().update(knobs)
    except ConfigError as error:
        raise ConfigError(_FAULTS_ENV, f"{error.key}: {error.reason}") from None
    return text.strip()
