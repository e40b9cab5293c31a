"""``PaperVenue``: paper trading as a ``Venue`` — the live lane over a ``PaperCaller``.

Nothing is copied from the live lane: ``PaperVenue`` is ``RobinhoodVenue.through`` a typed
client whose caller is a ``PaperCaller``, so the executor, the account reader and the quote
source are the live ones and read the engine's answers exactly as they read the broker's.
What differs is only what answers: the venue's own engine on a paper book in the ledger's
database (orders, positions, portfolio, P&L), the upstream for the rest. As live, a
decision's whole view is read in ``sight``, placing records nothing in the venue's
transaction (the guard records the placement, and a crash is recovered by ``lookup`` on the
filing's ``ref_id``), and an agent reads the account as the guard does. Crypto orders take
the lane the policy's ``crypto.route`` chooses, as live: the live MCP crypto lane
(``McpCrypto``) over the same caller, or the live REST lane over the sandbox's REST venue in
process (``paper_rest``); both are answered by the engine's crypto desk on the one book, and
nothing is ever sent to the Crypto Trading API. ``auto`` asks the upstream's readiness as
live does (its ``tools/list`` offers crypto orders to the account, else the REST lane takes
the order). Option orders take the live option
lane (``RobinhoodOptions``) over the same caller: the engine's options desk fills them on
the upstream's option quotes, with the book's account type and option level (the
upstream's account's unless the policy's ``[paper]`` names them).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import Engine

from ordergate.client import Robinhood
from ordergate.core import Clock
from ordergate.policy import PolicyConfig
from ordergate.venues import CryptoLanes
from ordergate.venues.paper._caller import PaperCaller
from ordergate.venues.paper._rest import paper_rest
from ordergate.venues.robinhood import (
    McpCrypto,
    McpCryptoOffered,
    RobinhoodEquity,
    RobinhoodOptions,
    RobinhoodVenue,
)

__all__ = ["PaperVenue"]


class PaperVenue:
    """Paper trading: nothing reaches a market; the venue's engine answers on the upstream's
    prices (``caller``)."""

    def __init__(self, caller: PaperCaller, *, clock: Clock) -> None:
        self._caller = caller
        rh = Robinhood(caller)
        self._live = RobinhoodVenue.through(
            rh,
            clock=clock,
            paper=True,
            open_orders=caller.open_orders,
            order_by_ref=caller.order_by_ref,
            book=caller.book_parts,
        )
        # Both crypto lanes trade the book (the engine's crypto desk); ``auto`` chooses
        # between them on the upstream's readiness, as live.
        self._crypto = CryptoLanes(
            McpCrypto(rh),
            paper_rest(caller, clock=clock),
            mcp_offered=McpCryptoOffered(_listing(caller.upstream)),
        )
        self._options = RobinhoodOptions(rh, self._live.equity.account)

    @classmethod
    def on(
        cls,
        upstream: Any,
        database: Engine,
        *,
        clock: Clock,
        cash: Decimal,
        slippage_bps: int = 0,
        account: str | None = None,
        rhs_account: str | None = None,
        account_type: str | None = None,
        option_level: int | None = None,
    ) -> PaperVenue:
        """Paper over ``upstream`` (a ``Caller``: a ``Robinhood`` client is one), its book in
        ``database`` (the ledger's engine); ``account_type`` and ``option_level``: the
        book's (``None``: the upstream's agentic account's; the policy's
        ``paper_account_type`` / ``paper_option_level``)."""
        caller = PaperCaller(
            upstream,
            database,
            clock=clock,
            cash=cash,
            slippage_bps=slippage_bps,
            account=account,
            rhs_account=rhs_account,
            account_type=account_type,
            option_level=option_level,
        )
        return cls(caller, clock=clock)

    @classmethod
    def for_policy(
        cls,
        upstream: Any,
        database: Engine,
        policy: PolicyConfig,
        *,
        clock: Clock,
        account: str | None = None,
        rhs_account: str | None = None,
        account_type: str | None = None,
        option_level: int | None = None,
    ) -> PaperVenue:
        """``on``, as ``policy``'s ``[paper]`` table sets the book: its starting cash and
        slippage, and its account type and option level where the table names them (else
        ``account_type`` / ``option_level``: the upstream's, ``None`` when unknown)."""
        return cls.on(
            upstream,
            database,
            clock=clock,
            cash=policy.paper_cash_usd,
            slippage_bps=policy.paper_slippage_bps,
            account=account,
            rhs_account=rhs_account,
            account_type=policy.paper_account_type or account_type,
            option_level=(
                option_level if policy.paper_option_level is None else policy.paper_option_level
            ),
        )

    @property
    def caller(self) -> PaperCaller:
        """What answers the paper account's tools (the gateway sends an agent's reads here)."""
        return self._caller

    @property
    def paper(self) -> bool:
        return True

    @property
    def equity(self) -> RobinhoodEquity:
        return self._live.equity

    @property
    def options(self) -> RobinhoodOptions:
        """The live option lane over the paper caller: the engine's options desk fills on
        the upstream's option quotes."""
        return self._options

    @property
    def crypto(self) -> CryptoLanes:
        """The MCP and REST crypto lanes on the paper book: the engine's crypto desk fills
        on the upstream's crypto quotes whichever the route chooses."""
        return self._crypto


def _listing(upstream: Any) -> Robinhood:
    """The upstream as a client that can read its ``tools/list`` (a ``Robinhood`` is one; a
    caller that cannot list reads as not offering crypto orders)."""
    return upstream if isinstance(upstream, Robinhood) else Robinhood(upstream)
