"""What each owner act that may need the code will do, as the owner is shown it: a ``Plan``.

``OwnerDesk.prepare`` builds one from the act's parameters and the state it acts on, and
stores it as a ``PreparedAct`` (its summary lines and the digest over act, parameters,
summary and ``binds``); authorising builds it again from the same parameters and refuses when
the digest differs (the filing, the policy in force, the pause changed in between). One
builder per act:

- ``approve_plan``: side, quantity or amount, symbol, the estimated money, the filing;
- ``resume_plan``: the pause it ends (no code when nothing is paused);
- ``policy_plan``: each key that changes, marking what loosens (no code when nothing does;
  ``arm_live`` when it goes live);
- ``mint_plan``: caller, profile, lifetime, whether it can trade (no code when it cannot).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ordergate.core import ConfigError, to_wire
from ordergate.gateway.desk._errors import DeskError
from ordergate.ledger import Approval, FilingRecord, PauseState, policy_sha256
from ordergate.owner import OwnerAct
from ordergate.policy import Mode, PolicyConfig, changed_keys, loosened_keys, parse_policy
from ordergate.profiles import Permission, Profile

__all__ = [
    "TRADING_PERMISSIONS",
    "Plan",
    "approve_plan",
    "mint_plan",
    "policy_plan",
    "resume_plan",
    "text_param",
]

TRADING_PERMISSIONS = frozenset(
    {Permission.ORDERS_PLACE, Permission.ORDERS_CANCEL, Permission.ORDERS_CANCEL_ANY}
)
"""A caller token whose profile grants any of these can trade: minting it is an owner act."""


@dataclass(frozen=True, slots=True)
class Plan:
    """One act as it will run: ``act`` (what it is journalled as), its canonical ``params``,
    the ``summary`` the owner is shown, what it ``binds`` (the state it was built on), and
    whether it ``needs_code``; ``detail`` is what the journal says of it besides."""

    act: OwnerAct
    params: Mapping[str, Any]
    summary: tuple[str, ...]
    binds: Mapping[str, Any]
    needs_code: bool
    detail: Mapping[str, Any] = field(default_factory=dict)


def approve_plan(approval: Approval, record: FilingRecord) -> Plan:
    terms = record.terms
    amount = (
        f"{terms.get('quantity')} shares"
        if terms.get("quantity") is not None
        else f"${terms.get('dollar_amount')}"
    )
    order = f"{terms.get('side')} {amount} of {terms.get('symbol')} ({terms.get('type')}"
    for price in ("limit_price", "stop_price"):
        if terms.get(price) is not None:
            order += f", {price.replace('_', ' ')} {terms[price]}"
    summary = (
        f"approve: {order})",
        f"estimated: ${to_wire(record.notional)}",
        f"filing: {record.id}",
        f"approval: {approval.id}",
    )
    return Plan(
        act=OwnerAct.APPROVE,
        params={"approval_id": str(approval.id)},
        summary=summary,
        binds={
            "terms": terms,
            "notional": to_wire(record.notional),
            "terms_sha256": approval.terms_sha256,
            "filing_hash": record.hash,
        },
        needs_code=True,
        detail={"approval_id": str(approval.id), "filing_id": str(record.id)},
    )


def resume_plan(pause: PauseState) -> Plan:
    if not pause.paused:
        return Plan(OwnerAct.RESUME, {}, ("resume: nothing is paused",), {}, needs_code=False)
    since = pause.since.isoformat() if pause.since else "unknown"
    return Plan(
        act=OwnerAct.RESUME,
        params={},
        summary=("resume: new orders are accepted again", f"paused since {since}"),
        binds={"since": since, "reason": pause.reason},
        needs_code=True,
    )


def policy_plan(text: str, baseline: PolicyConfig, applied_sha: str | None) -> Plan:
    """Raises ``DeskError`` (400 ``invalid_policy``) for a text that is not a policy."""
    try:
        policy = parse_policy(text)
    except ConfigError as error:
        raise DeskError(400, "invalid_policy", f"The policy is not valid: {error}.") from None
    digest = policy_sha256(text)
    params = {"text": text}
    binds = {"applied_sha256": applied_sha}
    if digest == applied_sha:
        summary = (f"apply policy sha256:{digest}: already in force",)
        return Plan(OwnerAct.POLICY_APPLY, params, summary, binds, needs_code=False)
    loosened = loosened_keys(baseline, policy)
    changed = changed_keys(baseline, policy)
    live = policy.mode is Mode.LIVE and policy.real_money
    arming = bool(loosened) and live and bool({"mode", "real_money"} & set(loosened))
    lines = [f"apply policy sha256:{digest}"]
    lines += [f"  {key}{' (loosens)' if key in loosened else ''}" for key in changed]
    if arming:
        lines.append("  this arms live mode: real money")
    return Plan(
        act=OwnerAct.ARM_LIVE if arming else OwnerAct.POLICY_APPLY,
        params=params,
        summary=tuple(lines),
        binds=binds,
        needs_code=bool(loosened),
        detail={"sha256": digest, "loosened": list(loosened)},
    )


def mint_plan(
    *, caller: str, profile: Profile, ttl_s: int, connection: str | None, waited: bool = False
) -> Plan:
    """``waited``: the same trading token was authorised before and its delay has passed (it
    is minted now, without a code)."""
    trading = bool(profile.permissions & TRADING_PERMISSIONS)
    params = {"caller": caller, "profile": profile.name, "ttl_s": ttl_s, "connection": connection}
    summary = (
        f"mint a caller token: caller {caller}, profile {profile.name}, lifetime {ttl_s} s",
        "  it can trade" if trading else "  it reads only",
        *((f"  for connection {connection}",) if connection else ()),
        *(("  authorised before, its delay has passed: minted now",) if waited else ()),
    )
    binds = {
        "permissions": sorted(str(p) for p in profile.permissions),
        "trading": trading,
        "waited": waited,
    }
    return Plan(
        OwnerAct.TOKEN_MINT,
        params,
        summary,
        binds,
        needs_code=trading and not waited,
        detail={"caller": caller, "profile": profile.name, "ttl_s": ttl_s},
    )


def text_param(params: Mapping[str, Any], name: str) -> str:
    """The act's parameter ``name``, a non-empty string; ``DeskError`` (400) otherwise."""
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise DeskError(400, "invalid_request", f"{name} must be a non-empty string.")
    return value
