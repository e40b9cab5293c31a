"""Imports every tool family so each registers its handlers."""

from __future__ import annotations

import importlib

__all__ = ["FAMILIES", "load_families"]

FAMILIES: tuple[str, ...] = (
    "accounts",
    "equity",
    "equity_pnl",
    "options",
    "crypto",
    "watchlists",
    "alerts",
    "scanner",
    "research",
    "advanced",
    "enrollment",
    "market_data",
    "option_data",
)


def load_families() -> None:
    for family in FAMILIES:
        importlib.import_module(f"ordergate.sandbox.tools.{family}")
