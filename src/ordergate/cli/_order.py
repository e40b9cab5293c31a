"""``ordergate order SYMBOL buy|sell (--qty N | --usd N)``: one order through the guard.

The same wall as the gateway: the order is filed, checked (stage A), held for approval when
the policy asks, reviewed and checked again (stage B), and placed only as filed — on paper
unless live is armed. Prints the filing id, the decision and its reason codes. ``--ref-id``
is the person's own key for the order: the same key again answers the first filing.
Exit 0 accepted, 3 refused (also when another order on the account held its turn past the
bound: ``account_busy``, nothing filed), 4 unanswered (may be live), 2 bad input or
configuration, 1 the upstream cannot be reached.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated
from uuid import UUID

import anyio
import typer

from ordergate.cli._options import (
    DbOption,
    JsonOption,
    PolicyOption,
    SandboxOption,
    UpstreamOption,
    guard_from,
    settings_from,
)
from ordergate.cli._outcomes import EXIT_REFUSED, exit_code, print_body
from ordergate.core import (
    DecimalFieldError,
    MarketHours,
    OrderType,
    Side,
    TimeInForce,
    parse_decimal,
)

__all__ = ["order_command"]


def _amount(option: str, value: str | None) -> Decimal | None:
    try:
        return parse_decimal(option, value)
    except DecimalFieldError:
        raise typer.BadParameter("not a decimal number", param_hint=option) from None


def order_command(
    symbol: Annotated[str, typer.Argument(help="Ticker, e.g. AAPL.")],
    side: Annotated[Side, typer.Argument(help="buy or sell.")],
    qty: Annotated[
        str | None, typer.Option("--qty", help="Shares (fractions allowed).", show_default=False)
    ] = None,
    usd: Annotated[
        str | None,
        typer.Option("--usd", help="A dollar amount instead of shares.", show_default=False),
    ] = None,
    order_type: Annotated[OrderType, typer.Option("--type", help="Order type.")] = OrderType.MARKET,
    limit: Annotated[
        str | None,
        typer.Option("--limit", help="Limit price (limit, stop_limit).", show_default=False),
    ] = None,
    stop: Annotated[
        str | None,
        typer.Option("--stop", help="Stop price (stop_market, stop_limit).", show_default=False),
    ] = None,
    tif: Annotated[TimeInForce, typer.Option("--tif", help="Time in force.")] = TimeInForce.GFD,
    hours: Annotated[MarketHours, typer.Option("--hours", help="Market hours.")] = (
        MarketHours.REGULAR_HOURS
    ),
    identity: Annotated[
        str, typer.Option("--identity", help="Who the filing is recorded under.")
    ] = "cli",
    ref_id: Annotated[
        UUID | None,
        typer.Option(
            "--ref-id",
            metavar="UUID",
            help=(
                "Your own key for this order (a fresh UUID per order): run the command again "
                "with the same one and it answers the first filing, filing and placing "
                "nothing; another order under it is refused ref_id_reused. Never sent to the "
                "broker."
            ),
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
    policy: PolicyOption = None,
    db: DbOption = None,
    upstream: UpstreamOption = None,
    sandbox: SandboxOption = False,
) -> None:
    """Submit one equity order through the guard (paper unless live is armed)."""
    from ordergate.policy import Proposal, ProposalError

    options = {"quantity": "--qty", "notional": "--usd", "limit_price": "--limit"}
    options |= {"stop_price": "--stop", "symbol": "SYMBOL"}
    try:
        proposal = Proposal(
            symbol=symbol,
            side=side,
            quantity=_amount("--qty", qty),
            notional=_amount("--usd", usd),
            order_type=order_type,
            limit_price=_amount("--limit", limit),
            stop_price=_amount("--stop", stop),
            time_in_force=tif,
            market_hours=hours,
        )
    except ProposalError as error:
        hint = options.get(error.field, error.field)
        if error.field == "quantity" and "exactly one" in error.reason:
            hint = "--qty / --usd"
        raise typer.BadParameter(error.reason, param_hint=hint) from None
    settings = settings_from(policy, db, upstream, sandbox)
    code = anyio.run(_submit, settings, proposal, identity, ref_id, as_json)
    raise typer.Exit(code)


async def _submit(
    settings: object, proposal: object, identity: str, ref_id: UUID | None, as_json: bool
) -> int:
    from ordergate.ledger import AccountBusyError
    from ordergate.policy import Proposal
    from ordergate.runtime import Settings

    assert isinstance(settings, Settings) and isinstance(proposal, Proposal)
    async with guard_from(settings) as running:
        try:
            outcome = await running.guard.submit(proposal, identity=identity, agent_key=ref_id)
        except AccountBusyError as busy:
            typer.echo(f"refused ({busy.code}): {busy}", err=True)
            return EXIT_REFUSED
        body = outcome.as_json(mode=running.arming.mode.value)
        print_body(body, as_json=as_json)
        return exit_code(body)
