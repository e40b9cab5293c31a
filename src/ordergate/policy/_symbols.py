"""Ticker symbols: normalised by case and surrounding space only, and nothing else accepted.

Surrounding spaces and tabs are stripped. A plain ticker is ASCII letters and digits,
starting with a letter, with at most one ``.`` class separator (``BRK.B``). Everything else
is refused rather than mapped: other scripts, look-alike characters (Cyrillic ``А``,
fullwidth ``Ａ``, the Kelvin sign), other separators (``-``, ``/``, ``_``), inner spaces.
The check runs on the text *before* upper-casing, because Unicode case mapping can turn
non-ASCII into ASCII (``"ß".upper() == "SS"``).
"""

from __future__ import annotations

import re

__all__ = ["is_plain_ticker", "normalise_symbol"]

# Explicit ASCII ranges, no IGNORECASE (which would let U+212A KELVIN SIGN match "k").
# Surrounding ASCII spaces and tabs only: a newline, NBSP or ideographic space is not "space"
# a person typed around a ticker, so it is refused like any other stray character.
_SPACE = " \t"
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9]{0,9}(?:\.[A-Za-z0-9]{1,5})?")


def normalise_symbol(raw: str) -> str | None:
    """The canonical ticker (stripped, upper-case), or ``None`` when ``raw`` is not plain."""
    text = raw.strip(_SPACE)
    if _PLAIN.fullmatch(text) is None:
        return None
    return text.upper()


def is_plain_ticker(symbol: str) -> bool:
    """True when ``symbol`` is already canonical: a plain ticker, upper-case, no spaces."""
    return _PLAIN.fullmatch(symbol) is not None and symbol.isupper()
