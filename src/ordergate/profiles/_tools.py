"""Which permission a Robinhood tool needs, read from the words of its name.

Like the gateway's routing (``ordergate.gateway.mcp``), the decision uses the tool's name
(``ordergate.discovery.classify`` for the verb, ``name_words`` for the objects), never its
description. ``None`` means no profile may call the tool. The rule, in order:

1. Annotations can only take away: a tool marked ``destructiveHint: true`` that does not
   cancel needs a permission no profile has (``None``), as the gateway refuses it.
2. A few names are pinned (``_BY_NAME``): ``search`` (an instrument search, no object
   word), ``get_popular_watchlists`` (Robinhood's public lists, not the person's) and
   ``preview_scan`` (an ad-hoc screen over market data that saves nothing).
3. By the class of the verb:

   ============================  ======================================================
   reads, enrolment links        the first object table that matches a word:
                                 orders → ``orders.read``; the person's account and
                                 own lists (accounts, portfolio, positions, P&L, tax
                                 lots, tradability, settings, upgrades, watchlists,
                                 alerts, saved scans) → ``account.read``; research
                                 (news, earnings, fundamentals, ratings, financials,
                                 SEC filings, politician trades, technical
                                 indicators) → ``research.read``; market data
                                 (quotes, historicals, price book, chains,
                                 instruments, indexes, currency pairs, the scanner's
                                 catalogue) → ``market.read``. No match: ``account.read``
   simulations (review, preview) an option order → ``options.review``; another order
                                 word → ``orders.review``; else as a read
   place / submit                an equity order (``place_order``,
                                 ``place_equity_order``: no word but
                                 ``equity``/``stock``/``order``) → ``orders.place``;
                                 an option order (``place_option_order``: no word but
                                 ``option``/``order``) → ``options.place``; a crypto
                                 order (``place_crypto_order``) → ``crypto.place``;
                                 an exercise request (``exercise_option``, always held
                                 for the owner) → ``options.place``; an option order's
                                 replace (``replace_option_order``, a new filing) →
                                 ``options.place`` (the gateway asks ``options.cancel``
                                 of it too);
                                 advanced orders, money moves → ``None``
   cancel / delete / revoke      an option order → ``options.cancel``; a crypto order →
                                 ``crypto.cancel``; withdrawing an option exercise (a
                                 request held for the owner) → ``options.cancel``;
                                 another order → ``orders.cancel``; an alert,
                                 a watchlist, a scan → its ``*.write``; else ``None``
   add / remove / create /       exactly one of watchlist, alert, scan → its
   update / follow / unfollow /  ``*.write``; else ``None``
   mark
   any other verb                ``None`` (fail closed)
   ============================  ======================================================

Private tables are tried before public ones, so a name that mentions both the person's
data and market data needs the account permission. A read whose objects are unknown needs
``account.read``, the most private read: a new read tool stays hidden from a profile
without account data until this table learns it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ordergate.discovery import classify, name_words
from ordergate.inventory import ToolClass
from ordergate.profiles._permissions import Permission

__all__ = ["permission_for"]

_BY_NAME: Mapping[str, Permission] = MappingProxyType(
    {
        "search": Permission.MARKET_READ,
        "get_popular_watchlists": Permission.MARKET_READ,
        "preview_scan": Permission.MARKET_READ,
    }
)

_ORDER_WORDS = frozenset({"order", "orders"})

# Read objects, most private first: the first table with a word in the name wins.
_READ_TABLES: tuple[tuple[Permission, frozenset[str]], ...] = (
    (Permission.ORDERS_READ, _ORDER_WORDS),
    (
        Permission.ACCOUNT_READ,
        frozenset(
            {
                "account", "accounts", "portfolio", "portfolios", "position", "positions",
                "pnl", "realized", "tax", "lots", "tradability", "approval", "setting",
                "settings", "onboarding", "upgrade", "margin", "watchlist", "watchlists",
                "alert", "alerts", "scan", "scans",
            }
        ),
    ),
    (
        Permission.RESEARCH_READ,
        frozenset(
            {
                "news", "earnings", "fundamentals", "ratings", "analyst", "financials",
                "sec", "filing", "filings", "politician", "technical", "indicators",
            }
        ),
    ),
    (
        Permission.MARKET_READ,
        frozenset(
            {
                "quote", "quotes", "historicals", "price", "book", "chain", "chains",
                "instrument", "instruments", "index", "indexes", "indices", "pair", "pairs",
                "currency", "scanner", "datapoints",
            }
        ),
    ),
)  # fmt: skip

_PLACE_VERBS = frozenset({"place", "submit"})
_EQUITY_ORDER_WORDS = frozenset({"equity", "stock", "order"})
_OPTION_WORDS = frozenset({"option", "options"})
_OPTION_ORDER_WORDS = frozenset({"option", "order"})
_EXERCISE_WORDS = frozenset({"exercise", "exercises"})

_CRYPTO_ORDER_WORDS = frozenset({"crypto", "order"})

_CANCEL_TABLE: tuple[tuple[Permission, frozenset[str]], ...] = (
    (Permission.CRYPTO_CANCEL, frozenset({"crypto"})),
    (Permission.ORDERS_CANCEL, frozenset({"order", "orders"})),
    (Permission.ALERTS_WRITE, frozenset({"alert", "alerts"})),
    (Permission.WATCHLISTS_WRITE, frozenset({"watchlist", "watchlists"})),
    (Permission.SCANNER_WRITE, frozenset({"scan", "scans"})),
)

_WRITE_VERBS = frozenset({"add", "remove", "create", "update", "follow", "unfollow", "mark"})
_WRITE_TABLE: tuple[tuple[Permission, frozenset[str]], ...] = (
    (Permission.WATCHLISTS_WRITE, frozenset({"watchlist", "watchlists"})),
    (Permission.ALERTS_WRITE, frozenset({"alert", "alerts"})),
    (Permission.SCANNER_WRITE, frozenset({"scan", "scans", "scanner"})),
)


def _read_permission(objects: frozenset[str]) -> Permission:
    for permission, words in _READ_TABLES:
        if objects & words:
            return permission
    return Permission.ACCOUNT_READ


def _destructive(annotations: Mapping[str, Any] | None) -> bool:
    return isinstance(annotations, Mapping) and annotations.get("destructiveHint") is True


def permission_for(
    tool_name: str, annotations: Mapping[str, Any] | None = None
) -> Permission | None:
    """The permission a call to ``tool_name`` needs; ``None`` when no profile may call it.

    ``annotations`` are the tool's MCP annotations as listed; they can only take a
    permission away (see the module docstring for the whole rule). Raises nothing.
    """
    words = name_words(tool_name)
    tool_class = classify(tool_name)
    if _destructive(annotations) and tool_class is not ToolClass.CANCEL:
        return None
    pinned = _BY_NAME.get(tool_name)
    if pinned is not None:
        return pinned
    if not words:
        return None
    verb, objects = words[0], frozenset(words[1:])
    if tool_class in (ToolClass.READ, ToolClass.ENROLL_LINK):
        return _read_permission(objects)
    if tool_class is ToolClass.SIMULATE:
        if objects & _ORDER_WORDS and objects & _OPTION_WORDS:
            return Permission.OPTIONS_REVIEW
        if objects & _ORDER_WORDS:
            return Permission.ORDERS_REVIEW
        return _read_permission(objects)
    if tool_class is ToolClass.MONEY:
        if verb in _PLACE_VERBS and "order" in objects and objects <= _EQUITY_ORDER_WORDS:
            return Permission.ORDERS_PLACE
        if verb in _PLACE_VERBS and objects == _OPTION_ORDER_WORDS:
            return Permission.OPTIONS_PLACE
        if verb == "replace" and objects == _OPTION_ORDER_WORDS:
            return Permission.OPTIONS_PLACE  # a new filing; the gateway asks options.cancel too
        if verb == "exercise" and objects and objects <= _OPTION_WORDS:
            return Permission.OPTIONS_PLACE  # a request only: always held for the owner
        if verb == "place" and objects == _CRYPTO_ORDER_WORDS:
            return Permission.CRYPTO_PLACE
        return None
    if tool_class is ToolClass.CANCEL:
        if objects & _EXERCISE_WORDS:
            # A request only: withdrawing an exercise is held for the owner too.
            return Permission.OPTIONS_CANCEL if objects & _OPTION_WORDS else None
        if objects & _OPTION_WORDS and objects & _ORDER_WORDS:
            return Permission.OPTIONS_CANCEL
        for permission, table in _CANCEL_TABLE:
            if objects & table:
                return permission
        return None
    if verb not in _WRITE_VERBS:
        return None
    matched = [permission for permission, table in _WRITE_TABLE if objects & table]
    return matched[0] if len(matched) == 1 else None
