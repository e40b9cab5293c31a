"""The crypto order's amounts as the wire may give them: plain decimal text only.

A crypto size can carry up to eighteen places (``MAX_PLACES``); a pair takes fewer (its
``asset_increment``, checked by the policy against the venue's pairs). Scientific notation
(``1e-3``, ``2E+1``) is refused rather than read, so what the owner sees filed is the number
the agent wrote. A JSON number is read through its shortest text (``repr``), so a float the
JSON reader spells in exponent form is refused too: send amounts as decimal strings.
"""

from __future__ import annotations

import re
from decimal import Decimal

from ordergate.policy._errors import ProposalError

__all__ = ["MAX_PLACES", "decimal_places", "parse_crypto_amount"]

MAX_PLACES = 18
"""The most decimal places any crypto amount may have (a 19th is refused)."""

_PLAIN = re.compile(r"[0-9]+(\.[0-9]+)?|\.[0-9]+")


def decimal_places(value: Decimal) -> int:
    """How many places after the point ``value`` is written with (``0`` for a whole number)."""
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def parse_crypto_amount(field: str, value: object) -> Decimal | None:
    """``value`` as a ``Decimal``; ``None`` when absent (``None`` or ``""``).

    ``ProposalError(field, …)`` for anything but plain decimal text or a whole number:
    scientific notation, a sign, NaN or Infinity, a bool, an object."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ProposalError(field, "must be a decimal number")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        value = repr(value)
    if isinstance(value, Decimal):
        return value  # CryptoProposal refuses a non-finite one or an exponent above zero
    if not isinstance(value, str):
        raise ProposalError(field, "must be a decimal number")
    if "e" in value.lower():
        raise ProposalError(field, "scientific notation is not accepted; write the number out")
    if not _PLAIN.fullmatch(value):
        raise ProposalError(field, "must be a plain decimal number")
    return Decimal(value)
