"""The column width every package's tables give a UUID: its canonical text
(``8-4-4-4-12`` hex digits, RFC 9562 §4), 36 characters, fixed by the standard rather than by
ordergate, so a migration may import it and stay what it was when it ran."""

from __future__ import annotations

from typing import Final

__all__ = ["UUID_WIDTH"]

UUID_WIDTH: Final = 36
