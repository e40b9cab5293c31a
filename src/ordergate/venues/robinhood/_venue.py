"""``RobinhoodVenue``: Robinhood through the typed client, as a ``Venue``.

Its equity lane is the live executor (``_orders``), the client-backed account reader and
quote source (``_account``) — or, for a test, any parts that answer as the broker does.
Every read is the broker's, so a decision's whole view is read in ``sight`` (nothing is left
to read in the decision's worker thread), placing records nothing in the broker's
transaction (the caller records the placement), and an agent reads the account exactly as
the guard does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

from ordergate.client import MAX_PAGES, Robinhood
from ordergate.client.crypto_rest import CryptoRest
from ordergate.core import Clock
from ordergate.ledger import Ledger
from ordergate.policy import Quote
from ordergate.venues import (
    AccountReader,
    AccountView,
    BrokerOrder,
    CryptoLane,
    CryptoLanes,
    OrderExecutor,
    Placement,
    QuoteSource,
    Sighting,
    Ticket,
)
from ordergate.venues.robinhood._account import (
    BookReads,
    ClientAccountReader,
    ClientQuoteSource,
    OpenOrders,
)
from ordergate.venues.robinhood._crypto import McpCrypto
from ordergate.venues.robinhood._crypto_rest import RestCrypto
from ordergate.venues.robinhood._options import RobinhoodOptions
from ordergate.venues.robinhood._orders import DEFAULT_LOOKUP_PAGES, LiveExecutor, OrderByRef
from ordergate.venues.robinhood._readiness import McpCryptoOffered

__all__ = ["RobinhoodEquity", "RobinhoodVenue"]

T = TypeVar("T")


class RobinhoodEquity:
    """Robinhood's equities: an ``EquityLane`` over the broker's order, account and quote
    parts (``RobinhoodVenue.through`` builds them over the typed client)."""

    def __init__(self, orders: OrderExecutor, account: AccountReader, quotes: QuoteSource) -> None:
        self._orders = orders
        self._account = account
        self._quotes = quotes

    @property
    def orders(self) -> OrderExecutor:
        return self._orders

    @property
    def account(self) -> AccountReader:
        return self._account

    @property
    def quotes(self) -> QuoteSource:
        return self._quotes

    async def sight(
        self,
        account: str,
        symbol: str,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> Sighting:
        """The broker's whole view, read at once (``view`` hands it back)."""
        if quote_from is None:
            whole = await self._account.read(account, symbol, quote=quote)
        else:
            whole = await self._account.read(account, symbol, quote_from=quote_from)
        return Sighting(
            account, symbol, {symbol: whole.quote}, tradable=whole.tradable, whole=whole
        )

    async def more_quotes(self, sighting: Sighting, symbols: Iterable[str]) -> Sighting:
        """The whole view holds every quote it has: nothing more is read."""
        return sighting

    def view(self, sighting: Sighting, *, final: bool) -> AccountView:
        assert sighting.whole is not None, "a Robinhood sighting is the whole view"
        return sighting.whole

    def look(self, ticket: Ticket) -> None:
        """Nothing of the broker's is read inside the decision's transaction."""
        return None

    async def place_and_record(
        self,
        ticket: Ticket,
        record: Callable[[BrokerOrder], T] | None,
        *,
        looked: object | None = None,
        reviewed: Quote | None = None,
    ) -> tuple[Placement, T | None]:
        """Placed at the broker; the caller records the placement (``None``)."""
        return await self._orders.place(ticket), None

    def answers_for(self, ledger: Ledger, identity: str) -> AccountReader:
        """An agent reads the broker's answers, as the guard does."""
        return self._account


class RobinhoodVenue:
    """Robinhood, the real market: its equity lane ``equity``, its crypto lanes ``crypto`` and
    its option lane ``options`` (each ``None`` when it is given none)."""

    def __init__(
        self,
        equity: RobinhoodEquity,
        crypto: CryptoLanes | None = None,
        *,
        paper: bool = False,
        options: RobinhoodOptions | None = None,
    ) -> None:
        self._equity = equity
        self._crypto = crypto
        self._paper = paper
        self._options = options

    @classmethod
    def through(
        cls,
        rh: Robinhood,
        *,
        clock: Clock,
        lookup_pages: int = DEFAULT_LOOKUP_PAGES,
        max_pages: int = MAX_PAGES,
        crypto_rest: CryptoRest | None = None,
        paper: bool = False,
        open_orders: OpenOrders | None = None,
        order_by_ref: OrderByRef | None = None,
        book: BookReads | None = None,
    ) -> RobinhoodVenue:
        """Robinhood through the typed client ``rh``: the live executor, the client-backed
        account reader and quote source, and the crypto lanes: the MCP's crypto tools
        (``McpCrypto``, offered when the MCP lists ``crypto_place``) and, given the REST
        client ``crypto_rest`` (a Crypto Trading API key is configured), the REST rail
        (``RestCrypto``); and the option tools (``RobinhoodOptions``). ``paper``: ``rh`` calls
        a paper caller (its equity lane answers paper, and no crypto or option lane is given:
        nothing may reach a market). ``open_orders``: the venue lists an account's open
        orders directly (the account reader asks it instead of walking the listing).
        ``order_by_ref``: the venue reads an order by its ``ref_id`` directly (the executor's
        lookup asks it instead of walking the listing). ``book``: the venue reads an account's
        portfolio, positions and open orders together (the account reader asks it once for
        the three)."""
        account = ClientAccountReader(
            rh, clock=clock, max_pages=max_pages, open_orders=open_orders, book=book
        )
        lanes: list[CryptoLane] = [McpCrypto(rh, lookup_pages=lookup_pages)]
        if crypto_rest is not None:
            lanes.append(RestCrypto(crypto_rest))
        return cls(
            RobinhoodEquity(
                LiveExecutor(rh, lookup_pages=lookup_pages, paper=paper, by_ref=order_by_ref),
                account,
                ClientQuoteSource(rh),
            ),
            None if paper else CryptoLanes(*lanes, mcp_offered=McpCryptoOffered(rh)),
            paper=paper,
            options=None if paper else RobinhoodOptions(rh, account, lookup_pages=lookup_pages),
        )

    @property
    def paper(self) -> bool:
        return self._paper

    @property
    def equity(self) -> RobinhoodEquity:
        return self._equity

    @property
    def options(self) -> RobinhoodOptions | None:
        return self._options

    @property
    def crypto(self) -> CryptoLanes | None:
        return self._crypto
