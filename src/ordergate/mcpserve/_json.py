"""JSON in and out: request bodies parsed within a nesting bound, answers written with one
rule per server for ``Decimal`` values.

Requests are parsed by ``loads_json``: with ``parse_float=Decimal`` so no amount is ever a
binary float, without ``NaN``/``Infinity`` (not JSON, RFC 8259 §6), and no deeper than
``MAX_JSON_DEPTH`` nested arrays and objects. A body nested past that — or so deep that the
parser itself runs out of stack, which a ``RecursionError`` says — is refused as unparseable
(``ValueError``) before anything walks it: validators, ``Decimal`` conversion and encoders
recurse too, and the deepest message any MCP tool takes is a few levels. On the way out a
server chooses what a ``Decimal`` becomes:

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

from ordergate.core import compact_json, decode_json, json_text

__all__ = ["MAX_JSON_DEPTH", "dumps_decimal_numbers", "dumps_decimal_strings", "loads_json"]

MAX_JSON_DEPTH = 64
"""How many arrays and objects a request may nest (a JSON-RPC call to an options tool with
legs needs five)."""

_NONCE = secrets.token_hex(16)
_MARK = f"\x00{_NONCE}:"
_MARKED = re.compile(r'"\\u0000' + _NONCE + r':([-+0-9.Ee]+)"')


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


_DECODER = json.JSONDecoder(parse_float=Decimal, parse_constant=_not_json)


def _json_text(body: bytes | str) -> str:
    """``body`` as ``json.loads`` reads it: bytes decoded by their detected encoding (a UTF-8
    BOM accepted there), text refused when it starts with a BOM."""
    if isinstance(body, str):
        if body.startswith("\ufeff"):
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", body, 0)
        return body
    return json_text(body)


def loads_json(body: bytes | str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value of ``body``. Raises ``ValueError`` for a body that is not JSON or nests
    arrays and objects deeper than ``max_depth``. (One decoder for every call: ``json.loads``
    with options builds a new one each time.)"""
    try:
        if isinstance(body, bytes):
            value = decode_json(_DECODER, body)
        else:
            value = _DECODER.decode(_json_text(body))
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None
    # At most one level per bracket: a body with few brackets needs no walk (the hot path).
    if isinstance(body, str):
        brackets = body.count("[") + body.count("{")
    else:
        brackets = body.count(b"[") + body.count(b"{")
    if brackets > max_depth and _depth(value, max_depth) > max_depth:
        raise ValueError(f"nested deeper than {max_depth}")
    return value


def _depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests, counted level by level (no recursion) up to ``limit + 1``."""
    depth = 0
    level = [value] if isinstance(value, dict | list) else []
    while level and depth <= limit:
        depth += 1
        below: list[Any] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below.extend(child for child in children if isinstance(child, dict | list))
        level = below
    return depth


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


_MARKED_NUMBERS = compact_json(_as_marked_number)  # built once: the gateway's every answer


def dumps_decimal_numbers(message: Any) -> bytes:
    """Compact JSON; a ``Decimal`` becomes the JSON number it spells (``1.50``, ``1E+2``)."""
    text = _MARKED_NUMBERS(message)
    if _NONCE in text:
        text = _MARKED.sub(r"\1", text)
    return text.encode()
