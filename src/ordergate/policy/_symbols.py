"""Ticker symbols: normalised by case only, and nothing else accepted.

A plain ticker is ASCII letters and digits, starting with a letter, with at most one ``.``
class separator (``BRK.B``). Everything else is refused rather than mapped: other scripts,
look-alike characters (Cyrillic ``А``, fullwidth ``Ａ``, the Kelvin sign), other separators
(``-``, ``/``, ``_``), inner spaces — and any space or control character around the ticker
(``" AAPL"``, ``"AAPL\\n"``, ``"AAPL\\u00a0"``): a symbol that arrives padded is not stripped
into the ticker it resembles (``is_padded`` says so, so an order can be refused naming the
field). The check runs on the text *before* upper-casing, because Unicode case mapping can
turn non-ASCII into ASCII (``"ß".upper() == "SS"``).

Only the owner's policy file trims its lists (``ordergate.policy._config``): there a
``" SPY "`` is what a person typed, and a trimmed entry can only name the ticker it shows.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["is_padded", "is_plain_ticker", "normalise_symbol"]

# Explicit ASCII ranges, no IGNORECASE (which would let U+212A KELVIN SIGN match "k").
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9]{0,9}(?:\.[A-Za-z0-9]{1,5})?")
# Unicode separators (Z*: spaces, NBSP, line and paragraph separators) and "other" (C*:
# controls, format characters such as zero-width space and BOM, unassigned, private use).
_AROUND = ("Z", "C")


def normalise_symbol(raw: str) -> str | None:
    """The canonical (upper-case) ticker, or ``None`` when ``raw`` is not plain — including
    when anything surrounds it."""
    if _PLAIN.fullmatch(raw) is None:
        return None
    return raw.upper()


def is_padded(raw: str) -> bool:
    """Whether ``raw`` starts or ends with whitespace or a control or format character."""
    return bool(raw) and (_stray(raw[0]) or _stray(raw[-1]))


def _stray(character: str) -> bool:
    return character.isspace() or unicodedata.category(character)[0] in _AROUND


def is_plain_ticker(symbol: str) -> bool:
    """True when ``symbol`` is already canonical: a plain ticker, upper-case, no spaces."""
    return _PLAIN.fullmatch(symbol) is not None and symbol.isupper()
