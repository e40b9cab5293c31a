"""Broker order ids in one spelling, so an id can be compared with the record.

A broker's order id is a UUID (Robinhood's, the sandbox venue's); the paper executor's is
``paper-`` and 32 hex digits. An id given by an agent may spell the same order another way —
upper case, braces, ``urn:uuid:``, no dashes — so it is compared, and sent on, only in its
canonical spelling (``str(UUID(...))``: lower case with dashes; ``paper-`` and lower-case hex
for the paper book). Anything else is not an order id: ``None``.
"""

from __future__ import annotations

from uuid import UUID, uuid4

__all__ = ["PAPER_PREFIX", "canonical_order_id", "new_paper_order_id"]

PAPER_PREFIX = "paper-"
_LONGEST = len("urn:uuid:") + 36  # the longest spelling UUID() reads


def new_paper_order_id() -> str:
    """A fresh paper-book order id, in its canonical spelling."""
    return PAPER_PREFIX + uuid4().hex


def canonical_order_id(value: object) -> str | None:
    """The canonical spelling of an order id, or ``None`` when ``value`` is not one."""
    if not isinstance(value, str):
        return None
    paper = value.startswith(PAPER_PREFIX)
    text = value[len(PAPER_PREFIX) :] if paper else value
    if len(text) > _LONGEST or not text.isascii():
        return None
    try:
        parsed = UUID(text)
    except ValueError:
        return None
    return PAPER_PREFIX + parsed.hex if paper else str(parsed)
