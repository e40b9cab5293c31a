"""JSON text for answers, with one rule per server for ``Decimal`` values.

Requests are parsed with ``parse_float=Decimal`` so no amount is ever a binary float. On the
way out a server chooses what a ``Decimal`` becomes:

- ``dumps_decimal_strings``: a decimal string (``"12.30"``): the sandbox venue, whose own
  amounts are strings on the wire, as Robinhood's are;
- ``dumps_decimal_numbers``: the JSON number it was read from (``12.30``): the gateway, which
  forwards an upstream's answers unchanged — every ``Decimal`` in them was a JSON number the
  client parsed, so it goes back out as that number, digit for digit.

``json`` cannot write raw number text for a custom type, so ``dumps_decimal_numbers`` writes
each ``Decimal`` as a string carrying a per-process random marker and then unquotes exactly
those strings: no string from the data can carry the marker (it is never shown), so nothing
else is touched.
"""

from __future__ import annotations

import json
import re
import secrets
from decimal import Decimal
from typing import Any

__all__ = ["dumps_decimal_numbers", "dumps_decimal_strings"]

_NONCE = secrets.token_hex(16)
_MARK = f"\x00{_NONCE}:"
_MARKED = re.compile(r'"\\u0000' + _NONCE + r':([-+0-9.Ee]+)"')


def _as_string(value: object) -> str:
    if isinstance(value, Decimal):
        return format(value, "f")
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _as_marked_number(value: object) -> str:
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError("a non-finite Decimal is not a JSON number")
        return _MARK + str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def dumps_decimal_strings(message: Any) -> bytes:
    """Compact JSON; a ``Decimal`` becomes a plain decimal string (``"0.000001"``)."""
    return json.dumps(message, separators=(",", ":"), default=_as_string).encode()


def dumps_decimal_numbers(message: Any) -> bytes:
    """Compact JSON; a ``Decimal`` becomes the JSON number it spells (``1.50``, ``1E+2``)."""
    text = json.dumps(message, separators=(",", ":"), default=_as_marked_number)
    if _NONCE in text:
        text = _MARKED.sub(r"\1", text)
    return text.encode()
