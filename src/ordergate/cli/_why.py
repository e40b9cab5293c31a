"""``ordergate why FILING``: the chain behind one filing, from the ledger.

decision → filing → the order (its kind and terms: an equity, option or crypto order) →
checks (stage A ``estimate``, stage B ``review``) → approval → placement → fills → grade,
and who filed it (the client's registered name beside the
identity, when a gateway connection filed it). The filing is named by its id or by a start
of it that only one filing's id has. Reads the ledger only. Exit 0, 2 when the ledger cannot
be opened, the filing is unknown or the start is several filings'.

Each printed line is made inert (``ordergate.core.inert``) as it is printed: a rationale is
a model's text, and a newline in it must not print a line of its own (a forged
``approval   approved by owner`` under an undecided filing), nor an ESC reach the terminal.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from ordergate.cli._approvals import named
from ordergate.cli._options import DbOption, JsonOption, fail, open_existing_ledger
from ordergate.core import inert

__all__ = ["why_command"]


def why_command(
    filing: Annotated[
        str,
        typer.Argument(
            help="The filing id (as `order` or `agent` print), or the start of it that only "
            "one filing's id has."
        ),
    ],
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Print why a filing exists and what became of it: decision to grade."""
    from ordergate.agent import filing_chain
    from ordergate.gateway.desk import client_name_of
    from ordergate.ledger import UnknownFilingError

    ledger = open_existing_ledger(db)
    try:
        found = ledger.filing_ids_starting(filing)
        if len(found) > 1:
            raise fail(f"{filing} is the start of several filings' ids; give more of it", 2)
        chain = filing_chain(ledger, found[0] if found else filing)
        chain["filing"]["client_name"] = client_name_of(ledger.engine, chain["filing"]["identity"])
    except (UnknownFilingError, ValueError):
        raise fail(f"no filing {filing} in this ledger", 2) from None
    finally:
        ledger.close()
    if as_json:
        typer.echo(json.dumps(chain, sort_keys=True))
        return
    for line in _lines(chain):
        typer.echo(inert(line))


_UNSHOWN = frozenset({"account_number", "rhs_account_number", "legs"})
_OPTION_FIGURES = (
    ("strategy", "strategy "),
    ("max_loss", "max loss $"),
    ("premium_usd", "premium $"),
    ("collateral", "collateral $"),
)


def _order_line(filing: dict[str, Any]) -> str:
    """The filed order: its kind and its terms as filed (the accounts left out), so an
    equity, option or crypto filing reads as what it asked for (a crypto order's ``pair``,
    ``asset_quantity`` or ``quote_amount`` and the ``lane`` it went to)."""
    terms = filing.get("terms") or {}
    shown = " ".join(f"{name}={terms[name]}" for name in sorted(terms) if name not in _UNSHOWN)
    return f"order      {filing.get('kind', '?')}  {shown}"


def _leg_lines(filing: dict[str, Any]) -> list[str]:
    """An option order's legs, one a line: side, effect, ratio and the contract."""
    legs = (filing.get("terms") or {}).get("legs") or []
    return [
        f"leg        {leg.get('side')} to {leg.get('position_effect')} {leg.get('ratio')}x "
        f"{leg.get('underlying')} {leg.get('expiry')} {leg.get('strike')} {leg.get('type')}  "
        f"{leg.get('option_id')}"
        for leg in legs
        if isinstance(leg, dict)
    ]


def _check_line(check: dict[str, Any]) -> str:
    """A check, and what an option order's was decided on (strategy, max loss, premium,
    collateral)."""
    figures = []
    for name, label in _OPTION_FIGURES:
        if name in check:
            value = check[name]
            if value is None:
                value = "unbounded" if name == "max_loss" else "unknown"
            figures.append(f"{label}{value}")
    line = f"check      {check['stage']}: {check['why']}"
    return line + (f"  ({', '.join(figures)})" if figures else "")


def _lines(chain: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    decision = chain["decision"]
    if decision is None:
        lines.append("decision   (not an agent's: filed directly)")
    else:
        lines.append(
            f"decision   {decision['at']}  {decision['identity']} ({decision['strategy']}, "
            f"{decision['state']}, {decision['session']}): {decision['rationale']}"
        )
        lines.append(f"           snapshot {decision['snapshot_digest']}")
    filing = chain["filing"]
    reasons = f" ({', '.join(filing['reasons'])})" if filing["reasons"] else ""
    lines.append(
        f"filing     {filing['id']}  {filing['filed_at']}  {filing['outcome']} → "
        f"{filing['status']}{reasons}"
    )
    lines.append(f"filed by   {named(filing['identity'], filing['client_name'])}")
    lines.append(_order_line(filing))
    lines.extend(_leg_lines(filing))
    lines.extend(_check_line(check) for check in chain["checks"])
    approval = chain["approval"]
    lines.append(
        "approval   not needed"
        if approval is None
        else f"approval   {approval['state']} by {approval['decided_by'] or '-'}"
    )
    placement = chain["placement"]
    lines.append(
        "placement  none"
        if placement is None
        else f"placement  {placement['broker_order_id']}  {placement['state']}  "
        f"{placement['cumulative_quantity']} @ {placement['average_price'] or '-'}"
    )
    lines.extend(
        f"fill       {fill['quantity']} @ {fill['price']}  {fill['executed_at']}"
        for fill in chain["fills"]
    )
    grade = chain["grade"]
    if grade is None:
        lines.append("grade      not queued yet")
    else:
        excess = grade.get("excess_bps")
        lines.append(f"grade      {grade['state']}" + (f"  {excess} bps" if excess else ""))
    return lines
