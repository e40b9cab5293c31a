"""Named capabilities ("place an order", "crypto quotes") resolved against the live tool list.

A capability is a predicate over a tool's *name words* (``name_words``), its class (the
classifier, so an override file that pins a class also steers resolution) and its *input
schema*; never over its description, which is prose the upstream may reword at will. So a
renamed tool keeps resolving while it still looks like what it does, a new tool starts
resolving on its own, and a vanished one fails loudly::

    ToolError (ordergate.core)
    └── ToolUnavailable          no listed tool provides the capability (``available`` lists them)
        └── AmbiguousCapability  several do, and none may be chosen (``candidates``)

Several matches are settled by one rule:

1. a match carrying the capability's *reference* name (the tool that provided it on the
   captured surface, e.g. ``place_equity_order``) wins: the tool we have read stays in use
   when a look-alike appears next to it;
2. otherwise a read capability takes the shortest name, then the first in alphabetical
   order (a wrong read costs nothing);
3. otherwise (simulate, money and cancel capabilities) resolution is refused as ambiguous:
   which of two unreviewed order tools receives an order is not ours to guess.

Resolution proves a tool is advertised, not that it works for the account.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ordergate.core import ToolError
from ordergate.discovery._classify import classify, name_words
from ordergate.discovery._mapping import canonical_of, property_for
from ordergate.inventory import ToolClass

__all__ = [
    "CAPABILITIES",
    "CRYPTO_CAPABILITIES",
    "AmbiguousCapability",
    "Capability",
    "ToolUnavailable",
    "accepts_crypto_pair",
    "candidates",
    "resolve",
    "resolve_all",
]

Descriptor = Mapping[str, Any]


class ToolUnavailable(ToolError):
    """No listed tool provides ``capability``; ``available`` names every tool that is listed."""

    code = "tool_unavailable"

    def __init__(self, capability: str, *, available: Sequence[str], reason: str = "") -> None:
        self.capability = capability
        self.available = tuple(sorted(available))
        listed = ", ".join(self.available) or "none"
        super().__init__(
            f"{capability}: {reason or 'no listed tool provides it'}; available: {listed}"
        )


class AmbiguousCapability(ToolUnavailable):
    """Several tools provide a capability that moves money or cancels, and none is the
    reference tool; ``candidates`` names them."""

    code = "ambiguous_capability"

    def __init__(
        self, capability: str, *, candidates: Sequence[str], available: Sequence[str]
    ) -> None:
        self.candidates = tuple(sorted(candidates))
        reason = f"ambiguous between {', '.join(self.candidates)}"
        super().__init__(capability, available=available, reason=reason)


@dataclass(frozen=True, slots=True)
class _Tool:
    """What a predicate may look at: the words of the name, the class and the schema."""

    name: str
    words: tuple[str, ...]
    tool_class: ToolClass
    schema: Mapping[str, Any]
    properties: frozenset[str]
    required: tuple[str, ...]

    @property
    def verb(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def last(self) -> str:
        return self.words[-1] if self.words else ""

    def named(self, *words: str) -> bool:
        return not set(words).isdisjoint(self.words)

    def has(self, *properties: str) -> bool:
        return not self.properties.isdisjoint(properties)

    def maps(self, canonical: str) -> bool:
        return property_for(canonical, self.schema) is not None


def _view(descriptor: Descriptor, classifier: Callable[[str], ToolClass]) -> _Tool:
    name = descriptor.get("name")
    name = name if isinstance(name, str) else ""
    schema = descriptor.get("inputSchema")
    if not isinstance(schema, Mapping):
        schema = {}
    properties = schema.get("properties")
    required = schema.get("required")
    return _Tool(
        name=name,
        words=name_words(name),
        tool_class=classifier(name),
        schema=schema,
        properties=frozenset(properties) if isinstance(properties, Mapping) else frozenset(),
        required=tuple(r for r in required if isinstance(r, str))
        if isinstance(required, list)
        else (),
    )


# -- what the words and the schema say -------------------------------------------------------

_ORDER_WORDS = ("order", "orders", "trade", "trades")
# Money verbs that put a new order in; ``replace``/``exercise``/``transfer`` are money too but
# do something else. ``create`` is listed for a tool an override file pins as money.
_PLACE_VERBS = frozenset({"place", "submit", "execute", "send", "create", "trade"})
_PAIR_PROPERTIES = ("pair", "pairs", "currency_pair_id", "currency_pair_ids", "currency_pair")
_CRYPTO_ACCOUNT = "rhs_account_number"
_OPTION_PROPERTIES = ("legs", "option_id", "option_ids")
_ORDER_ID = ("order_id", "id")
_SYMBOLS = ("symbols", "symbol", "tickers", "ticker")
_INTERVAL = ("interval", "timeframe", "granularity", "resolution")


def accepts_crypto_pair(descriptor: Descriptor) -> bool:
    """Whether a tool takes a currency pair (``BTC-USD``): a pair property, or a symbol in a
    tool named crypto or taking the crypto (rhs) account."""
    return _accepts_pair(_view(descriptor, classify))


def _accepts_pair(tool: _Tool) -> bool:
    if tool.has(*_PAIR_PROPERTIES):
        return True
    return tool.has(*_SYMBOLS) and (tool.named("crypto") or tool.has(_CRYPTO_ACCOUNT))


def _crypto(tool: _Tool) -> bool:
    return tool.named("crypto") or tool.has(_CRYPTO_ACCOUNT, *_PAIR_PROPERTIES)


def _option(tool: _Tool) -> bool:
    return tool.named("option", "options") or tool.has(*_OPTION_PROPERTIES)


def _advanced(tool: _Tool) -> bool:
    return tool.named("advanced", "bracket", "oco", "contingent", "conditional")


def _index(tool: _Tool) -> bool:
    return tool.named("index", "indexes", "indices")


def _equity(tool: _Tool) -> bool:
    """Neither crypto, options, advanced (OCO) orders nor indexes."""
    return not (_crypto(tool) or _option(tool) or _advanced(tool) or _index(tool))


def _plain_order(tool: _Tool) -> bool:
    """Takes a symbol and a side, and requires nothing the canonical fields cannot fill
    (an OCO order's ``take_profit_limit_price`` would go unfilled)."""
    return (
        tool.maps("symbol")
        and tool.maps("side")
        and all(canonical_of(name) is not None for name in tool.required)
    )


def _places(tool: _Tool) -> bool:
    return (
        tool.verb in _PLACE_VERBS
        and tool.named(*_ORDER_WORDS)
        and not tool.has(*_ORDER_ID)  # a tool that names an existing order amends it
    )


def _cancels_order(tool: _Tool) -> bool:
    return tool.named(*_ORDER_WORDS) and tool.has(*_ORDER_ID)


def _review_order(tool: _Tool) -> bool:
    return tool.named(*_ORDER_WORDS) and _equity(tool) and _plain_order(tool)


def _place_order(tool: _Tool) -> bool:
    return _places(tool) and _equity(tool) and _plain_order(tool)


def _cancel_order(tool: _Tool) -> bool:
    return _cancels_order(tool) and _equity(tool)


def _list_orders(tool: _Tool) -> bool:
    return tool.last in ("orders", "trades") and _equity(tool) and tool.maps("account")


def _list_positions(tool: _Tool) -> bool:
    return tool.last in ("positions", "holdings") and _equity(tool) and tool.maps("account")


def _quotes(tool: _Tool) -> bool:
    return tool.last in ("quotes", "quote") and _equity(tool) and tool.has(*_SYMBOLS)


def _accounts(tool: _Tool) -> bool:
    return tool.last == "accounts" and not _crypto(tool)


def _crypto_preview(tool: _Tool) -> bool:
    return tool.named(*_ORDER_WORDS) and _accepts_pair(tool) and _plain_order(tool)


def _crypto_place(tool: _Tool) -> bool:
    return _places(tool) and _accepts_pair(tool) and _plain_order(tool)


def _crypto_cancel(tool: _Tool) -> bool:
    return _cancels_order(tool) and _crypto(tool)


def _crypto_quotes(tool: _Tool) -> bool:
    return tool.last in ("quotes", "quote") and _accepts_pair(tool)


def _option_order(tool: _Tool) -> bool:
    return tool.named(*_ORDER_WORDS) and tool.named("option", "options") and tool.has("legs")


def _option_place(tool: _Tool) -> bool:
    return _places(tool) and _option_order(tool)


def _option_cancel(tool: _Tool) -> bool:
    return _cancels_order(tool) and _option(tool)


def _option_chains(tool: _Tool) -> bool:
    return tool.named("chain", "chains") and tool.named("option", "options")


def _historicals(tool: _Tool) -> bool:
    return (
        tool.named("historicals", "historical", "bars", "candles", "history")
        and _equity(tool)
        and tool.has(*_SYMBOLS)
        and tool.has(*_INTERVAL)
    )


def _portfolio(tool: _Tool) -> bool:
    return tool.named("portfolio") and tool.maps("account")


@dataclass(frozen=True, slots=True)
class Capability:
    """A named thing ordergate needs done, and how to recognise a tool that does it.

    ``tool_class`` is the class a matching tool must have; ``reference`` the tool that
    provided the capability on the captured surface (used only to settle several matches).
    """

    name: str
    tool_class: ToolClass
    reference: str
    predicate: Callable[[_Tool], bool]

    def matches(self, tool: _Tool) -> bool:
        return tool.tool_class is self.tool_class and self.predicate(tool)


_READ, _SIM, _MONEY, _CANCEL = (
    ToolClass.READ,
    ToolClass.SIMULATE,
    ToolClass.MONEY,
    ToolClass.CANCEL,
)

CAPABILITIES: Mapping[str, Capability] = MappingProxyType(
    {
        capability.name: capability
        for capability in (
            Capability("review_order", _SIM, "review_equity_order", _review_order),
            Capability("place_order", _MONEY, "place_equity_order", _place_order),
            Capability("cancel_order", _CANCEL, "cancel_equity_order", _cancel_order),
            Capability("list_orders", _READ, "get_equity_orders", _list_orders),
            Capability("list_positions", _READ, "get_equity_positions", _list_positions),
            Capability("quotes", _READ, "get_equity_quotes", _quotes),
            Capability("accounts", _READ, "get_accounts", _accounts),
            Capability("crypto_preview", _SIM, "preview_crypto_order", _crypto_preview),
            Capability("crypto_place", _MONEY, "place_crypto_order", _crypto_place),
            Capability("crypto_cancel", _CANCEL, "cancel_crypto_order", _crypto_cancel),
            Capability("crypto_quotes", _READ, "get_crypto_quotes", _crypto_quotes),
            Capability("option_review", _SIM, "review_option_order", _option_order),
            Capability("option_place", _MONEY, "place_option_order", _option_place),
            Capability("option_cancel", _CANCEL, "cancel_option_order", _option_cancel),
            Capability("option_chains", _READ, "get_option_chains", _option_chains),
            Capability("historicals", _READ, "get_equity_historicals", _historicals),
            Capability("portfolio", _READ, "get_portfolio", _portfolio),
        )
    }
)
CRYPTO_CAPABILITIES: tuple[str, ...] = (
    "crypto_preview",
    "crypto_place",
    "crypto_cancel",
    "crypto_quotes",
)


def _capability(name: str) -> Capability:
    try:
        return CAPABILITIES[name]
    except KeyError:
        raise ValueError(f"unknown capability {name!r}") from None


def _names(tools: Sequence[Descriptor]) -> list[str]:
    return [name for tool in tools if isinstance(name := tool.get("name"), str)]


def candidates(
    capability: str,
    tools: Sequence[Descriptor],
    *,
    classifier: Callable[[str], ToolClass] = classify,
) -> list[Descriptor]:
    """Every listed tool that provides ``capability``, in listing order."""
    wanted = _capability(capability)
    return [tool for tool in tools if wanted.matches(_view(tool, classifier))]


def resolve(
    capability: str,
    tools: Sequence[Descriptor],
    *,
    classifier: Callable[[str], ToolClass] = classify,
) -> Descriptor:
    """The descriptor of the tool that provides ``capability`` (see the module docstring for
    how several matches are settled).

    Raises ``ToolUnavailable`` when none does, ``AmbiguousCapability`` when several money,
    simulate or cancel tools do and none is the reference tool, ``ValueError`` for an
    unknown capability name.
    """
    wanted = _capability(capability)
    found = candidates(capability, tools, classifier=classifier)
    if not found:
        raise ToolUnavailable(capability, available=_names(tools))
    if len(found) == 1:
        return found[0]
    for tool in found:
        if tool.get("name") == wanted.reference:
            return tool
    if wanted.tool_class is ToolClass.READ:
        return min(found, key=lambda tool: (len(str(tool.get("name"))), str(tool.get("name"))))
    raise AmbiguousCapability(capability, candidates=_names(found), available=_names(tools))


def resolve_all(
    tools: Sequence[Descriptor],
    *,
    classifier: Callable[[str], ToolClass] = classify,
) -> dict[str, str | None]:
    """Every capability, in declaration order, with the tool that provides it or ``None``
    (unavailable or ambiguous)."""
    resolved: dict[str, str | None] = {}
    for capability in CAPABILITIES:
        try:
            tool = resolve(capability, tools, classifier=classifier)
        except ToolUnavailable:
            resolved[capability] = None
        else:
            resolved[capability] = str(tool["name"])
    return resolved
