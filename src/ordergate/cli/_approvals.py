"""``ordergate approvals``, ``ordergate approve ID``, ``ordergate deny ID``.

``approvals`` lists what waits (ledger only). ``approve`` claims the approval (once: of two
people approving at once, one acts), checks it has not expired and that the filing's terms
still hash to what was bound, then carries the order on through review, stage B and place —
so it needs the upstream. ``deny`` needs only the ledger. Exit codes as ``ordergate order``.
"""

from __future__ import annotations

import json
from typing import Annotated

import anyio
import typer

from ordergate.cli._options import (
    DbOption,
    JsonOption,
    PolicyOption,
    SandboxOption,
    UpstreamOption,
    fail,
    guard_from,
    open_existing_ledger,
    settings_from,
)
from ordergate.cli._outcomes import exit_code, print_outcome

__all__ = ["approvals_command", "approve_command", "deny_command"]

ByOption = Annotated[str, typer.Option("--by", help="Who decides (kept on the record).")]
IdArgument = Annotated[str, typer.Argument(help="The approval id (from `ordergate approvals`).")]


def approvals_command(as_json: JsonOption = False, db: DbOption = None) -> None:
    """List the orders waiting for a person's approval."""
    from ordergate.runtime._webhook import approval_announcement

    with open_existing_ledger(db) as ledger:
        waiting = [
            approval_announcement(approval, ledger.filing(approval.filing_id))
            for approval in ledger.approvals.pending()
        ]
    if as_json:
        typer.echo(json.dumps(waiting, sort_keys=True))
        return
    if not waiting:
        typer.echo("no approvals pending")
        return
    for item in waiting:
        size = f"{item['quantity']} shares" if item["quantity"] else f"${item['dollar_amount']}"
        limit = f" limit {item['limit_price']}" if item["limit_price"] else ""
        typer.echo(
            f"{item['approval_id']}  {item['side']} {size} {item['symbol']} "
            f"{item['type']}{limit}  ~${item['notional']}  by {item['identity']}  "
            f"expires {item['expires_at']}"
        )


def approve_command(
    approval_id: IdArgument,
    by: ByOption = "operator",
    as_json: JsonOption = False,
    policy: PolicyOption = None,
    db: DbOption = None,
    upstream: UpstreamOption = None,
    sandbox: SandboxOption = False,
) -> None:
    """Approve a pending order: it is reviewed, checked again and placed."""
    settings = settings_from(policy, db, upstream, sandbox)
    raise typer.Exit(anyio.run(_approve, settings, approval_id, by, as_json))


async def _approve(settings: object, approval_id: str, by: str, as_json: bool) -> int:
    from ordergate.ledger import LedgerError
    from ordergate.policy import ProposalError
    from ordergate.runtime import Settings

    assert isinstance(settings, Settings)
    async with guard_from(settings) as running:
        try:
            outcome = await running.guard.approve(approval_id, by=by)
        except (LedgerError, ProposalError) as error:
            raise fail(f"cannot approve: {error}", 2) from None
        print_outcome(outcome, mode=running.arming.mode.value, as_json=as_json)
        return exit_code(outcome)


def deny_command(
    approval_id: IdArgument,
    by: ByOption = "operator",
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Deny a pending order: it is never sent and its reservation is released."""
    from ordergate.execution import deny_approval
    from ordergate.ledger import LedgerError

    with open_existing_ledger(db) as ledger:
        try:
            outcome = deny_approval(ledger, approval_id, by=by)
        except LedgerError as error:
            raise fail(f"cannot deny: {error}", 2) from None
    print_outcome(outcome, mode="ledger", as_json=as_json)
    raise typer.Exit(0)
