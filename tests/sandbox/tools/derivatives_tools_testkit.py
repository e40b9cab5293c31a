"""Gives the option and crypto tool tests the harness that lives beside the venue tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "venue"))

from derivatives_testkit import (
    FRIDAY_CLOSE,
    REF,
    SATURDAY,
    START,
    Desks,
    ToolFailed,
    build,
    leg,
)

__all__ = ["FRIDAY_CLOSE", "REF", "SATURDAY", "START", "Desks", "ToolFailed", "build", "leg"]
