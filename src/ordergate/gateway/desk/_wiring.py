"""Building the owner's desk for a running gateway, and what it tells the owner at start.

``owner_desk`` composes the desk on a ledger, a store and guards: the running gateway's own,
or the command line's when no gateway runs; the enrolment is ``$ORDERGATE_HOME/owner.json``
and the code is checked by the wall clock. ``rearm_note`` is
what an applied policy means for the mode the gateway runs in: a running gateway never arms
live by itself (live is armed when it starts, from the upstream's ``tools/list``), and a
policy that is no longer live while the gateway trades live pauses trading until it is
restarted in paper.
"""

from __future__ import annotations

from ordergate.callers import CallerKey
from ordergate.core import Clock, ConfigError, command_hint
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway.custody._person import PersonCodes
from ordergate.gateway.desk._delayed import DelayedActs
from ordergate.gateway.desk._desk import OwnerDesk
from ordergate.gateway.desk._held import GuardFor
from ordergate.gateway.desk._policy_acts import PolicyHook
from ordergate.gateway.oauth import GatewayStore
from ordergate.ledger import Ledger
from ordergate.owner import ENROLMENT_FILE, Delays, EnrolmentError, LockAlert, OwnerAuthority
from ordergate.policy import Mode, PolicyConfig
from ordergate.profiles import Profiles
from ordergate.runtime import Settings, WebhookNotifier

__all__ = ["enrol_hint", "enrolment_note", "owner_authority", "owner_desk", "rearm_note"]


def enrol_hint() -> str:
    """How the owner enrols, naming the command as the person types it."""
    return (
        f"enrol the owner with `{command_hint('owner init')}` (as the gateway's OS user, with "
        "the same ORDERGATE_HOME), then scan its QR code with an authenticator app"
    )


def owner_authority(settings: Settings, config: GatewayConfig, ledger: Ledger) -> OwnerAuthority:
    """The owner's authority over ``$ORDERGATE_HOME/owner.json`` on the gateway's ledger,
    announcing each lock on the owner's webhook (``ORDERGATE_APPROVAL_WEBHOOK``). Raises
    ``ConfigError`` when the gateway listens beyond loopback with nobody enrolled (its consent
    page must never connect a stranger, even to read), and ``EnrolmentError`` for an enrolment
    that cannot be read."""
    webhook = WebhookNotifier(settings.webhook_url)

    async def on_lock(alert: LockAlert) -> None:
        await webhook.announce(alert.as_json())

    authority = OwnerAuthority(
        enrolment_path=settings.home / ENROLMENT_FILE, ledger=ledger, on_lock=on_lock
    )
    if config.beyond_loopback and authority.enrolment() is None:
        raise ConfigError(
            "host",
            f"bound beyond loopback ({config.host}), the gateway needs an enrolled owner first: "
            + enrol_hint(),
        )
    return authority


def owner_desk(
    settings: Settings,
    *,
    authority: OwnerAuthority,
    ledger: Ledger,
    store: GatewayStore,
    guard_for: GuardFor,
    mode: str,
    profiles: Profiles,
    caller_key: CallerKey | None,
    clock: Clock,
    on_policy: PolicyHook | None = None,
    webhook: WebhookNotifier | None = None,
    persons: PersonCodes | None = None,
) -> OwnerDesk:
    """The owner's desk on ``ledger``, as the running gateway and the command line acting on
    the ledger directly both compose it; ``clock`` is security time (the owner's delays run on
    it); what waits for the delay is announced on ``webhook``, when there is one; ``persons``:
    on a hosted rail, the people's own codes for their connections' acts."""
    delayed = DelayedActs(
        Delays(ledger, clock=clock), announce=webhook.announce if webhook is not None else None
    )
    return OwnerDesk(
        authority=authority,
        ledger=ledger,
        store=store,
        guard_for=guard_for,
        mode=mode,
        policy_path=settings.policy_path,
        profiles=profiles,
        caller_key=caller_key,
        on_policy=on_policy,
        clock=clock,
        delayed=delayed,
        persons=persons,
    )


async def enrolment_note(desk: OwnerDesk) -> str:
    """One line for the start-up banner: whether an owner is enrolled and what that means."""
    try:
        owner = (await desk.status())["owner"]
    except EnrolmentError as error:
        return f"owner: the enrolment cannot be read ({error}); owner acts are refused"
    if owner["enrolled"]:
        kinds = (
            "an authenticator code or the passphrase"
            if owner["passphrase"]
            else ("an authenticator code")
        )
        return f"owner: enrolled; owner acts (consent, approve, resume, …) ask for {kinds}"
    return (
        "owner: nobody is enrolled, so consents grant the monitor profile only and every owner "
        f"act is refused; {enrol_hint()}"
    )


def rearm_note(ledger: Ledger, *, live_now: bool, policy: PolicyConfig) -> str | None:
    """What applying ``policy`` means for a gateway trading live (``live_now``) or on paper."""
    wants_live = policy.mode is Mode.LIVE and policy.real_money
    if live_now and not wants_live:
        ledger.controls.pause(
            "the applied policy is not live: restart the gateway to trade on paper", by="owner"
        )
        return (
            "the gateway was trading live and the applied policy is not: new orders are paused "
            "until the gateway is restarted (it then runs in paper)"
        )
    if wants_live and not live_now:
        return (
            "live mode is armed when the gateway next starts (it reads the upstream's tools/list "
            "then); until then it stays in paper"
        )
    return None
