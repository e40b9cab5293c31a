"""Gives the tool tests the equity harness that lives beside the venue tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "venue"))

from equity_testkit import START, Harness, ToolFailed, build_harness

__all__ = ["START", "Harness", "ToolFailed", "build_harness"]
