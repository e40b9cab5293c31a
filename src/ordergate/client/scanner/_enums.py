"""Wire vocabulary of the scanner tools; each value is the string on the wire."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["SortDirection"]


class SortDirection(StrEnum):
    ASC = "asc"
    DESC = "desc"
