"""``inert``: model text made safe to print, journal and log (issue 23 §11).

Whatever a model or an agent wrote (a rationale, a reason, a name, a note) is data, never
layout: a newline in it must not start a line that reads like the gateway's own (a forged
``approval   approved by owner (totp)`` under an undecided filing), and an ESC byte must not
reach a terminal (which would run it as a control sequence: recolour, move the cursor, clear
what the owner is reading, set the window title).

``inert`` writes every character that could do either as a visible escape, and leaves all
other text exactly as it was:

- C0 controls and DEL (U+0000-U+001F, U+007F): ``\\n``, ``\\r``, ``\\t`` by name, the rest
  ``\\xHH``;
- C1 controls (U+0080-U+009F, NEL and CSI among them): ``\\xHH``;
- the Unicode line and paragraph separators (U+2028, U+2029), which some readers break lines
  on, and the bidirectional marks, embeddings, overrides and isolates (U+200E, U+200F,
  U+202A-U+202E, U+2066-U+2069), which reorder what a terminal or browser shows:
  ``\\uHHHH``.

A backslash is left alone, so ``inert`` is idempotent (``inert(inert(t)) == inert(t)``): the
journal keeps text already escaped, and every output path may escape it again at no risk.
One function, used wherever model text is written or shown: the journal (on append and on
read, so entries written before it existed come out escaped too), ``ordergate why``,
``ordergate agent``, ``ordergate approvals``, the console, and every log record.
"""

from __future__ import annotations

import re

__all__ = ["inert"]

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    point = ord(char)
    return f"\\x{point:02x}" if point <= 0xFF else f"\\u{point:04x}"


def inert(text: str) -> str:
    """``text`` with every control, line-separator and bidirectional character escaped
    (see the module docstring); text without any is returned as it is."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)
