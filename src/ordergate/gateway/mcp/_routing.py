"""Where a tool call goes: forwarded, through the guard, to the cancel rules, or refused.

Decided by the words of the tool's name (``ordergate.discovery.classify``; underscores as
spaces), never by its description, which the upstream may word as it likes — a tool named
``submit_order_status`` places, whatever its description says:

- the equity order tool (found by capability, ``place_order``) runs the guard's order path;
- the option order tool (``place_option_order``: no word but ``place``, ``option``,
  ``order``) runs the guard's option order path, and its review (``review_option_order``)
  is checked as that path would file it before it is forwarded; its replace
  (``replace_option_order``) is a new filing checked in full before the replaced order is
  cancelled (``_option_order``), never forwarded;
- the crypto order tool (``place_crypto_order``: no word but ``place``, ``crypto``,
  ``order``) runs the guard's crypto order path, and its preview (``preview_crypto_order``)
  is checked as that path would file it before it is forwarded;
- reads, ``review_*``/``preview_*`` simulations and enrolment links are forwarded unchanged;
- an exercise (``exercise_option``) and its withdrawal (``cancel_option_exercise``) are the
  owner's acts: the call files a request held for the owner (``_exercise``), sent to the
  venue only once the owner approves;
- cancels (``cancel``/``delete``/``revoke``) go to the cancel rules (``_cancel``: a
  connection cancels only its own orders) and are recorded;
- every other tool that places or moves money (other option tools, crypto, advanced
  orders, replaces, transfers) is refused with a plain sentence naming what
  it would have done;
- a tool the upstream marks destructive (``annotations.destructiveHint: true``) is refused
  unless it cancels;
- an unknown verb counts as a write and is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ordergate.discovery import classify, name_words
from ordergate.inventory import ToolClass

__all__ = ["Route", "Routing", "route"]

_FORWARDED = frozenset({ToolClass.READ, ToolClass.SIMULATE, ToolClass.ENROLL_LINK})
_CRYPTO = frozenset({"crypto", "coin", "coins", "bitcoin", "btc", "eth", "pair", "pairs"})
_CRYPTO_PLACE = ("place", "crypto", "order")
_CRYPTO_PREVIEW = ("preview", "crypto", "order")
_OPTIONS = frozenset({"option", "options", "exercise", "leg", "legs", "spread", "spreads"})
_OPTION_PLACE = ("place", "option", "order")
_OPTION_REVIEW = ("review", "option", "order")
_OPTION_REPLACE = ("replace", "option", "order")
_OPTION_EXERCISES = (("exercise", "option"), ("cancel", "option", "exercise"))
_ADVANCED = frozenset({"advanced", "bracket", "oco", "contingent", "conditional", "trailing"})
_MONEY_MOVES = frozenset(
    {
        "transfer", "transfers", "withdraw", "withdrawal", "deposit", "deposits", "pay",
        "payment", "ach", "wire", "convert", "bank",
    }
)  # fmt: skip


class Route(Enum):
    ORDER = "order"
    """The equity order tool: the guard's order path."""
    FORWARD = "forward"
    """Forwarded unchanged."""
    OPTION_ORDER = "option_order"
    """The option order tool: the guard's option order path."""
    OPTION_REVIEW = "option_review"
    """The option review: checked as the option path files, then forwarded."""
    OPTION_REPLACE = "option_replace"
    """The option order's replace: a new filing through the guard, then the cancel."""
    OPTION_EXERCISE = "option_exercise"
    """An exercise or its withdrawal: filed and held for the owner (the owner's act)."""
    CRYPTO_ORDER = "crypto_order"
    """The crypto order tool: the guard's crypto order path."""
    CRYPTO_PREVIEW = "crypto_preview"
    """The crypto preview: checked as the crypto path files, then forwarded."""
    CANCEL = "cancel"
    """The cancel rules (``_cancel``), recorded in the journal."""
    REFUSE = "refuse"
    """Not sent; ``Routing.code`` and ``Routing.message`` say why."""


@dataclass(frozen=True, slots=True)
class Routing:
    route: Route
    code: str = ""
    message: str = ""


def _refuse(code: str, message: str) -> Routing:
    return Routing(Route.REFUSE, code, message)


def _destructive(descriptor: Mapping[str, Any]) -> bool:
    annotations = descriptor.get("annotations")
    return isinstance(annotations, Mapping) and annotations.get("destructiveHint") is True


def _money_refusal(name: str, words: set[str]) -> Routing:
    if words & _MONEY_MOVES:
        return _refuse(
            "MOVES_MONEY",
            f"The gateway never moves money: {name} was not sent. Transfers are made in the "
            "Robinhood app.",
        )
    if words & _CRYPTO:
        return _refuse(
            "CRYPTO_NOT_FILED",
            f"{name} was not sent: the gateway places crypto orders only through "
            "place_crypto_order, each filed and checked first.",
        )
    if words & _OPTIONS:
        return _refuse(
            "OPTIONS_NOT_FILED",
            f"{name} was not sent: the gateway places option orders only through "
            "place_option_order, each filed and checked first; an exercise is asked for with "
            "exercise_option and held for the account owner.",
        )
    if words & _ADVANCED:
        return _refuse(
            "ADVANCED_NOT_FILED",
            f"Advanced orders are not placed through the gateway: {name} was not sent. The "
            "gateway places only plain equity orders, each filed and checked first.",
        )
    if "replace" in words:
        return _refuse(
            "REPLACE_NOT_FILED",
            f"Orders are not replaced through the gateway: {name} was not sent. Cancel the "
            "order and place a new one.",
        )
    return _refuse(
        "NOT_FILED",
        f"{name} would place or move something the gateway cannot file, so it was not sent. "
        "Only the equity order tool places orders through the gateway.",
    )


def route(descriptor: Mapping[str, Any], *, order_tool: str | None) -> Routing:
    """Where a call to the listed tool ``descriptor`` goes; ``order_tool`` is the name of the
    equity order tool on this list (``None`` when the list has none)."""
    name = str(descriptor.get("name", ""))
    if order_tool is not None and name == order_tool:
        return Routing(Route.ORDER)
    tool_class = classify(name)
    words = tuple(name_words(name))
    if words in _OPTION_EXERCISES and tool_class in (ToolClass.MONEY, ToolClass.CANCEL):
        return Routing(Route.OPTION_EXERCISE)
    if tool_class is ToolClass.CANCEL:
        return Routing(Route.CANCEL)
    if words == _OPTION_PLACE and tool_class is ToolClass.MONEY:
        return Routing(Route.OPTION_ORDER)
    if words == _OPTION_REPLACE and tool_class is ToolClass.MONEY:
        return Routing(Route.OPTION_REPLACE)
    if words == _OPTION_REVIEW and tool_class is ToolClass.SIMULATE:
        return Routing(Route.OPTION_REVIEW)
    if words == _CRYPTO_PLACE and tool_class is ToolClass.MONEY:
        return Routing(Route.CRYPTO_ORDER)
    if words == _CRYPTO_PREVIEW and tool_class is ToolClass.SIMULATE:
        return Routing(Route.CRYPTO_PREVIEW)
    if tool_class is ToolClass.MONEY:
        return _money_refusal(name, set(name_words(name)))
    if _destructive(descriptor):
        return _refuse(
            "DESTRUCTIVE",
            f"{name} is marked destructive by the broker, so the gateway does not forward it; "
            "of such tools it forwards only cancels.",
        )
    if tool_class in _FORWARDED:
        return Routing(Route.FORWARD)
    return _refuse(
        "WRITE_NOT_FILED",
        f"{name} would change something at the broker that the gateway does not file, so it "
        "was not sent. The gateway forwards reads, reviews and cancels, and places equity "
        "orders through its own checks.",
    )
