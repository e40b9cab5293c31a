"""What the owner's pages show of an option filing: its underlying, direction and each leg as
a person reads it, and the figures its last policy check was decided on (the strategy
recognised, the max loss, the premium and the collateral), from the filing's journal; of an
exercise request (or its withdrawal), the act, the contract and the contracts asked.

One blocking read of the ledger per filing; ``None`` for a filing that is neither.
"""

from __future__ import annotations

from typing import Any

from ordergate.ledger import FilingRecord, Ledger

__all__ = ["OPTION_EXERCISE", "OPTION_ORDER", "leg_text", "option_facts"]

OPTION_ORDER = "option_order"
OPTION_EXERCISE = "option_exercise"
_ACTS = {"exercise": "exercise", "cancel_exercise": "withdraw the exercise of"}
_CHECKS = ("policy_review", "policy_estimate")
_FIGURES = ("strategy", "max_loss", "premium_usd", "collateral")


def leg_text(leg: dict[str, Any]) -> str:
    """``buy to open 1x AAPL 2026-12-18 190 call``."""
    return (
        f"{leg.get('side')} to {leg.get('position_effect')} {leg.get('ratio')}x "
        f"{leg.get('underlying')} {leg.get('expiry')} {leg.get('strike')} {leg.get('type')}"
    )


def option_facts(ledger: Ledger, record: FilingRecord) -> dict[str, Any] | None:
    """The option filing's facts (blocking): ``underlying``, ``direction``, ``legs`` (each
    as ``leg_text`` with its ``option_id``), ``quantity``, ``limit_price`` and, from its
    latest policy check, ``strategy``, ``max_loss`` (``None``: unbounded, or not priced),
    ``premium_usd`` and ``collateral`` (``None`` until the venue's review gave it)."""
    if record.kind == OPTION_EXERCISE:
        return _exercise_facts(record)
    if record.kind != OPTION_ORDER:
        return None
    terms = record.terms
    legs = [leg for leg in terms.get("legs") or [] if isinstance(leg, dict)]
    facts: dict[str, Any] = {
        "underlying": legs[0].get("underlying") if legs else None,
        "direction": terms.get("direction"),
        "quantity": terms.get("quantity"),
        "limit_price": terms.get("limit_price"),
        "legs": [{"text": leg_text(leg), "option_id": leg.get("option_id")} for leg in legs],
        **dict.fromkeys(_FIGURES),
    }
    # Newest first: the review's figures when the order got that far, else the estimate's.
    for entry in reversed(ledger.journal.for_filing(record.id)):
        if entry.kind in _CHECKS and "strategy" in entry.detail:
            facts.update({name: entry.detail.get(name) for name in _FIGURES})
            break
    return facts


def _exercise_facts(record: FilingRecord) -> dict[str, Any]:
    """An exercise request's ``act`` (as a person reads it), ``underlying``, ``contract``
    (``AAPL 2026-12-18 190 call``; ``None`` when the venue did not list it), ``option_id``
    and ``quantity`` (an exercise's contracts; none for a withdrawal)."""
    terms = record.terms
    contract = terms.get("contract")
    act = str(terms.get("act"))
    return {
        "act": _ACTS.get(act, act),
        "underlying": contract.get("underlying") if isinstance(contract, dict) else None,
        "contract": (
            f"{contract.get('underlying')} {contract.get('expiry')} {contract.get('strike')} "
            f"{contract.get('type')}"
            if isinstance(contract, dict)
            else None
        ),
        "option_id": terms.get("option_id"),
        "quantity": terms.get("quantity"),
    }
